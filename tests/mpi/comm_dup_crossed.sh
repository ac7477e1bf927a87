#!/bin/sh
# tests/mpi/comm_dup_crossed.c: dups and idups of different communicators
# started in crossed orders (one thread's dup waits for a peer that waits
# for the other thread's dup) complete, on 2, 3 and 4 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 2 3 4; do
    run_mpi_ok $n comm_dup_crossed
done
