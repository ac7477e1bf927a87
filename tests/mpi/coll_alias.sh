#!/bin/sh
# tests/mpi/coll_alias.c: overlapping send and receive buffers of gather,
# scatter, allgather and alltoall are MPI_ERR_BUFFER before data moves.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 4; do
    run_mpi_ok $n coll_alias
done
