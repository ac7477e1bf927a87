#!/bin/sh
# tests/mpi/coll_extra.c: > 1 MiB on up to 8 ranks, large uneven v-forms,
# MPI_IN_PLACE v-forms, derived types, pair/bool/complex types, REPLACE and
# NO_OP, MPI_BOTTOM in collectives.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 5 8; do
    run_mpi_ok $n coll_extra
done
