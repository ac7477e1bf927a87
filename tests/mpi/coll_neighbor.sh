#!/bin/sh
# tests/mpi/coll_neighbor.c: the 15 neighbourhood collectives (blocking,
# I-form, persistent started 100 times) on Cartesian grids, a graph and a
# distributed graph, on 1, 2, 4 and 6 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 4 6; do
    run_mpi_ok $n coll_neighbor
done
