#!/bin/sh
# tests/mpi/rma_nomem.c: a target refusing the memory for every other large
# one-sided operation (HCMPI_TEST_RMA_NOMEM=2) fails the origin's unlock, fence,
# complete and flush with MPI_ERR_NO_MEM, and the window's next operations
# land; on shared memory (as active messages: HCMPI_RMA_DIRECT=0) and over
# tcp.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "HCMPI_TEST_RMA_NOMEM is hcmpi's"
export HCMPI_TEST_RMA_NOMEM=2
HCMPI_RMA_DIRECT=0 run_mpi_ok 2 rma_nomem
HCMPI_TRANSPORTS=tcp run_mpi_ok 2 rma_nomem
