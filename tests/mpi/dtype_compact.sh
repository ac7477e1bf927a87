#!/bin/sh
# tests/mpi/dtype_compact.c (10^8-element datatypes in constant memory,
# moved around a ring; int results that do not fit; overflow refused) on
# 1 and 3 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 3; do
    run_mpi_ok $n dtype_compact
done
