#!/bin/sh
# Shared file pointers on 1, 3 and 8 ranks (tests/io/io_shared.c).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 3 8; do
    run_mpi_ok $n tests/io/io_shared
done
