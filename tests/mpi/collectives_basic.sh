#!/bin/sh
# tests/mpi/collectives_basic.c on every size from 1 to 8 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 4 5 6 7 8; do
    run_mpi_ok $n collectives_basic
done
