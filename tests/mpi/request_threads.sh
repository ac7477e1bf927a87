#!/bin/sh
# tests/mpi/request_threads.c: 4 threads per rank allocate, complete, free
# and cancel requests at once, sends freed on another thread than the one
# that made them; on 2 and 4 ranks, and on 2 ranks over tcp alone.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 request_threads
run_mpi_ok 4 request_threads 50
HCMPI_TRANSPORTS=tcp run_mpi_ok 2 request_threads 30
