#!/bin/sh
# tests/mpi/rma_atomic_ops.c: single-element MPI_Fetch_and_op, MPI_Accumulate
# and MPI_Compare_and_swap on an MPI_Win_allocate window (mapped by every
# rank of the node: the direct single-element path) for every predefined op
# on int, long, unsigned char, double, int64_t and uint16_t against a serial
# reference, self and neighbour; then 5 ranks at once on rank 0's words,
# totals checked.  With HCMPI_RMA_DIRECT=0 the same as active messages.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 5; do
    run_mpi_ok $n rma_atomic_ops
done
HCMPI_RMA_DIRECT=0 run_mpi_ok 3 rma_atomic_ops
