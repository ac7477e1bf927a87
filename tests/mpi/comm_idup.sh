#!/bin/sh
# tests/mpi/comm_idup.c: MPI_Comm_idup does not block (start, then send to
# a rank that receives before its own idup), several outstanding at once.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 5; do
    run_mpi_ok $n comm_idup
done
