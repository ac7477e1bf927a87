#!/bin/sh
# tests/mpi/comm_split_dup.c on 1, 4 and 5 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 4 5; do
    run_mpi_ok $n comm_split_dup
done
