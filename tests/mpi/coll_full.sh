#!/bin/sh
# tests/mpi/coll_full.c: every collective, blocking and non-blocking, on 1,
# 2, 3, 4, 5 and 8 ranks; messages above 1 MiB on up to 4 ranks only (8
# ranks on 2 cores is slow).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 4; do
    run_mpi_ok $n coll_full big
done
for n in 5 8; do
    run_mpi_ok $n coll_full
done
