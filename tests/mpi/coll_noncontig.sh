#!/bin/sh
# tests/mpi/coll_noncontig.c: blocking collectives on strided datatypes.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 4; do
    run_mpi_ok $n coll_noncontig
done
