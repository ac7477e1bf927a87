#!/bin/sh
# tests/mpi/thread_multiple.c: 4 threads per rank (point-to-point, Probe,
# collectives on per-thread communicators) on 2, 3 (an unpaired rank) and
# 4 ranks, and on 2 ranks over tcp alone.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 thread_multiple
run_mpi_ok 3 thread_multiple 100
run_mpi_ok 4 thread_multiple
HCMPI_TRANSPORTS=tcp run_mpi_ok 2 thread_multiple 100
