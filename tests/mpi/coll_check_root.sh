#!/bin/sh
# tests/mpi/coll_check_root.c: HCMPI_CHECK_COLL=1 turns mismatched roots of
# rooted collectives into MPI_ERR_ROOT (data sizes of Bcast/Reduce into
# MPI_ERR_TRUNCATE) on every rank; without it the matching calls still run.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "HCMPI_CHECK_COLL is hcmpi's"
for n in 1 2 3 4; do
    HCMPI_CHECK_COLL=1 run_mpi_ok $n coll_check_root
done
run_mpi_ok 3 coll_check_root
