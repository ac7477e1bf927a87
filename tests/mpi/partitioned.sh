#!/bin/sh
# tests/mpi/partitioned.c: MPI_Psend_init / MPI_Precv_init rounds on a ring
# (bytes, statuses, restarts), partitions that leave as soon as they are
# ready (seen by MPI_Parrived in ready order), different partition counts
# on the two sides, non-contiguous types, Pready_range / _list, matching
# in init order, MPI_PROC_NULL, truncation, and bad input's classes.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 4 8; do
    run_mpi_ok $n partitioned
done
