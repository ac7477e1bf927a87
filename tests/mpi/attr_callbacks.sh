#!/bin/sh
# tests/mpi/attr_callbacks.c: copy and delete callbacks of communicator and
# datatype attributes, their order and counts at dup, free, delete and
# MPI_Finalize (MPI_COMM_SELF first, newest first), keyvals freed while in
# use, MPI_LASTUSEDCODE; on 1 and 3 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 1 attr_callbacks
run_mpi_ok 3 attr_callbacks
