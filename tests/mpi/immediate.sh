#!/bin/sh
# Runs tests/mpi/immediate.c on 2 and 3 ranks; see that file for what it asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 immediate
run_mpi_ok 3 immediate
