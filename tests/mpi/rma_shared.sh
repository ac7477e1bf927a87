#!/bin/sh
# tests/mpi/rma_shared.c: a shared window used with plain loads and
# stores and MPI_Win_sync beside one-sided operations on it.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 4; do
    run_mpi_ok $n rma_shared
done
