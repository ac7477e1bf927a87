#!/bin/sh
# tests/mpi/rma_errors.c: one-sided bad input gets MPI_ERR_RMA_RANGE,
# MPI_ERR_RMA_SYNC, MPI_ERR_WIN, ... through the window's handler; window
# attributes, keyvals, name, info and group.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3; do
    run_mpi_ok $n rma_errors
done
