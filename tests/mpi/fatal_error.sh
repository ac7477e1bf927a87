#!/bin/sh
# fatal_error.c sends to rank == size under MPI_ERRORS_ARE_FATAL: the job
# must end non-zero and stderr must name MPI_Send and the rank (hcmpi: on one
# line; MPICH spreads its error stack over several lines).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
run_mpi 2 fatal_error >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -eq 77 ] && exit 77
[ $rc -ne 0 ] || fail "job exited 0 after a fatal MPI_Send error"
grep -q "FAIL rank" "$out" && fail "MPI_Send returned instead of aborting"
if [ "$MPI_TEST_LAUNCHER" = hcmpirun ]; then
    grep "MPI_Send" "$out" | grep -qi "rank" || fail "no stderr line naming MPI_Send and the rank"
else
    grep -q "MPI_Send" "$out" && grep -qi "rank" "$out" || fail "no message naming MPI_Send and rank"
fi
echo "fatal_error: job ended with status $rc and the expected message"
