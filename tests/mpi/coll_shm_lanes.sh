#!/bin/sh
# coll_shm_lanes.c: persistent Barrier, Bcast, Reduce and Allreduce of 1,
# 4 and 16 KiB (in place and not) run in lanes of the communicator's
# shared-memory segment, in chunks of the lane's buffers, checked against a
# serial reference and against the transport message counters (none may
# move), and stay right when the lanes run out; on 2, 3, 5 and 8 ranks
# (whose lanes have 4, 4, 4 and 2 KiB buffers), with 512-byte buffers
# and 576-byte ones (long pipelines, a short last chunk); a 64 KiB
# Allreduce and Bcast, which two ranks read from each other in lanes (no
# message; with the reads off, a schedule: results alone); with every
# wait sleeping (HCMPI_SPIN=0), and with the lanes or the segments off
# (the same results by messages).  Persistent collectives above the lanes
# in wide lanes: 300 KB Allreduces 1,000 starts without a message, then
# with a Reduce, Allgathers (one of a derived type), a
# Reduce_scatter_block, an Alltoall and a Bcast active at once; with as
# many wide lanes as fit (HCMPI_COLL_SHM_WIDE_LANES=16) and 16 KiB chunks
# (long pipelines), and none.  Lanes given back: 48 cycles of three
# persistent collectives made, started and freed (ranks freeing in their
# own orders, odd ranks making the next before freeing the last), every
# byte checked, no message after each cycle's second start.  A
# persistent Alltoall of 40 KB blocks reads them from their senders (no
# message on 3 or more ranks).  Deep lanes: a Bcast and a Reduce of
# 2 ints with small Allreduces, an Alltoall, Allgathers (one of a derived
# type) and a Barrier, whose starts take the blocking forms' straight
# steps, 1,100 rotated
# Startalls beside blocking and non-blocking collectives (and, after the
# first 100, which send no message, point-to-point) on the communicator.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
# The two-rank reads that the runs below take by default where the
# processor profile has them (every profile but amd26, AMD family 26, and
# for the reductions amd-zen4):
# pinned on, so that every machine runs them; the runs that set one to 0
# take the segment instead.  Likewise at every size: amd-zen4's cached
# copies of large two-rank collectives and crowded reductions, off unless
# a run sets them.
export HCMPI_COLL_SHM_PAIR_READ_MIN=64k HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN=16k \
    HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN=16k HCMPI_COLL_SHM_ROOTED_READ_MIN=16k \
    HCMPI_COLL_SHM_PAIR_CACHED_MIN=0 HCMPI_COLL_SHM_CROWDED_REDUCE_CACHED_MIN=0
if [ "$MPI_TEST_LAUNCHER" != hcmpirun ] || [ -n "${HCMPI_TRANSPORTS:-}" ]; then
    for n in 1 2 3 5; do
        run_mpi_ok $n coll_shm_lanes plain
    done
    exit 0
fi
for n in 1 2 3 5 8; do
    run_mpi_ok $n coll_shm_lanes
done
HCMPI_COLL_SHM_LANE_BUF=512 run_mpi_ok 3 coll_shm_lanes
HCMPI_COLL_SHM_LANE_BUF=600 run_mpi_ok 2 coll_shm_lanes
HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN=0 run_mpi_ok 2 coll_shm_lanes
HCMPI_SPIN=0 run_mpi_ok 4 coll_shm_lanes
HCMPI_COLL_SHM_WIDE_LANES=16 run_mpi_ok 3 coll_shm_lanes
HCMPI_COLL_SHM_WIDE_LANES=16 run_mpi_ok 8 coll_shm_lanes
HCMPI_COLL_SHM_WIDE_LANES=16 HCMPI_COLL_SHM_CHUNK=16k HCMPI_SPIN=0 run_mpi_ok 5 coll_shm_lanes
HCMPI_COLL_SHM_LANE_MAX=0 HCMPI_COLL_SHM_WIDE_LANES=0 run_mpi_ok 3 coll_shm_lanes p2p
HCMPI_COLL_SHM=0 run_mpi_ok 3 coll_shm_lanes p2p
HCMPI_TRANSPORTS=tcp run_mpi_ok 3 coll_shm_lanes plain
# Reads refused on rank 1 alone (no CMA there): each start's read of the
# 64 KiB ones fails, and both ranks take the lane's pipeline behind it,
# at every start alike (results right, no message).
run_mpi_ok_no_cma_on_rank1 2 coll_shm_lanes
# On 4 ranks the persistent Alltoall's reads from and by rank 1 fail at
# every start: those blocks move as messages after the reads.
run_mpi_ok_no_cma_on_rank1 4 coll_shm_lanes
echo "coll_shm_lanes: all cases passed"
