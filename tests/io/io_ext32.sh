#!/bin/sh
# Data representations (tests/io/io_ext32.c), on 1 and 2 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2; do
    run_mpi_ok $n tests/io/io_ext32
done
