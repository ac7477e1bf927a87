#!/bin/sh
# tests/mpi/large_count_forms.c: every _c point-to-point and collective
# call (blocking, I- and _init forms, neighbourhood ones on a ring) gives
# what its int form gives, byte for byte, on 1 to 4 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 4; do
    run_mpi_ok $n large_count_forms
done
