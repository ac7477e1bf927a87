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
# Two ranks the shm transport judged far apart (HCMPI_SHM_PLACEMENT=far):
# the pair's Allreduces, persistent and blocking, ask for their next box
# back (PREFETCHW); the collectives log that they read the verdict, and
# forced near they do not.  Only where the shm transport runs
# (tests/tcp/mpi_suite_tcp.sh runs this script with every peer over tcp).
case ",${HCMPI_TRANSPORTS:-shm}," in
*,shm,* | *,all,*)
    log=$(mktemp)
    for placement in far near; do
        HCMPI_SHM_PLACEMENT=$placement HCMPI_LOG=debug \
            run_mpi 2 coll_persistent 300 >"$log" 2>&1 ||
            { cat "$log"; rm -f "$log"; fail "placed $placement: job failed"; }
        apart=$(grep -c 'collectives of 2 ranks far apart:' "$log")
        case $placement in
        far) [ "$apart" -ge 2 ] ;;
        near) [ "$apart" = 0 ] ;;
        esac || { cat "$log"; rm -f "$log"; fail "placed $placement: $apart far pairs logged"; }
    done
    rm -f "$log"
    ;;
esac
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
