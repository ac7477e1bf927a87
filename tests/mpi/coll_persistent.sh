#!/bin/sh
# tests/mpi/coll_persistent.c: every MPI-4 persistent collective started
# 1,000 times against a serial reference, on 1, 2, 3 and 5 ranks (5: Bruck
# alltoall), 200-300 times on 8 ranks, asleep and without segments; then
# with the HCMPI_COLL_* thresholds at their lowest (Bruck off) on 4 and 5
# ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 5; do
    run_mpi_ok $n coll_persistent
done
# The small ones' starts run the blocking forms' straight steps in their
# lanes (most of them deep): on 8 ranks (crowded on small machines), with
# every wait asleep, and with the segments off (schedules alone).
run_mpi_ok 8 coll_persistent 200
HCMPI_SPIN=0 run_mpi_ok 3 coll_persistent 300
HCMPI_COLL_SHM=0 run_mpi_ok 2 coll_persistent 300
# Every threshold at its lowest: the large-message algorithms (scatter-ring
# bcast, Rabenseifner and ring allreduce, ring allgather, pairwise
# alltoall, binomial gather/scatter) replayed on the same small cases.
(
    HCMPI_COLL_BCAST_LARGE=0 HCMPI_COLL_ALLREDUCE_LARGE=0
    HCMPI_COLL_ALLGATHER_LARGE=0 HCMPI_COLL_ALLTOALL_LINEAR=0
    HCMPI_COLL_GATHER_LINEAR_MAX=1 HCMPI_COLL_ALLTOALL_BRUCK=0
    export HCMPI_COLL_BCAST_LARGE HCMPI_COLL_ALLREDUCE_LARGE \
        HCMPI_COLL_ALLGATHER_LARGE HCMPI_COLL_ALLTOALL_LINEAR \
        HCMPI_COLL_GATHER_LINEAR_MAX HCMPI_COLL_ALLTOALL_BRUCK
    run_mpi_ok 4 coll_persistent 200
    run_mpi_ok 5 coll_persistent 200
) || exit $?
