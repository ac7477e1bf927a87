#!/bin/sh
# tests/mpi/rma_win_segment.c: MPI_Win_allocate, MPI_Win_create and
# MPI_Win_free make no shared-memory collective segment for the window's
# own communicator; lock_all and fence epochs on such windows move the
# right bytes.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 2 3; do
    run_mpi_ok $n rma_win_segment
done
