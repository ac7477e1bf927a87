#!/bin/sh
# tests/mpi/coll_nbc.c: concurrent non-blocking collectives on 1, 2, 3, 4,
# 5 and 8 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 4 5 8; do
    run_mpi_ok $n coll_nbc
done
