#!/bin/sh
# Runs tests/io/io_access.c on 1, 2 and 4 ranks; see that file for what it
# asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 4; do
    run_mpi_ok $n tests/io/io_access
done
