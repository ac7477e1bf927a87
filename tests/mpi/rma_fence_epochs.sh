#!/bin/sh
# rma_fence_epochs.c: fence epochs of changing length, Get and Put of 64 KiB
# blocks from rank 0 to targets that only wait in the fences, checked byte
# by byte.  A rank with a core of its own polls through a fence as long as
# the last one took (progress.c: recurring waits) and sleeps past that; the
# epochs change length so both happen, and an epoch longer than that limit
# and one where a target computes while rank 0 waits come in between.
# Run with the window in the node's shared mapping and as MPI_Win_create
# memory, on 2 ranks (a core each), on 3 (more ranks than the 2 cores
# CI machines have, or forced: HCMPI_OVERSUBSCRIBED=1), and with every
# wait asleep at once (HCMPI_SPIN=0); each with fences and with
# post/start/complete/wait (MPI_Win_start and MPI_Win_wait recur alike).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for kind in allocate create; do
    for sync in fence pscw; do
        run_mpi_ok 2 rma_fence_epochs $kind $sync
        HCMPI_OVERSUBSCRIBED=1 run_mpi_ok 3 rma_fence_epochs $kind $sync
        HCMPI_SPIN=0 run_mpi_ok 2 rma_fence_epochs $kind $sync
    done
done
echo "rma_fence_epochs: all cases passed"
