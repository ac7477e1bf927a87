#!/bin/sh
# tcp_strangers.c on 4 ranks over tcp alone: 2,000 idle connections to
# every rank's port before the first message, while the job moves and
# checks its payloads.
#  1. HCMPI_TCP_HANDSHAKES=32: each rank keeps at most that many strangers
#     (the program counts its descriptors at the end).
#  2. A soft descriptor limit of 40 per rank: accept runs out of
#     descriptors; the job still completes, and each rank says so exactly
#     once, without HCMPI_LOG.
# The launcher's timeout only ends a hang; no time is asserted.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "needs hcmpirun and hcmpi's tcp"
prog=$(mpi_prog_path tcp_strangers)
[ -x "$prog" ] || skip "$prog not built"
mpi_launcher_cmd
out=$(mktemp)
trap 'rm -f "$out"' EXIT
HCMPI_TRANSPORTS=tcp
export HCMPI_TRANSPORTS
unset HCMPI_LOG

# strangers_case LABEL FDLIMIT: runs the job (FDLIMIT: soft descriptor
# limit of each rank, or "-" for none) and checks every rank passed.
strangers_case() {
    echo "+ hcmpirun -n 4 tcp_strangers 2000 ($1)"
    timeout -k 5 200 "$HCMPIRUN" -n 4 --timeout 150 sh -c \
        '[ "$0" = - ] || ulimit -S -n "$0" || exit 99; exec "$1" 2000' \
        "$2" "$prog" >"$out" 2>&1
    rc=$?
    cat "$out"
    [ $rc -ne 99 ] || skip "cannot lower the descriptor limit"
    [ $rc -ne 124 ] || fail "$1: the job hung until the timeout"
    [ $rc -eq 0 ] || fail "$1: the job exited with status $rc"
    n=$(grep -c "PASS tcp_strangers" "$out")
    [ "$n" -eq 4 ] || fail "$1: $n of 4 ranks passed"
}

HCMPI_TCP_HANDSHAKES=32 strangers_case "at most 32 strangers kept" -
if grep -q "out of file descriptors" "$out"; then
    fail "a rank ran out of descriptors without a limit"
fi

strangers_case "40 descriptors per rank" 40
for r in 0 1 2 3; do
    n=$(grep -c "^hcmpi: rank $r: out of file descriptors (" "$out")
    [ "$n" -eq 1 ] || fail "rank $r reported running out of descriptors $n times, want 1"
done
# 3. No descriptor left at all (nofds): set-up cannot progress, which is
#    no silent spin: each rank says so once, and HCMPI_HANG_TIMEOUT ends
#    the job with its report.
echo "+ hcmpirun -n 2 tcp_strangers nofds (HCMPI_HANG_TIMEOUT=2)"
HCMPI_HANG_TIMEOUT=2 timeout -k 5 120 "$HCMPIRUN" -n 2 --timeout 90 "$prog" nofds \
    >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -ne 124 ] || fail "nofds: the job hung until the timeout"
[ $rc -ne 0 ] || fail "nofds: the job exited 0"
grep -q "FAIL rank" "$out" && fail "nofds: a check failed"
grep -q "no progress for [0-9]* s (HCMPI_HANG_TIMEOUT)" "$out" ||
    fail "nofds: the watchdog did not report"
for r in 0 1; do
    n=$(grep -c "^hcmpi: rank $r: out of file descriptors" "$out")
    [ "$n" -le 1 ] || fail "nofds: rank $r said it ran out of descriptors $n times"
done
grep -q "^hcmpi: rank [01]: out of file descriptors" "$out" ||
    fail "nofds: no rank said it ran out of descriptors"
echo "tcp_strangers: PASS"
