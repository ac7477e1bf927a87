#!/bin/sh
# Runs tests/mpi/partial_element.c on 2 ranks; see that file for what it
# asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 partial_element
