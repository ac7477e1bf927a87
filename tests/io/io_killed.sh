#!/bin/sh
# tests/io/io_killed.c under hcmpirun --no-kill-on-failure: rank 1 dies
# instead of joining a collective write; the 3 survivors must each get
# MPIX_ERR_PROC_FAILED from MPI_File_write_all (no aggregator left hanging)
# and the launcher must still report the death.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "needs hcmpirun --no-kill-on-failure"
prog=$(mpi_prog_path tests/io/io_killed)
[ -x "$prog" ] || skip "$prog not built"
mpi_launcher_cmd
out=$(mktemp)
file="${TMPDIR:-/tmp}/hcmpi_io_killed.$$"
trap 'rm -f "$out" "$file" "${TMPDIR:-/tmp}"/.hcmpi_io_killed.$$.hcmpi-shfp.*' EXIT
echo "+ hcmpirun --no-kill-on-failure -n 4 io_killed"
timeout -k 5 120 "$HCMPIRUN" --no-kill-on-failure -n 4 --timeout 90 "$prog" "$file" >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -ne 0 ] || fail "job exited 0 although rank 1 died"
[ $rc -ne 124 ] || fail "job hung until the timeout"
grep -q "FAIL rank" "$out" && fail "a check failed"
n=$(grep -c "PASS io_killed" "$out")
[ "$n" -eq 3 ] || fail "$n of 3 survivors got MPIX_ERR_PROC_FAILED"
echo "io_killed: the survivors failed cleanly"
