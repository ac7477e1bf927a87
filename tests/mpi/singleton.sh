#!/bin/sh
# tests/mpi/singleton.c started as `./singleton` alone: no launcher, every
# PMI/PMIx/Slurm variable removed, so MPI_Init must fall back to a world of
# one rank.  The program's exit status and its OK line are the verdict.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
prog=$(mpi_prog_path singleton)
[ -x "$prog" ] || skip "$prog not built"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "+ $prog (no launcher)"
timeout -k 5 "$MPI_TEST_TIMEOUT" env -u PMI_FD -u PMI_PORT -u PMI_ID -u PMI_RANK \
    -u PMI_SIZE -u PMI_JOBID -u PMIX_NAMESPACE -u PMIX_RANK -u PMIX_SERVER_URI2 \
    -u PMIX_SERVER_URI21 -u PMIX_SERVER_URI3 -u PMIX_SERVER_URI4 -u PMIX_SERVER_URI41 \
    -u SLURM_MPI_TYPE -u HCMPI_BOOTSTRAP "$prog" >"$out" 2>&1 </dev/null
rc=$?
cat "$out"
[ $rc -eq 0 ] || fail "singleton exited with status $rc"
grep -q '^singleton: rank 0 of 1, .*: OK$' "$out" || fail "no OK line from the singleton"
echo "singleton: passed without a launcher"
