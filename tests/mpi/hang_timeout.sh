#!/bin/sh
# deadlock.c with HCMPI_HANG_TIMEOUT=2: each rank reports its pending
# receive (peer, tag, size, context) and the job ends non-zero instead of
# hanging until the launcher's timeout.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "HCMPI_HANG_TIMEOUT is hcmpi's"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
MPI_TEST_TIMEOUT=60
HCMPI_HANG_TIMEOUT=2 run_mpi 2 deadlock >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -eq 77 ] && exit 77
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "job status $rc: want a non-zero end before the timeout"
grep -q "FAIL rank" "$out" && fail "a deadlocked Recv returned"
grep -q "no progress for [0-9]* s (HCMPI_HANG_TIMEOUT)" "$out" || fail "no hang report"
grep -Eq "rank [01]:   recv from [01] .*tag 4[01] size 12 context 0 .*unmatched" "$out" ||
    fail "the report does not name the pending receive"
echo "hang_timeout: deadlock reported, job status $rc"
