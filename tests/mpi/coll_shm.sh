#!/bin/sh
# coll_shm.c: the shared-memory Barrier, Bcast, Reduce and Allreduce
# (Allgather, Alltoall(v) and Reduce_scatter: coll_shm_move.sh) against a
# serial reference on 1, 2, 3, 5 and 8 ranks, once more with 4 KiB slots
# (every large message a long pipeline); that they really run through a
# communicator's segment (the debug log names one per communicator, only
# where every member shares the node), and that a named one
# (HCMPI_SHM_MEMFD=0) is gone after a job that ends well and after one
# whose rank was SIGKILLed; that the hang watchdog takes waits that sleep
# in them for progress; and that a rank killed in each of them (and in
# Allgather, Alltoall(v) and Reduce_scatter_block) fails the survivors
# with MPIX_ERR_PROC_FAILED instead of hanging (a large Bcast on 2 ranks
# too, and sliced Reduce and Allreduce, a large Allgather, and on 2 ranks
# a large Allgather and Alltoall read from the other rank); that large Reduces and Allreduces
# (1 to 8 ranks, about the slot, up to 4 MiB) are right and send no
# transport message; that large Bcasts (1 to 5 ranks, 4 KiB to 1 MiB, about the
# chunks) take the segment's pipeline and send no transport message; and
# that Bcasts read straight from the root's buffer (1, 2, 3, 5, 8 ranks,
# every root, about the thresholds, a strided type) are right and send no
# transport message, and fail the survivors of a rank killed in them (and
# in their persistent forms, which read in lanes);
# that runs of small Bcasts and Reduces longer than the segment's ring of
# small buffers (every root, 1 to 513 bytes, rings of 1, 2 and default
# depth, asleep) are right, send no transport message, stay in order with
# the other collectives, and fail the survivors of a rank killed in them;
# that small Bcasts, Reduces, Allreduces and Gather(v)s mixed with each
# other, with I-forms in flight, persistent ones (a Reduce and a Gather
# too), messages, user ops and strided types are right (mixed), and on 2 ranks fail the survivor of a rank killed in
# them.
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
for n in 1 2 3 5 8; do
    run_mpi_ok $n coll_shm
done
HCMPI_COLL_SHM_CHUNK=4096 run_mpi_ok 3 coll_shm
# Each processor profile's copies into the segment (amd: non-temporal
# stores from 16 KiB; intel: cached), whichever machine runs the tests.
for profile in amd intel; do
    HCMPI_CPU_PROFILE=$profile run_mpi_ok 2 coll_shm
    HCMPI_CPU_PROFILE=$profile run_mpi_ok 3 coll_shm
done
# Two ranks whose large collectives copy through the cache where amd
# streams (amd-zen4's HCMPI_COLL_SHM_PAIR_CACHED_MIN, here from 64 KiB).
HCMPI_CPU_PROFILE=amd HCMPI_COLL_SHM_PAIR_CACHED_MIN=64k run_mpi_ok 2 coll_shm
# Peers reached over tcp on one node: schedules, no hierarchy (whose node
# communicator would be world again, and again: context ids ran out).
HCMPI_TRANSPORTS=tcp run_mpi_ok 3 coll_shm
# Waits that sleep in shared-memory collectives are progress, not a hang,
# for the watchdog (no request completes there).
HCMPI_HANG_TIMEOUT=1 HCMPI_SPIN=0 run_mpi_ok 3 coll_shm soak 3
# Small Bcasts, Reduces and Allreduces mixed with I-forms in flight, a
# persistent Allreduce, messages, a user op and a strided type: on 1 to 8
# ranks, asleep, on rings of 1 and 2 buffers.
for n in 1 2 3 5; do
    run_mpi_ok $n coll_shm mixed
done
HCMPI_SPIN=0 run_mpi_ok 2 coll_shm mixed
HCMPI_SPIN=0 run_mpi_ok 8 coll_shm mixed 2000
# Two ranks placed far: their boxed Allreduces, blocking and persistent,
# ask for their next box back (PREFETCHW) after each call.
HCMPI_SHM_PLACEMENT=far run_mpi_ok 2 coll_shm mixed
# Asleep, both halves of the bell's fence: on 2 ranks (not crowded) light
# publications and the sleepers' membarrier above, full fences here.
HCMPI_SHM_LIGHT_FENCE=0 HCMPI_SPIN=0 run_mpi_ok 2 coll_shm mixed
# The ranks' settings differ: the segment carries rank 0's choice, every
# sleeper follows it, and only a rank whose own setting allows it
# publishes light (a light flag beside a sleeper without membarrier could
# lose its wake-up: a hang here, every wait asleep).
fence_wrap=$(mktemp)
fence_log=$(mktemp)
for first in 1 0; do
    printf '#!/bin/sh\n[ "$PMI_RANK" = 0 ] && f=%s || f=%s\nHCMPI_SHM_LIGHT_FENCE=$f exec "$@"\n' \
        "$first" "$((1 - first))" >"$fence_wrap"
    chmod +x "$fence_wrap"
    HCMPI_SPIN=0 HCMPI_LOG=debug MPI_TEST_WRAP=$fence_wrap run_mpi 2 coll_shm mixed \
        >"$fence_log" 2>&1 || { cat "$fence_log"; fail "mixed light fences: job failed"; }
    [ "$first" = 1 ] && want='membarrier light
membarrier fenced' || want='fence only fenced
fence only fenced'
    got=$(sed -n 's/.*collectives of 2 ranks, light fences: sleepers \(.*\), flags \([a-z]*\)$/\1 \2/p' \
        "$fence_log" | sort)
    [ "$got" = "$(echo "$want" | sort)" ] ||
        { cat "$fence_log"; fail "mixed light fences (rank 0: $first): got '$got', want '$want'"; }
done
echo "mixed light fences: both ranks take rank 0's choice"
# A crowded node (4 ranks, 2 processors as HCMPI_COLL_SHM_CPUS counts them)
# keeps full fences even for the halves of 2 ranks, which alone would not
# be crowded: there ranks sleep often and each membarrier stops every core.
for cpus in 2 4; do
    HCMPI_COLL_SHM_CPUS=$cpus HCMPI_LOG=debug run_mpi 4 coll_shm >"$fence_log" 2>&1 ||
        { cat "$fence_log"; fail "light fences on $cpus processors: job failed"; }
    [ "$cpus" = 2 ] && want="fence only, flags fenced" || want="membarrier, flags light"
    n2=$(grep -c "collectives of 2 ranks, light fences: sleepers $want\$" "$fence_log")
    other=$(grep 'collectives of [0-9]* ranks, light fences' "$fence_log" | grep -vc "sleepers $want\$")
    [ "$n2" -gt 0 ] && [ "$other" -eq 0 ] ||
        { cat "$fence_log"; fail "light fences on $cpus processors: $n2 halves with '$want', $other otherwise"; }
done
rm -f "$fence_wrap" "$fence_log"
echo "light fences: a crowded node's small communicators fence in full"
HCMPI_COLL_SHM_DEPTH=1 run_mpi_ok 2 coll_shm mixed
HCMPI_COLL_SHM_DEPTH=2 run_mpi_ok 3 coll_shm mixed
# Reduces and Gathers of up to 56 bytes post in their senders' post lines
# where the node is not crowded: 3 and 4 ranks counting 64 CPUs too (on a
# ring of 2, and asleep), whatever this machine has.
HCMPI_COLL_SHM_CPUS=64 run_mpi_ok 4 coll_shm mixed
HCMPI_COLL_SHM_CPUS=64 HCMPI_COLL_SHM_DEPTH=2 run_mpi_ok 3 coll_shm mixed
HCMPI_COLL_SHM_CPUS=64 HCMPI_SPIN=0 run_mpi_ok 3 coll_shm mixed 2000
# A crowded node's blocking waits that sleep after one yield where no rank
# they wait for last ran on their CPU (HCMPI_COLL_SHM_CROWDED_YIELDS), and
# with that bound off: every collective's bytes, large blocks included.
HCMPI_COLL_SHM_CPUS=2 HCMPI_COLL_SHM_CROWDED_YIELDS=1 run_mpi_ok 4 coll_shm
HCMPI_COLL_SHM_CPUS=2 HCMPI_COLL_SHM_CROWDED_YIELDS=0 run_mpi_ok 4 coll_shm mixed
# A crowded node's Reduces and Allreduces copying their inputs cached
# (amd-zen4's HCMPI_COLL_SHM_CROWDED_REDUCE_CACHED_MIN) where amd streams.
HCMPI_CPU_PROFILE=amd HCMPI_COLL_SHM_CPUS=2 \
    HCMPI_COLL_SHM_CROWDED_REDUCE_CACHED_MIN=16k run_mpi_ok 4 coll_shm

[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || { echo "coll_shm: the rest needs hcmpirun"; exit 0; }
prog=$(mpi_prog_path coll_shm)
mpi_launcher_cmd
out=$(mktemp)
node_wrap=$(mktemp)
trap 'rm -f "$out" "$node_wrap"' EXIT

# Named segments: the debug log gives each one's name.
named_segments() {
    sed -n 's|^hcmpi\[[0-9]*\] debug shm: segment \(/hcmpi-[0-9a-f-]*\):.*collectives of.*|\1|p' "$out"
}
check_gone() { # WHAT
    segs=$(named_segments)
    [ -n "$segs" ] || { cat "$out"; fail "$1: no collective segment was made"; }
    for s in $segs; do
        [ ! -e "/dev/shm$s" ] || fail "$1: /dev/shm$s left behind"
    done
    echo "$1: $(echo "$segs" | wc -l) named collective segments, all gone"
}
HCMPI_SHM_MEMFD=0 HCMPI_LOG=debug timeout -k 5 120 "$HCMPIRUN" -n 4 --timeout 90 \
    "$prog" >"$out" 2>&1 || { cat "$out"; fail "named segments: job failed"; }
# world, its dup, the two halves of the split and the node communicator
# (all of world here): one segment each.
n=$(named_segments | wc -l)
[ "$n" -eq 5 ] || { cat "$out"; fail "named segments: $n made, want 5"; }
check_gone "named segments, job ended well"

# Fake nodes of two ranks (HCMPI_NODE_ID from the rank): world and its dup
# span them and run hierarchically, over node communicators with segments
# of their own and a communicator of the node leaders; the even/odd split
# has one rank per node and keeps the schedules; MPI_COMM_TYPE_SHARED gives
# each node a segment too.
printf '#!/bin/sh\nHCMPI_NODE_ID=coll-shm-node-$((PMI_RANK / 2)) exec "$@"\n' >"$node_wrap"
chmod +x "$node_wrap"
HCMPI_SHM_MEMFD=0 HCMPI_LOG=debug timeout -k 5 120 "$HCMPIRUN" -n 4 --timeout 90 \
    "$node_wrap" "$prog" >"$out" 2>&1 || { cat "$out"; fail "two nodes: job failed"; }
n=$(grep -c 'debug shm: segment .*collectives of 2 ranks' "$out")
all=$(named_segments | wc -l)
[ "$n" -eq 6 ] && [ "$all" -eq 6 ] ||
    { cat "$out"; fail "two nodes: $all collective segments ($n of 2 ranks), want 6 of 2"; }
check_gone "two nodes"
for n in 3 5 6; do # nodes of 2 and 1, of 2, 2 and 1, and three of 2
    echo "+ hcmpirun -n $n (nodes of 2) coll_shm"
    timeout -k 5 150 "$HCMPIRUN" -n $n --timeout 120 "$node_wrap" "$prog" ||
        fail "nodes of 2: coll_shm on $n ranks failed"
done
for kind in barrier bcast bcast-root reduce allreduce; do
    echo "+ hcmpirun --no-kill-on-failure -n 4 (two nodes) coll_shm kill $kind"
    timeout -k 5 90 "$HCMPIRUN" --no-kill-on-failure -n 4 --timeout 60 \
        "$node_wrap" "$prog" kill $kind >"$out" 2>&1
    rc=$?
    cat "$out"
    [ $rc -ne 124 ] || fail "two nodes, kill $kind: job hung until the timeout"
    grep -q "FAIL rank" "$out" && fail "two nodes, kill $kind: a check failed"
    passed=$(grep -c "PASS kill $kind" "$out")
    [ "$passed" -eq 3 ] || fail "two nodes, kill $kind: $passed of 3 survivors passed"
done

kill_case() { # RANKS KIND (each rank started through $kill_wrap where set)
    echo "+ hcmpirun --no-kill-on-failure -n $1 $kill_wrap coll_shm kill $2"
    HCMPI_SHM_MEMFD=0 HCMPI_LOG=debug timeout -k 5 90 "$HCMPIRUN" --no-kill-on-failure \
        -n "$1" --timeout 60 $kill_wrap "$prog" kill "$2" >"$out" 2>&1
    rc=$?
    grep -v ' debug ' "$out"
    [ $rc -ne 124 ] || fail "kill $2 on $1: job hung until the timeout"
    [ $rc -ne 0 ] || fail "kill $2 on $1: job exited 0 although rank 1 died"
    grep -q "FAIL rank" "$out" && fail "kill $2 on $1: a check failed"
    passed=$(grep -c "PASS kill $2" "$out")
    [ "$passed" -eq $(($1 - 1)) ] || fail "kill $2 on $1: $passed of $(($1 - 1)) survivors passed"
    check_gone "kill $2 on $1"
}
for kind in barrier bcast bcast-root bcast-large bcast-large-root reduce allreduce \
    reduce-large allreduce-large allgather allgather-large alltoall alltoall-large alltoallv \
    reduce_scatter_block allgatherv reduce_scatter; do
    kill_case 4 $kind
done
# Gather(v) and Scatter(v) in the segment (the victim a sender or the root).
for kind in gather gather-root scatter scatter-root gatherv gatherv-root scatterv \
    scatterv-root; do
    kill_case 4 $kind
done
kill_case 2 gather
kill_case 3 scatter-root
kill_case 3 gatherv
kill_case 2 scatterv-root
# Reduce and Gather(v) of 8-16 bytes in the post lines (not crowded: 2
# ranks, and 3 counting 64 CPUs), the victim a sender or the root.
for kind in reduce reduce-root gather-root gatherv gatherv-root; do
    kill_case 2 $kind
done
for kind in reduce reduce-root gather gather-root gatherv gatherv-root; do
    HCMPI_COLL_SHM_CPUS=64 kill_case 3 $kind
done
# Blocks of 16 KiB in the segment (a gather's read in place by the root):
# the victim a sender whose block the root reads (or a receiver), or the
# root.
for kind in gather-16k gather-16k-root scatter-16k scatter-16k-root; do
    kill_case 4 $kind
done
kill_case 2 gather-16k
HCMPI_SPIN=0 kill_case 2 scatter-16k-root
# Gather and Scatter of 1 KiB a rank through the large buffers (the
# segment counting 64 CPUs: not crowded), the victim a sender, a receiver
# or the root (2 ranks below).
for kind in gather-1k gather-1k-root scatter-1k scatter-1k-root; do
    HCMPI_COLL_SHM_CPUS=64 kill_case 4 $kind
done
# The same on a crowded node (the segment counting 2 CPUs): spans of two
# small buffers, spinning and asleep.
for kind in gather-1k gather-1k-root scatter-1k scatter-1k-root; do
    HCMPI_COLL_SHM_CPUS=2 kill_case 4 $kind
done
HCMPI_COLL_SHM_CPUS=2 HCMPI_SPIN=0 kill_case 4 gather-1k
HCMPI_COLL_SHM_CPUS=2 HCMPI_SPIN=0 kill_case 4 scatter-1k-root
# Their v-forms: the medium buffers where crowded, the large ones not.
for kind in gatherv-1k gatherv-1k-root scatterv-1k scatterv-1k-root; do
    HCMPI_COLL_SHM_CPUS=2 kill_case 4 $kind
done
HCMPI_COLL_SHM_CPUS=2 HCMPI_SPIN=0 kill_case 4 gatherv-1k
HCMPI_COLL_SHM_CPUS=64 kill_case 4 scatterv-1k-root
# A rank caught late in the world segment's vote at MPI_Init by the
# victim's death (the others completed it and use the segment) keeps the
# segment and fails as they do: on the schedules a Gatherv's sender went
# on succeeding, its eager sends taken by a root that waited in the segment.
kill_wrap=$(mktemp)
printf '#!/bin/sh\n[ "$PMI_RANK" != 2 ] || export HCMPI_TEST_SHMCOLL_VOTE_LATE=1\nexec "$@"\n' \
    >"$kill_wrap"
chmod +x "$kill_wrap"
for kind in gatherv gatherv-1k; do
    HCMPI_COLL_SHM_CPUS=2 kill_case 4 $kind
done
kill_case 3 gather
rm -f "$kill_wrap"
kill_wrap=
# Large bcasts are read from the root's buffer by default (above; on a
# crowded node only where HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN lets them,
# as here); the segment's pipeline when that is off.
HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN=1 kill_case 4 bcast-large
HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN=1 kill_case 4 bcast-large-root
HCMPI_COLL_SHM_BCAST_READ_MIN=0 kill_case 4 bcast-large
HCMPI_COLL_SHM_BCAST_READ_MIN=0 kill_case 4 bcast-large-root
# Large Alltoall blocks are read from the others there by default
# (HCMPI_COLL_SHM_ALLTOALL_READ_MIN); the schedule's messages without.
HCMPI_COLL_SHM_ALLTOALL_READ_MIN=0 kill_case 4 alltoall-large
# A waiter that sleeps after one yield still sees the loss.
HCMPI_COLL_SHM_CPUS=2 HCMPI_COLL_SHM_CROWDED_YIELDS=1 kill_case 4 alltoall-large
# A large Reduce combined whole by its root (more ranks than CPUs) and
# slice by slice.
HCMPI_COLL_SHM_CPUS=1 kill_case 4 reduce-large
HCMPI_COLL_SHM_CPUS=64 kill_case 4 reduce-large
# Large Alltoallv blocks likewise (each receiver reads its own, with
# HCMPI_COLL_SHM_ALLTOALLV_READ), and as messages without; on 3 ranks the
# victim's readers and the ranks it reads from both fail.
kill_case 4 alltoallv-large
kill_case 3 alltoallv-large
HCMPI_COLL_SHM_ALLTOALLV_READ=0 kill_case 4 alltoallv-large
kill_case 2 allreduce-large
kill_case 2 allreduce-init-large
# On 4 ranks the persistent Allreduce runs the segment's pipeline in a
# wide lane of its own.
kill_case 4 allreduce-init-large
kill_case 2 bcast-init-large
kill_case 4 bcast-init-large
# A wide lane given back (two persistent Allreduces made and freed before
# this one), and a persistent Alltoall that reads its blocks.
kill_case 4 allreduce-init-reused
kill_case 4 alltoall-init-large
# Persistent collectives of a few bytes in deep lanes: the root of a
# Bcast and a Reduce's other ranks run ahead there.
kill_case 4 bcast-init-small
kill_case 4 reduce-init-small
kill_case 2 bcast-init-small
HCMPI_SPIN=0 kill_case 8 reduce-init-small
kill_case 2 allreduce-init-small
kill_case 4 allreduce-init-small
HCMPI_SPIN=0 kill_case 3 allreduce-init-small
kill_case 2 barrier-init
kill_case 5 barrier-init
# Two ranks: large Allgather and Alltoall blocks are read straight from
# the other rank (HCMPI_COLL_SHM_PAIR_READ_MIN).
kill_case 2 allgather-large
kill_case 2 alltoall-large
# Two ranks, small calls: the straight steps of a Bcast, Reduce,
# Allreduce, Allgather(v), Alltoall and Reduce_scatter(_block) whose turn has
# come (a Reduce's other rank and a Bcast's root run ahead within the
# ring), spinning and asleep.
for kind in bcast bcast-root reduce reduce-root allreduce allgather alltoall \
    reduce_scatter_block allgatherv reduce_scatter; do
    kill_case 2 $kind
    HCMPI_SPIN=0 kill_case 2 $kind
done
# The same straight steps with posts of 1 KiB, in one large buffer.
for kind in bcast-1k bcast-1k-root reduce-1k reduce-1k-root allreduce-1k \
    allgather-1k alltoall-1k reduce_scatter_block-1k gather-1k gather-1k-root \
    scatter-1k scatter-1k-root; do
    kill_case 2 $kind
    HCMPI_SPIN=0 kill_case 2 $kind
done
# Two ranks: a large bcast is read (half written by the root) straight
# between the buffers by default; without that
# (HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN=0), the segment's pipeline when
# HCMPI_COLL_SHM_PAIR_BCAST_MAX lets it (by default it is one message above
# 64 KiB), and one message otherwise.
kill_case 2 bcast-large
kill_case 2 bcast-large-root
HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN=0 HCMPI_COLL_SHM_PAIR_BCAST_MAX=4m kill_case 2 bcast-large
HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN=0 HCMPI_COLL_SHM_PAIR_BCAST_SEG_MIN=262144 kill_case 2 bcast-large
HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN=0 HCMPI_COLL_SHM_PAIR_BCAST_MAX=4m kill_case 2 bcast-large-root
HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN=0 kill_case 2 bcast-large
# Two ranks: a large Reduce's root reads the other's input
# (HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN), the victim its other rank or its
# root; the segment's whole combination without.
kill_case 2 reduce-large
kill_case 2 reduce-large-root
HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN=0 kill_case 2 reduce-large
# Large Allreduces and Reduce_scatter_blocks read likewise, each rank over
# its half or its block (allreduce-large above), and through the segment.
kill_case 2 reduce_scatter_block-large
HCMPI_COLL_SHM_PAIR_REDUCE_SCATTER_READ_MIN=0 kill_case 2 reduce_scatter_block-large
HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN=0 kill_case 2 allreduce-large

# Large bcasts run through the segment (no transport message) on any
# number of ranks, two as well (up to HCMPI_COLL_SHM_PAIR_BCAST_MAX, here
# raised over the test's largest), with 64 KiB and 4 KiB chunks, and with
# every wait asleep (the bell wakes them); reads of the root's buffer off.
export HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN=0 HCMPI_COLL_SHM_BCAST_READ_MIN=0
for n in 1 3 5; do
    run_mpi_ok $n coll_shm large-bcast
done
HCMPI_COLL_SHM_PAIR_BCAST_MAX=4m run_mpi_ok 2 coll_shm large-bcast
HCMPI_COLL_SHM_PAIR_BCAST_MAX=4m HCMPI_COLL_SHM_CHUNK=4096 run_mpi_ok 2 coll_shm large-bcast
# A chunk over all the large buffers of its half (default two), and over
# one (a finer pipeline).
HCMPI_COLL_SHM_BCAST_BUFS=0 HCMPI_COLL_SHM_CHUNK=4096 run_mpi_ok 3 coll_shm large-bcast
HCMPI_COLL_SHM_PAIR_BCAST_MAX=4m HCMPI_COLL_SHM_BCAST_BUFS=1 run_mpi_ok 2 coll_shm large-bcast
HCMPI_COLL_SHM_PAIR_BCAST_MAX=4m HCMPI_SPIN=0 run_mpi_ok 2 coll_shm large-bcast
# Two ranks: the segment up to 64 KiB and again from
# HCMPI_COLL_SHM_PAIR_BCAST_SEG_MIN (default 4 MiB), one message between.
run_mpi_ok 2 coll_shm pair-bcast
HCMPI_COLL_SHM_PAIR_BCAST_SEG_MIN=262144 run_mpi_ok 2 coll_shm pair-bcast
HCMPI_COLL_SHM_PAIR_BCAST_SEG_MIN=0 run_mpi_ok 2 coll_shm pair-bcast
export HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN=16k
unset HCMPI_COLL_SHM_BCAST_READ_MIN
# Bcasts read straight from the root's buffer, from every root, about the
# thresholds (defaults, lowered, bounded by HCMPI_COLL_SHM_BCAST_READ_MAX,
# off: the paths above), with every wait asleep.
for n in 1 2 3 5 8; do
    run_mpi_ok $n coll_shm read-bcast
done
HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN=4096 HCMPI_COLL_SHM_BCAST_READ_MIN=16385 run_mpi_ok 2 coll_shm read-bcast
HCMPI_COLL_SHM_BCAST_READ_MIN=16385 HCMPI_COLL_SHM_BCAST_READ_MAX=65536 run_mpi_ok 3 coll_shm read-bcast
HCMPI_COLL_SHM_BCAST_READ_MAX=65537 run_mpi_ok 2 coll_shm read-bcast
HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN=0 run_mpi_ok 2 coll_shm read-bcast
HCMPI_COLL_SHM_BCAST_READ_MIN=0 run_mpi_ok 5 coll_shm read-bcast
HCMPI_SPIN=0 run_mpi_ok 2 coll_shm read-bcast
HCMPI_SPIN=0 run_mpi_ok 3 coll_shm read-bcast
# More ranks than CPUs (HCMPI_COLL_SHM_CPUS): reads there from
# HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN on (the processor's default: 0 on
# AMD, never), each profile's default and set; below it the segment, whose
# root waits for no reader (crowded-bcast-root-free hangs otherwise), also
# asleep.
for profile in amd intel generic; do
    HCMPI_CPU_PROFILE=$profile HCMPI_COLL_SHM_CPUS=2 run_mpi_ok 4 coll_shm read-bcast
done
HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN=1 HCMPI_COLL_SHM_CPUS=2 run_mpi_ok 4 coll_shm read-bcast
HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN=200003 HCMPI_COLL_SHM_CPUS=2 run_mpi_ok 5 coll_shm read-bcast
HCMPI_CPU_PROFILE=amd HCMPI_COLL_SHM_CPUS=2 run_mpi_ok 4 coll_shm crowded-bcast-root-free
HCMPI_CPU_PROFILE=intel HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN=0 HCMPI_COLL_SHM_CPUS=2 \
    run_mpi_ok 3 coll_shm crowded-bcast-root-free
HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN=200004 HCMPI_COLL_SHM_CPUS=2 HCMPI_SPIN=0 \
    run_mpi_ok 4 coll_shm crowded-bcast-root-free
# Reads refused (no CMA) on every rank, and on rank 1 alone (so that its
# reads fail, and on 2 ranks the root's writes when it is the root): every
# rank falls back alike, bytes right.
COLL_SHM_READS_REFUSED=1 HCMPI_SHM_CMA=0 run_mpi_ok 2 coll_shm read-bcast
printf '#!/bin/sh\n[ "$PMI_RANK" != 1 ] || export HCMPI_SHM_CMA=0\nexec "$@"\n' >"$node_wrap"
for n in 2 3; do
    echo "+ hcmpirun -n $n (no CMA on rank 1) coll_shm read-bcast"
    COLL_SHM_READS_REFUSED=1 timeout -k 5 150 "$HCMPIRUN" -n $n --timeout 120 \
        "$node_wrap" "$prog" read-bcast || fail "read-bcast on $n, no CMA on rank 1: failed"
done
# Two-rank Reduces that the root combines from the other rank's input,
# read straight from its buffer, and Allreduces and Reduce_scatter_blocks
# that each rank combines over its half or block: about the threshold and the reads'
# pieces, every root, in place and not; more ranks take the segment; the
# threshold lowered, no upper bound (HCMPI_COLL_SHM_PAIR_REDUCE_READ_MAX,
# 1 MiB + 16 read too), a lower one, off (the segment), every wait asleep; reads refused
# on every rank and on rank 1 alone (its reads fail when it is the root:
# both fall back alike, and no later one reads).
for n in 1 2 3 5 8; do
    run_mpi_ok $n coll_shm read-reduce
done
HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN=4096 run_mpi_ok 2 coll_shm read-reduce
HCMPI_COLL_SHM_PAIR_REDUCE_READ_MAX=0 run_mpi_ok 2 coll_shm read-reduce
HCMPI_COLL_SHM_PAIR_REDUCE_READ_MAX=65536 run_mpi_ok 2 coll_shm read-reduce
HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN=0 HCMPI_COLL_SHM_PAIR_REDUCE_SCATTER_READ_MIN=0 \
    run_mpi_ok 2 coll_shm read-reduce
HCMPI_SPIN=0 run_mpi_ok 2 coll_shm read-reduce
HCMPI_SHM_CMA=0 run_mpi_ok 2 coll_shm read-reduce
echo "+ hcmpirun -n 2 (no CMA on rank 1) coll_shm read-reduce"
timeout -k 5 150 "$HCMPIRUN" -n 2 --timeout 120 "$node_wrap" "$prog" read-reduce ||
    fail "read-reduce on 2, no CMA on rank 1: failed"
# Large reductions about the slot, each rank's slice combined in place in
# another rank's slot, on any number of ranks; with 4 KiB slots (long
# pipelines); with every wait asleep.
for n in 1 2 3 5 8; do
    run_mpi_ok $n coll_shm large-reduce
done
HCMPI_COLL_SHM_CHUNK=4096 run_mpi_ok 3 coll_shm large-reduce
# A Reduce on more ranks than CPUs (HCMPI_COLL_SHM_CPUS, by default the
# online ones) is combined whole by its root; slices where every rank has
# a CPU of its own.
HCMPI_COLL_SHM_CPUS=64 run_mpi_ok 5 coll_shm large-reduce
HCMPI_COLL_SHM_CPUS=1 run_mpi_ok 3 coll_shm large-reduce
HCMPI_COLL_SHM_CPUS=2 HCMPI_COLL_SHM_CHUNK=4096 run_mpi_ok 3 coll_shm large-reduce
HCMPI_SPIN=0 run_mpi_ok 2 coll_shm large-reduce
# Small Bcasts and Reduces that run ahead through the segment's small
# buffers (HCMPI_COLL_SHM_DEPTH of them per rank): runs longer than the
# ring from every root, the root's buffer refilled between calls, other
# collectives and messages after each run; rings of 1 and 2 buffers (the
# root waits at almost every call), 3 (rounded down to 2), the default;
# every wait asleep on 8 ranks (a root waiting on a full ring sleeps, and
# its readers wake it).
for n in 1 2 3 5 8; do
    run_mpi_ok $n coll_shm ring
done
for depth in 1 2 3; do
    HCMPI_COLL_SHM_DEPTH=$depth run_mpi_ok 3 coll_shm ring
done
HCMPI_COLL_SHM_DEPTH=2 run_mpi_ok 8 coll_shm ring
HCMPI_SPIN=0 run_mpi_ok 8 coll_shm ring
HCMPI_SPIN=0 HCMPI_COLL_SHM_DEPTH=4 run_mpi_ok 8 coll_shm ring
# Crowded ranks all on one CPU: every rank a wait is for last published
# from the waiter's own CPU, so the waits yield without looking first
# (shmcoll_owed_here); yielding and asleep, 5 and 8 ranks.
one_cpu_wrap=$(mktemp)
if one_cpu_wrapper "$one_cpu_wrap"; then
    MPI_TEST_WRAP=$one_cpu_wrap
    for n in 5 8; do
        HCMPI_COLL_SHM_CPUS=1 run_mpi_ok $n coll_shm
        HCMPI_COLL_SHM_CPUS=1 run_mpi_ok $n coll_shm ring
    done
    HCMPI_COLL_SHM_CPUS=1 HCMPI_SPIN=0 run_mpi_ok 8 coll_shm ring
    MPI_TEST_WRAP=
fi
rm -f "$one_cpu_wrap"
# A rank killed while the others run ahead: the Bcast root and the Reduce
# senders fail once the ring is full of collectives the victim never
# finished (after as many rounds as it is deep), the others sooner.
for depth in 1 2; do
    for kind in bcast bcast-root reduce; do
        HCMPI_COLL_SHM_DEPTH=$depth kill_case 4 $kind
    done
done
HCMPI_SPIN=0 kill_case 8 bcast
HCMPI_SPIN=0 kill_case 8 reduce
echo "coll_shm: all cases passed"
