#!/bin/sh
# tests/mpi/rma_killed.c under hcmpirun --no-kill-on-failure: a target
# killed during a lock epoch fails the origin's unlock and next lock with
# MPIX_ERR_PROC_FAILED, never a hang; over shm and over tcp alone.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "needs hcmpirun --no-kill-on-failure"
prog=$(mpi_prog_path rma_killed)
[ -x "$prog" ] || skip "$prog not built"
mpi_launcher_cmd
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for transports in "" tcp; do
    env ${transports:+HCMPI_TRANSPORTS=$transports} timeout -k 5 90 "$HCMPIRUN" \
        --no-kill-on-failure -n 2 --timeout 60 "$prog" >"$out" 2>&1
    rc=$?
    cat "$out"
    [ $rc -ne 0 ] || fail "job exited 0 although rank 1 died"
    [ $rc -ne 124 ] || fail "job hung until the timeout"
    grep -q "FAIL rank" "$out" && fail "a check failed"
    grep -q "rma_killed: the dead target failed" "$out" || fail "rank 0 did not finish"
done
exit 0
