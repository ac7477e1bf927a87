#!/bin/sh
# tests/mpi/rma_ops.c: every one-sided operation under every
# synchronisation mode, contiguous and derived datatypes, self and remote
# targets, bytes checked at both ends; every predefined accumulate op.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 4; do
    run_mpi_ok $n rma_ops
done
