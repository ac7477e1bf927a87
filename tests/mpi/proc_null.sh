#!/bin/sh
# tests/mpi/proc_null.c on 1 and 2 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 1 proc_null
run_mpi_ok 2 proc_null
