#!/bin/sh
# killed_rank.c: rank 1 dies of SIGKILL while rank 0 waits in a Recv from
# it.  The launcher must end the job non-zero and report
# "rank 1 (pid N) killed by signal 9" (checked for hcmpirun only).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
MPI_TEST_TIMEOUT=60
start=$(date +%s)
run_mpi 3 killed_rank >"$out" 2>&1
rc=$?
elapsed=$(($(date +%s) - start))
cat "$out"
[ $rc -eq 77 ] && exit 77
[ $rc -ne 0 ] || fail "job exited 0 although rank 1 was killed"
# A hung job ends at the launcher's --timeout (status 124, "timed out");
# a hung launcher at run_mpi's outer timeout, 30 s later: status 124, or
# 137 (128 + SIGKILL, also the launcher's normal answer here) when it
# needed the kill, told then by the time taken having reached that bound.
# No bound on how fast the job ends: a slow machine may take its time.
[ $rc -ne 124 ] && ! grep -q "timed out" "$out" &&
    [ $elapsed -lt $((MPI_TEST_TIMEOUT + 30)) ] ||
    fail "job hung until the timeout (status $rc after ${elapsed}s)"
grep -q "FAIL rank" "$out" && fail "a rank returned from a Recv from the dead rank"
if [ "$MPI_TEST_LAUNCHER" = hcmpirun ]; then
    grep -q "rank 1 (pid [0-9][0-9]*) killed by signal 9" "$out" ||
        fail "launcher did not print 'rank 1 (pid N) killed by signal 9'"
fi
echo "killed_rank: job ended with status $rc"
