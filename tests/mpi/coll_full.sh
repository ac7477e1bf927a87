#!/bin/sh
# tests/mpi/coll_full.c: every collective, blocking and non-blocking, on 1,
# 2, 3, 4, 5 and 8 ranks, messages above 1 MiB included on every size (8
# ranks on 2 cores take a few seconds).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 4 5 8; do
    run_mpi_ok $n coll_full big
done
# The linear gather's root in both orders at every size: receives posted
# before its own block's copy up to 4 MiB blocks (the 1.2 MB ones
# included), and its copy first for every size (the default splits by
# HCMPI_COLL_GATHER_RECV_FIRST_MAX).
for first_max in 4m 0; do
    for n in 2 3; do
        HCMPI_COLL_GATHER_RECV_FIRST_MAX=$first_max run_mpi_ok $n coll_full big
    done
done
