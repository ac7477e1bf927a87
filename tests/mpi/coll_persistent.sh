#!/bin/sh
# tests/mpi/coll_persistent.c: every MPI-4 persistent collective started
# 1,000 times against a serial reference, on 1, 2, 3 and 5 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 5; do
    run_mpi_ok $n coll_persistent
done
