#!/bin/sh
# tests/mpi/rma_atomic_elem.c: single-element MPI_Fetch_and_op,
# MPI_Compare_and_swap, MPI_Get_accumulate and MPI_Accumulate from every
# rank on the same words stay exact (fetched tickets unique, CAS increment
# loops exact, swaps a permutation), mixed with longer accumulates, on
# shared, allocated and created windows; with HCMPI_RMA_DIRECT=0 the
# shared window's operations are active messages instead.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for how in shared allocate create; do
    run_mpi_ok 4 rma_atomic_elem $how
done
run_mpi_ok 2 rma_atomic_elem shared
HCMPI_RMA_DIRECT=0 run_mpi_ok 3 rma_atomic_elem shared 300
