#!/bin/sh
# tests/mpi/dtype_misc.c (datatype queries, external32, partial receives,
# MPI_BOTTOM, lifetime, bad input) on 1, 2 and 3 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3; do
    run_mpi_ok $n dtype_misc
done
