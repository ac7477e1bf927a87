#!/bin/sh
# tests/mpi/thread_multiple.c: 2 threads per rank on 2 and 4 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 thread_multiple
run_mpi_ok 4 thread_multiple
