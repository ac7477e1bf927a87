#!/bin/sh
# The verbs transport on this node, every peer over RC queue pairs
# (HCMPI_TRANSPORTS=verbs), against tests/fake-verbs: a TEST DOUBLE of
# libibverbs.so.1, not RDMA hardware (see its README and lib.sh).  Proves
# set-up, credits, RDMA READ rendezvous, error paths and the tcp fallback;
# says nothing about speed.
set -u
. "${top_srcdir:-.}/tests/verbs/lib.sh"
cd "$top_builddir" || exit 1
[ -x ./tests/engine/engine_p2p ] && [ -x ./tests/engine/engine_coll ] &&
  [ -x ./tests/verbs/verbs_rdma_error ] || exit 77

for n in 2 4; do
  ok "engine_p2p -n $n" "$run" -n "$n" --timeout 300 ./tests/engine/engine_p2p
  ok "engine_coll -n $n" "$run" -n "$n" --timeout 300 ./tests/engine/engine_coll
done
# The peers really went over verbs, and rendezvous used RDMA READ.
ok "engine_p2p -n 2 (debug log)" env HCMPI_LOG=debug \
  "$run" -n 2 --timeout 300 ./tests/engine/engine_p2p
grep -q "rank 0: peer 1 via verbs" "$out" || fail "peer 1 not reached via verbs"
grep -q "single-copy get" "$out" || fail "no RDMA READ rendezvous"
# Four 1 KiB receive buffers per peer: credits run out constantly, every
# message above 64 B is a rendezvous.
ok "engine_p2p -n 2, 4 receive buffers of 1 KiB" env HCMPI_VERBS_RECVS=4 \
  HCMPI_VERBS_BUF=1k HCMPI_EAGER_LIMIT=64 \
  "$run" -n 2 --timeout 300 ./tests/engine/engine_p2p
# No RDMA READ: rendezvous pipelined through sends.
ok "engine_p2p -n 2 HCMPI_VERBS_RDMA=0" env HCMPI_VERBS_RDMA=0 \
  "$run" -n 2 --timeout 300 ./tests/engine/engine_p2p
for t in "2 pingpong_sizes" "4 collectives_basic" "2 many_outstanding"; do
  set -- $t
  [ -x "./tests/mpi/$2" ] || { echo "== $2 not built: not run"; continue; }
  ok "$2 -n $1" "$run" -n "$1" --timeout 300 "./tests/mpi/$2"
done
# Clean runs deregister everything (the double's rkey records are gone);
# the failure runs below leave the records of killed ranks behind.
leftover=$(ls "$FAKE_VERBS_DIR" | grep -v '^qp-' | head -1)
[ -z "$leftover" ] || fail "registration record left behind: $leftover"

# RDMA READs the peer's HCA refuses (the double corrupts every rkey, or
# shifts every read 4 KiB past its region): the request that needed the
# read fails with an error class on both sides of that pair, the others'
# traffic goes on, and the job ends (verbs_rdma_error checks all that).
for hook in FAKE_VERBS_CORRUPT_RKEY=1 FAKE_VERBS_RDMA_SHIFT=4096; do
  ok "verbs_rdma_error -n 3 $hook" env "$hook" HCMPI_LOG=warn \
    "$run" -n 3 --timeout 120 ./tests/verbs/verbs_rdma_error
  [ "$(grep -c "^PASS rank" "$out")" -eq 3 ] || fail "$hook: not 3 ranks passed"
  grep -q "rank 0: Recv failed with class 101" "$out" ||
    fail "$hook: the receive did not fail with MPIX_ERR_PROC_FAILED"
  grep -q "rank 1: Send failed with class" "$out" ||
    fail "$hook: the send did not fail"
  grep -q "remote access error" "$out" || fail "$hook: no remote access error"
done

# A rank killed with SIGKILL: the survivors' requests fail with
# MPIX_ERR_PROC_FAILED (the keepalive finds the dead QP).
if [ -x ./tests/mpi/proc_failed ]; then
  for mode in p2p coll; do
    echo "== proc_failed $mode -n 4 --no-kill-on-failure"
    HCMPI_LOG=warn "$run" --no-kill-on-failure -n 4 --timeout 120 \
      ./tests/mpi/proc_failed "$mode" >"$out" 2>&1 &&
      fail "job exited 0 although rank 1 died"
    grep -q "timed out" "$out" && fail "peer death hung the job"
    grep -q "FAIL rank" "$out" && fail "$mode: a check failed"
    [ "$(grep -c "PASS $mode" "$out")" -eq 3 ] || fail "$mode: not 3 survivors passed"
  done
fi

# No library: "no verbs devices", and tcp carries everything (small tcp
# queues, as tcp_local.sh, for engine_p2p's cancel test).
HCMPI_TCP_SENDQ=64k
HCMPI_TCP_SOCKBUF=64k
export HCMPI_TCP_SENDQ HCMPI_TCP_SOCKBUF
echo "== fallback to tcp without libibverbs"
HCMPI_TRANSPORTS=verbs,tcp HCMPI_VERBS_LIB=/nonexistent/libibverbs.so.1 \
  HCMPI_LOG=debug "$run" -n 2 --timeout 300 ./tests/engine/engine_p2p \
  >"$out" 2>&1 || fail "fallback run exited $?"
grep -q "no verbs devices" "$out" || fail "no 'no verbs devices' message"
grep -q "rank 0: peer 1 via tcp" "$out" || fail "peer 1 not reached via tcp"
# Debian's real library without a device (NULL, ENOSYS): the same.
if [ -e /usr/lib/x86_64-linux-gnu/libibverbs.so.1 ] && [ ! -e /dev/infiniband ]; then
  echo "== fallback to tcp with the system libibverbs and no device"
  env -u HCMPI_VERBS_LIB HCMPI_TRANSPORTS=verbs,tcp HCMPI_LOG=info \
    "$run" -n 2 --timeout 300 ./tests/engine/engine_p2p >"$out" 2>&1 ||
    fail "system-library fallback exited $?"
  grep -q "no verbs devices" "$out" || fail "no 'no verbs devices' message"
fi
# verbs forced, no device, tcp not allowed: init fails with a clear line.
echo "== HCMPI_TRANSPORTS=verbs without a device (must fail)"
HCMPI_VERBS_LIB=/nonexistent HCMPI_LOG=error "$run" -n 2 --timeout 120 \
  ./tests/engine/engine_p2p >"$out" 2>&1 && fail "job ran without a transport"
grep -q "verbs did not start" "$out" || fail "no clear message"
echo "verbs_local: all passed"
exit 0
