#!/bin/sh
# Runs tests/mpi/comm_disconnect.c on 2 and 4 ranks; see that file for what
# it asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 comm_disconnect
run_mpi_ok 4 comm_disconnect
