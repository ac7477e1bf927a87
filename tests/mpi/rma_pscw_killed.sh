#!/bin/sh
# tests/mpi/rma_pscw_killed.c under hcmpirun --no-kill-on-failure: a rank
# killed between post/start/complete/wait epochs fails the wait of the rank
# that posted to it and the start of the rank that waits for its post with
# MPIX_ERR_PROC_FAILED, never a hang; each window kind, over shm and over
# tcp alone.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "needs hcmpirun --no-kill-on-failure"
prog=$(mpi_prog_path rma_pscw_killed)
[ -x "$prog" ] || skip "$prog not built"
mpi_launcher_cmd
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for kind in allocate create; do
    for transports in "" tcp; do
        env ${transports:+HCMPI_TRANSPORTS=$transports} timeout -k 5 90 "$HCMPIRUN" \
            --no-kill-on-failure -n 3 --timeout 60 "$prog" $kind >"$out" 2>&1
        rc=$?
        cat "$out"
        [ $rc -ne 0 ] || fail "job exited 0 although rank 1 died"
        [ $rc -ne 124 ] || fail "job hung until the timeout"
        grep -q "FAIL rank" "$out" && fail "a check failed ($kind ${transports:-shm})"
        grep -q "rank 0's wait for the dead origin failed" "$out" ||
            fail "rank 0 did not finish ($kind ${transports:-shm})"
        grep -q "rank 2's start towards the dead target failed" "$out" ||
            fail "rank 2 did not finish ($kind ${transports:-shm})"
    done
done
exit 0
