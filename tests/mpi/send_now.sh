#!/bin/sh
# Runs tests/mpi/send_now.c on 2 and 3 ranks; see that file for what it asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 send_now
run_mpi_ok 3 send_now
