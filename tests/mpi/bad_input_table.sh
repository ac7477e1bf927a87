#!/bin/sh
# Runs tests/mpi/bad_input_table.c on 2 ranks: every bad-argument case must
# return its error class; the program prints how many cases it ran.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 bad_input_table
