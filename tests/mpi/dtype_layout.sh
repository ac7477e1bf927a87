#!/bin/sh
# tests/mpi/dtype_layout.c (every datatype constructor against a hand-computed
# layout, through Pack/Unpack and Sendrecv) on 1, 2, 3, 4, 5 and 8 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 4 5 8; do
    run_mpi_ok $n dtype_layout
done
