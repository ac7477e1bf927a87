#!/bin/sh
# rma_lock_order.c: MPI_Win_lock_all's partial shared locks and two
# exclusive locks built into the order that deadlocked while a shared lock
# request queued behind a waiting exclusive one (verbs_rma_nic -n 8 hung
# at times).  Locks by message (HCMPI_RMA_DIRECT=0); the waiters sleep at
# once (HCMPI_SPIN=0), which is how the test sees them queued.  A cycle
# runs the job into its time limit.
# hcmpi's promise, not MPI's: MPICH 4.0.2 (ch4) grants in queue order, a
# shared request behind a waiting exclusive one, and hangs in both parts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "hcmpi's lock order only"
HCMPI_RMA_DIRECT=0 HCMPI_SPIN=0 MPI_TEST_TIMEOUT=60 run_mpi_ok 4 rma_lock_order
HCMPI_SPIN=0 MPI_TEST_TIMEOUT=60 run_mpi_ok 4 rma_lock_order
echo "rma_lock_order: all cases passed"
