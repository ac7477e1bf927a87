#!/bin/sh
# tests/mpi/rma_dynamic.c: regions attached to and detached from a
# dynamic window while the others access it.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 4; do
    run_mpi_ok $n rma_dynamic
done
