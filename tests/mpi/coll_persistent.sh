#!/bin/sh
# tests/mpi/coll_persistent.c: every MPI-4 persistent collective started
# 1,000 times against a serial reference, on 1, 2, 3 and 5 ranks (5: Bruck
# alltoall); then with the HCMPI_COLL_* thresholds at their lowest (Bruck
# off) on 4 and 5 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 5; do
    run_mpi_ok $n coll_persistent
done
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
