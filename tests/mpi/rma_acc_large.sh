#!/bin/sh
# tests/mpi/rma_acc_large.c: large accumulates (each followed by
# MPI_Win_flush_local, windows created per round), unaligned and strided
# targets and a large MPI_Get_accumulate land exactly, on MPI_Win_create
# windows (active messages) and MPI_Win_allocate ones (moved directly on
# one node, and as active messages with HCMPI_RMA_DIRECT=0).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 3 rma_acc_large create
run_mpi_ok 2 rma_acc_large create
run_mpi_ok 3 rma_acc_large allocate
HCMPI_RMA_DIRECT=0 run_mpi_ok 3 rma_acc_large allocate
