#!/bin/sh
# tests/mpi/type_f90.c: MPI_Type_create_f90_integer / _real / _complex
# (kinds, repeated handles, envelopes, refused frees, bad input) and the
# types in a ring exchange, reductions and a derived type.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 3; do
    run_mpi_ok $n type_f90
done
