#!/bin/sh
# tests/mpi/coll_full.c: every collective, blocking and non-blocking, on 1,
# 2, 3, 4, 5 and 8 ranks, messages above 1 MiB included on every size (8
# ranks on 2 cores take a few seconds).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 4 5 8; do
    run_mpi_ok $n coll_full big
done
