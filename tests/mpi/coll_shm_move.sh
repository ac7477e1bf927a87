#!/bin/sh
# coll_shm_move.c: Allgather(v), Alltoall(v) and Reduce_scatter(_block),
# blocking, I- and persistent forms, in the communicator's shared-memory
# segment, checked byte by byte and against the transport message counters
# (none may move), on 1 to 5 and 8 ranks, with 4 KiB slots (pipelines of many
# chunks), with every wait sleeping (HCMPI_SPIN=0: the segment's bell must
# wake them), and with the segments off (HCMPI_COLL_SHM=0: the same
# results by messages); blocks about the two-rank pair read's threshold;
# long runs of small Alltoallvs with ranks running ahead (vrun).
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
        run_mpi_ok $n coll_shm_move plain
    done
    exit 0
fi
for n in 1 2 3 4 5 8; do
    run_mpi_ok $n coll_shm_move
done
HCMPI_COLL_SHM_CHUNK=4096 run_mpi_ok 3 coll_shm_move
# A run of small blocking Alltoallvs with a late rank at each (the others'
# straight steps meet its op's path), I-forms and messages in flight, a
# derived type, blocks large between some pairs: 1 to 8 ranks, asleep.
for n in 1 2 3 5 8; do
    run_mpi_ok $n coll_shm_move vrun
done
HCMPI_SPIN=0 run_mpi_ok 3 coll_shm_move vrun
HCMPI_SPIN=0 run_mpi_ok 4 coll_shm_move
# Crowded ranks all on one CPU (their waits yield without looking first:
# every rank they wait for last ran on that CPU), yielding and asleep.
one_cpu_wrap=$(mktemp)
if one_cpu_wrapper "$one_cpu_wrap"; then
    MPI_TEST_WRAP=$one_cpu_wrap
    HCMPI_COLL_SHM_CPUS=1 run_mpi_ok 5 coll_shm_move
    HCMPI_COLL_SHM_CPUS=1 HCMPI_SPIN=0 run_mpi_ok 8 coll_shm_move
    MPI_TEST_WRAP=
fi
rm -f "$one_cpu_wrap"
HCMPI_COLL_SHM=0 run_mpi_ok 3 coll_shm_move p2p
# Allgathers above HCMPI_COLL_SHM_ALLGATHER_MAX (by default all that the
# segment takes) by messages: results alike.
HCMPI_COLL_SHM_ALLGATHER_MAX=64k run_mpi_ok 3 coll_shm_move plain
HCMPI_TRANSPORTS=tcp run_mpi_ok 3 coll_shm_move plain
# Blocks about HCMPI_COLL_SHM_PAIR_READ_MIN: on 2 ranks read from the
# other rank (with the threshold above and below the sizes, and off:
# the segment and the schedule), on more Alltoall's read too, the others
# the segment and the schedule.
for n in 1 2 3 5 8; do
    run_mpi_ok $n coll_shm_move pair
done
HCMPI_COLL_SHM_PAIR_READ_MIN=65537 run_mpi_ok 2 coll_shm_move pair
HCMPI_COLL_SHM_PAIR_READ_MIN=0 run_mpi_ok 2 coll_shm_move pair
# From HCMPI_COLL_SHM_PAIR_CACHED_MIN (amd-zen4's 1 MiB) two ranks read no
# more: 200000-byte blocks and up take the segment through the cache, the
# Alltoall's messages; the smaller are still read.
HCMPI_COLL_SHM_PAIR_CACHED_MIN=200000 run_mpi_ok 2 coll_shm_move pair
HCMPI_SPIN=0 run_mpi_ok 2 coll_shm_move pair
# More ranks: Alltoall blocks from HCMPI_COLL_SHM_ALLTOALL_READ_MIN (32 KiB)
# are read from the others (threshold above the smallest sizes, off: the
# schedule), with every wait asleep.
HCMPI_COLL_SHM_ALLTOALL_READ_MIN=65537 run_mpi_ok 3 coll_shm_move pair
HCMPI_COLL_SHM_ALLTOALL_READ_MIN=0 run_mpi_ok 4 coll_shm_move pair
HCMPI_SPIN=0 run_mpi_ok 3 coll_shm_move pair
# Alltoallv blocks above the segment's part are read by their receivers on
# more than two ranks (above), or messages with that off.
HCMPI_COLL_SHM_ALLTOALLV_READ=0 run_mpi_ok 4 coll_shm_move pair
HCMPI_COLL_SHM_ALLTOALLV_READ=0 run_mpi_ok 3 coll_shm_move
# Reads refused (no CMA) on rank 1 alone: every rank falls back alike; an
# Alltoallv's blocks that rank 1 fails to read follow as messages.
prog=$(mpi_prog_path coll_shm_move)
mpi_launcher_cmd
wrap=$(mktemp)
trap 'rm -f "$wrap"' EXIT
printf '#!/bin/sh\n[ "$PMI_RANK" != 1 ] || export HCMPI_SHM_CMA=0\nexec "$@"\n' >"$wrap"
chmod +x "$wrap"
for n in 2 3 5; do
    COLL_SHM_READS_REFUSED=1 MPI_TEST_TIMEOUT=180 run_mpi_ok_no_cma_on_rank1 $n coll_shm_move pair
done
# The same with no Alltoall read (which would turn reads off for the
# communicator first): every Alltoallv reads, rank 1's reads fail, and
# each block it could not read follows as a message from its sender.
for n in 3 5; do
    echo "+ hcmpirun -n $n (no CMA on rank 1, no Alltoall read) coll_shm_move pair"
    HCMPI_COLL_SHM_ALLTOALL_READ_MIN=0 COLL_SHM_READS_REFUSED=1 timeout -k 5 200 "$HCMPIRUN" \
        -n $n --timeout 180 "$wrap" "$prog" pair ||
        fail "pair on $n, no CMA on rank 1, no Alltoall read: failed"
done
echo "coll_shm_move: all cases passed"
