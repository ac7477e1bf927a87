#!/bin/sh
# abort_cause.c: the abort line names why rank 0 and 1 lost each other:
# a wrong job secret (tcp), a corrupt shared-memory ring (shm), a death
# (shm and tcp; the tcp victim dies before its first message, so nothing
# but the survivor's own connect can tell).  Each cause must be named, and
# the other causes must not be.  The timeouts only end a hang.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "the abort lines are hcmpi's"
prog=$(mpi_prog_path abort_cause)
[ -x "$prog" ] || skip "$prog not built"
mpi_launcher_cmd
out=$(mktemp)
trap 'rm -f "$out"' EXIT
secret=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
other=fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210

# abort_case MODE WANT NOT [hcmpirun options...]: the job ends non-zero,
# within its timeout, with one abort line that matches WANT and not NOT.
abort_case() {
    mode=$1 want=$2 not=$3
    shift 3
    echo "+ hcmpirun $* -n 2 abort_cause $mode ($HCMPI_TRANSPORTS)"
    timeout -k 5 90 "$HCMPIRUN" "$@" -n 2 --timeout 60 sh -c \
        'if [ "$PMI_RANK" = 1 ] && [ -n "${RANK1_SECRET:-}" ]; then
             HCMPI_JOB_SECRET=$RANK1_SECRET; export HCMPI_JOB_SECRET
         fi
         exec "$0" "$1"' "$prog" "$mode" >"$out" 2>&1
    rc=$?
    cat "$out"
    [ $rc -ne 0 ] || fail "$mode: job exited 0"
    [ $rc -ne 124 ] || fail "$mode: job hung until the timeout"
    grep -q "FAIL rank" "$out" && fail "$mode: a call returned under MPI_ERRORS_ARE_FATAL"
    grep "^hcmpi: abort" "$out" | grep -q "$want" ||
        fail "$mode: no abort line matching '$want'"
    grep "^hcmpi: abort" "$out" | grep -q "$not" &&
        fail "$mode: an abort line names another cause ('$not')"
    echo "abort_cause $mode: PASS"
}

HCMPI_JOB_SECRET=$secret RANK1_SECRET=$other HCMPI_TRANSPORTS=tcp \
    abort_case secret "world rank [01].*failed authentication" "gone\|corrupt"
HCMPI_TRANSPORTS=shm \
    abort_case corrupt "MPI_.*: world rank 1 sent corrupt data" "gone\|authentication"
for transports in shm tcp; do
    HCMPI_TRANSPORTS=$transports abort_case dead \
        "MPI_Recv: peer process is gone: world rank 1 failed" "corrupt\|authentication" \
        --no-kill-on-failure
done
echo "abort_cause: all causes named"
