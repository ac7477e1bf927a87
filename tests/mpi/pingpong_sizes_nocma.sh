#!/bin/sh
# pingpong_sizes with CMA off: shared-memory rendezvous must use the
# pipelined copy through the segment (HCMPI_SHM_CMA=0).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
HCMPI_SHM_CMA=0
export HCMPI_SHM_CMA
run_mpi_ok 2 pingpong_sizes
