#!/bin/sh
# Runs tests/mpi/wildcard_order.c on 4 ranks; see that file for what it asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 4 wildcard_order
