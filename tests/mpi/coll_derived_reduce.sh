#!/bin/sh
# tests/mpi/coll_derived_reduce.c: predefined ops on derived datatypes in
# every reducing collective, against a serial reference.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 5; do
    run_mpi_ok $n coll_derived_reduce
done
