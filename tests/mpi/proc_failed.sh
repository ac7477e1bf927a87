#!/bin/sh
# proc_failed.c under hcmpirun --no-kill-on-failure: rank 1 dies and the
# survivors get MPIX_ERR_PROC_FAILED (blocking, non-blocking, ANY_SOURCE,
# Waitall, mid-stream, Barrier/Allreduce, requests and collectives already
# pending at the death, by Wait and by Test loops) while live traffic and
# collectives among the survivors keep working; the launcher still reports
# the death and exits non-zero.  Every mode but fatal runs over shm and
# again over tcp alone (HCMPI_TRANSPORTS=tcp: a closed socket is the
# sign).  Under MPI_ERRORS_ARE_FATAL the job ends with a line naming the
# dead rank.  In early mode the victim dies before its first message.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "needs hcmpirun --no-kill-on-failure"
prog=$(mpi_prog_path proc_failed)
[ -x "$prog" ] || skip "$prog not built"
mpi_launcher_cmd
out=$(mktemp)
trap 'rm -f "$out"' EXIT

mode_args= # words after MODE on the command line
run_ft() { # MODE [ENV=VALUE...]
    mode=$1
    shift
    echo "+ hcmpirun --no-kill-on-failure -n 4 proc_failed $mode $mode_args ($*)"
    env "$@" timeout -k 5 90 "$HCMPIRUN" --no-kill-on-failure -n 4 --timeout 60 \
        "$prog" "$mode" $mode_args >"$out" 2>&1
    rc=$?
    cat "$out"
    [ $rc -ne 0 ] || fail "$mode: job exited 0 although rank 1 died"
    [ $rc -ne 124 ] || fail "$mode: job hung until the timeout"
    grep -q "FAIL rank" "$out" && fail "$mode: a check failed"
    grep -q "rank 1 (pid [0-9]*) killed by signal 9" "$out" ||
        fail "$mode: launcher did not report rank 1's death"
}

all_passed() { # MODE
    n=$(grep -c "PASS $1" "$out")
    [ "$n" -eq 3 ] || fail "$1: $n of 3 survivors passed"
}

for transports in shm,self tcp; do
    for mode in p2p coll pending inflight early; do
        run_ft $mode HCMPI_LOG=warn HCMPI_TRANSPORTS=$transports
        all_passed $mode
    done
done
# The shortest liveness interval (checked on every sleep) finds the death
# as well.
run_ft pending HCMPI_LOG=warn HCMPI_TRANSPORTS=shm,self HCMPI_SHM_LIVENESS_MS=1
all_passed pending
# Without CMA the rendezvous streams through the (small) ring: the victim
# dies with most of its 256 MiB unsent.  Over tcp it streams through the
# socket; small send queue, socket buffers and packets keep what three
# Tests can move far below the message even when the receiver reads each
# packet straight into place (the default queue let a fast reader take it
# all).
run_ft midstream HCMPI_SHM_CMA=0 HCMPI_SHM_CELLS=8
all_passed midstream
# A victim that dies holding a chunk of a shared CMA read (the reader
# waits for that chunk): the reader's liveness check ends the wait.
run_ft helping HCMPI_LOG=warn HCMPI_SHM_CMA_MIN=0 HCMPI_SHM_STREAM_RUNQ_MAX=100 \
    HCMPI_TEST_SHM_HELP_DIE=1
all_passed helping
# A lone rendezvous of 8-32 KiB is one CMA read (HCMPI_SHM_LONE_READ_MIN;
# Intel's profile, whose eager limit is 4 KiB, so that these sizes are
# rendezvous on any machine), cut half-way by the death of either end: the
# owner of the memory (rank 0's read finds it gone) or the reader (rank 0
# waits for a FIN that never comes).  Over a named segment, which must not
# outlive the job.
for who in owner reader; do
    for bytes in 8193 16384 32768; do
        mode_args="$who $bytes"
        run_ft loneread HCMPI_LOG=debug HCMPI_SHM_MEMFD=0 HCMPI_CPU_PROFILE=intel \
            HCMPI_SHM_LONE_READ_MIN=8k HCMPI_TEST_SHM_READ_DIE=$who
        all_passed loneread
        grep -q "debug shm: .*half-way through a read" "$out" ||
            fail "loneread $mode_args: no read was cut half-way"
        segs=$(sed -n 's|^hcmpi\[[0-9]*\] debug shm: segment \(/hcmpi-[0-9a-f-]*\):.*|\1|p' "$out")
        [ -n "$segs" ] || fail "loneread $mode_args: no named segment was made"
        for seg in $segs; do
            [ ! -e "/dev/shm$seg" ] || fail "loneread $mode_args: /dev/shm$seg left"
        done
    done
done
mode_args=
run_ft midstream HCMPI_TRANSPORTS=tcp HCMPI_TCP_SENDQ=65536 HCMPI_TCP_SOCKBUF=65536 \
    HCMPI_TCP_MAX_PACKET=16384
all_passed midstream

run_ft fatal
grep -q "MPI_Recv.*world rank 1 failed.*MPIX_ERR_PROC_FAILED" "$out" ||
    fail "fatal: no line naming MPI_Recv, the dead rank and MPIX_ERR_PROC_FAILED"
echo "proc_failed: all modes passed"
