#!/bin/sh
# tests/mpi/grequest.c: generalized requests and when their query, free and
# cancel callbacks run, through every kind of wait and test.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 1 grequest
run_mpi_ok 2 grequest
