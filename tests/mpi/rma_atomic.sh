#!/bin/sh
# tests/mpi/rma_atomic.c: 8 ranks accumulate and fetch-and-add on one word
# of rank 0's window at once; totals exact, every fetched value distinct;
# compare-and-swap as a lock keeps a get/put counter exact.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 8 rma_atomic
run_mpi_ok 3 rma_atomic
