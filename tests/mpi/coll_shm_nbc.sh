#!/bin/sh
# coll_shm_nbc.c: the I-forms of Barrier, Bcast, Reduce and Allreduce run
# the shared-memory algorithms as schedule steps, several at once, behind
# and beside blocking and persistent collectives, checked against a serial
# reference and against the transport message counters; on 1, 2, 3 and 5
# ranks, with 4 KiB slots (long pipelines), with every wait sleeping
# (HCMPI_SPIN=0: the segment's bell must wake a sleeping I-form), and with
# the segments off (HCMPI_COLL_SHM=0: the same results by messages).
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
        run_mpi_ok $n coll_shm_nbc plain
    done
    exit 0
fi
for n in 1 2 3 5; do
    run_mpi_ok $n coll_shm_nbc
done
HCMPI_COLL_SHM_CHUNK=4096 run_mpi_ok 3 coll_shm_nbc
HCMPI_SPIN=0 run_mpi_ok 4 coll_shm_nbc
HCMPI_COLL_SHM=0 run_mpi_ok 3 coll_shm_nbc p2p
HCMPI_TRANSPORTS=tcp run_mpi_ok 3 coll_shm_nbc plain
# Ibcasts read from the root's buffer, the segment's pipeline behind them
# for a failed read: about the thresholds (defaults, lowered, off), from
# every root, some ranks' types strided; every wait asleep; reads refused
# on every rank, and on rank 1 alone (its reads fail: every rank takes the
# pipeline alike).
for n in 1 2 3 5 8; do
    run_mpi_ok $n coll_shm_nbc read-ibcast
done
HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN=4096 run_mpi_ok 2 coll_shm_nbc read-ibcast
HCMPI_COLL_SHM_BCAST_READ_MIN=16385 run_mpi_ok 3 coll_shm_nbc read-ibcast
HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN=0 run_mpi_ok 2 coll_shm_nbc read-ibcast
HCMPI_COLL_SHM_BCAST_READ_MIN=0 run_mpi_ok 3 coll_shm_nbc read-ibcast
HCMPI_SPIN=0 run_mpi_ok 2 coll_shm_nbc read-ibcast
HCMPI_SPIN=0 run_mpi_ok 3 coll_shm_nbc read-ibcast
HCMPI_SHM_CMA=0 run_mpi_ok 3 coll_shm_nbc read-ibcast
prog=$(mpi_prog_path coll_shm_nbc)
mpi_launcher_cmd
out=$(mktemp)
node_wrap=$(mktemp)
trap 'rm -f "$out" "$node_wrap"' EXIT
printf '#!/bin/sh\n[ "$PMI_RANK" != 1 ] || export HCMPI_SHM_CMA=0\nexec "$@"\n' >"$node_wrap"
chmod +x "$node_wrap"
for n in 2 3; do
    echo "+ hcmpirun -n $n (no CMA on rank 1) coll_shm_nbc read-ibcast"
    timeout -k 5 150 "$HCMPIRUN" -n $n --timeout 120 "$node_wrap" "$prog" read-ibcast ||
        fail "read-ibcast on $n, no CMA on rank 1: failed"
done
# A rank killed in small Ibcasts, and in large ones read from the root.
for kind in "" large; do
    echo "+ hcmpirun --no-kill-on-failure -n 4 coll_shm_nbc kill $kind"
    timeout -k 5 90 "$HCMPIRUN" --no-kill-on-failure -n 4 --timeout 60 "$prog" kill $kind >"$out" 2>&1
    rc=$?
    cat "$out"
    [ $rc -ne 124 ] || fail "kill $kind: job hung until the timeout"
    [ $rc -ne 0 ] || fail "kill $kind: job exited 0 although rank 1 died"
    grep -q "FAIL rank" "$out" && fail "kill $kind: a check failed"
    passed=$(grep -c "PASS kill" "$out")
    [ "$passed" -eq 3 ] || fail "kill $kind: $passed of 3 survivors passed"
done
echo "coll_shm_nbc: all cases passed"
