#!/bin/sh
# tests/mpi/dtype_stream.c (> 16 MiB non-contiguous messages, pipelined by
# the engine) on 2 ranks with CMA, without CMA, over tcp, and on 3 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 dtype_stream
(HCMPI_SHM_CMA=0 && export HCMPI_SHM_CMA && run_mpi_ok 2 dtype_stream) ||
    exit $?
(HCMPI_TRANSPORTS=tcp && export HCMPI_TRANSPORTS &&
    run_mpi_ok 2 dtype_stream) || exit $?
run_mpi_ok 3 dtype_stream
