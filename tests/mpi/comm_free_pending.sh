#!/bin/sh
# tests/mpi/comm_free_pending.c: MPI_Comm_free with Isend/Irecv (eager and
# rendezvous) and Ibarrier pending, on 2 and 4 ranks, and over tcp.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 comm_free_pending
run_mpi_ok 4 comm_free_pending
HCMPI_TRANSPORTS=tcp run_mpi_ok 2 comm_free_pending
