#!/bin/sh
# Nonsensical values of numeric tunables are refused, not taken: MPI_Init
# fails with MPI_ERR_ARG and a line that names the variable, its value and
# the range (HCMPI_TCP_SENDQ=0 used to be accepted and meant nothing is ever
# sent: the job hung over tcp); so do values that are no number at all
# (they used to fall back to the default without a word).  hcmpirun refuses
# its own.  Values in range, with size suffixes, still run.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "the refusal text is hcmpi's"
mpi_launcher_cmd
out=$(mktemp)
trap 'rm -f "$out"' EXIT
MPI_TEST_TIMEOUT=30

refused() { # VAR=VALUE PATTERN
    echo "== $1"
    (export HCMPI_TRANSPORTS=tcp "$1"; run_mpi 2 face_smoke) >"$out" 2>&1
    rc=$?
    cat "$out"
    [ $rc -eq 77 ] && exit 77
    [ $rc -ne 124 ] || fail "$1: the job hung"
    [ $rc -ne 0 ] || fail "$1: accepted"
    grep -q "MPI_Init.*$1 $2.*(MPI_ERR_ARG)" "$out" || fail "$1: no line naming it"
}

refused HCMPI_TCP_SENDQ=0 "is out of range (1 to [0-9]* bytes): queued bytes"
refused HCMPI_TCP_SENDQ=-1 "is not a size in bytes"
refused HCMPI_TCP_SENDQ=99999999999g "is not a size in bytes"
refused HCMPI_SHM_CELLS=0 "is out of range (2 to 65536)"
refused HCMPI_SHM_CELL_SIZE=0 "is out of range (256 to"
refused HCMPI_WAIT_MS=-1 "is out of range (0 to 60000)"
refused HCMPI_SPIN=fast "is not a whole number"
refused HCMPI_EAGER_LIMIT=4q "is not a size in bytes"
refused HCMPI_DEVICE_SLOTS=9 "is out of range (1 to 8)"
refused HCMPI_TCP_MAX_PACKET=1 "is out of range"

echo "== HCMPI_KILL_GRACE=-1"
HCMPI_KILL_GRACE=-1 "$HCMPIRUN" -n 1 true >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -eq 1 ] || fail "hcmpirun accepted HCMPI_KILL_GRACE=-1 (status $rc)"
grep -q "^hcmpirun: HCMPI_KILL_GRACE=-1 is out of range (0 to" "$out" ||
    fail "hcmpirun's refusal does not name HCMPI_KILL_GRACE"

# The smallest queue that works (one packet at a time) and suffixes.
HCMPI_TRANSPORTS=tcp HCMPI_TCP_SENDQ=1 HCMPI_TCP_SOCKBUF=64k run_mpi_ok 2 face_smoke
HCMPI_SHM_CELLS=2 HCMPI_SHM_CELL_SIZE=4K HCMPI_WAIT_MS=0 run_mpi_ok 2 face_smoke
echo "bad_tunables: every nonsensical value refused"
