#!/bin/sh
# tests/mpi/rma_pscw_groups.c: post/start/complete/wait with overlapping
# access and exposure groups that change every epoch, on 1, 3 and 5 ranks;
# each window kind (shared mapping: post and complete as counters in it;
# MPI_Win_create: as messages), with every wait asleep at once
# (HCMPI_SPIN=0), and on a node with fewer cores than ranks.  Where shm
# joins the ranks, the shared windows' epochs send no message at all.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for kind in allocate shared create; do
    quiet=
    case $kind:${HCMPI_TRANSPORTS:-all} in
    create:*) ;;
    *:all | *:*shm*) quiet=quiet ;;
    esac
    for n in 1 3 5; do
        run_mpi_ok $n rma_pscw_groups $kind $quiet
    done
    HCMPI_SPIN=0 run_mpi_ok 3 rma_pscw_groups $kind $quiet
    HCMPI_OVERSUBSCRIBED=1 run_mpi_ok 5 rma_pscw_groups $kind $quiet
done
echo "rma_pscw_groups: all cases passed"
