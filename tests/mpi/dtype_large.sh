#!/bin/sh
# tests/mpi/dtype_large.c (a 4.8 MB non-contiguous message) on 1, 2 and 3 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3; do
    run_mpi_ok $n dtype_large
done
