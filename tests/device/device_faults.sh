#!/bin/sh
# device_faults on 2 ranks against the CANN test double's fault hooks: a
# failing host-to-device copy (eager and multi-fragment receives), free and
# re-malloc at the same address under ipc, the importers-close-first rule,
# held copies (a receive stays incomplete until its device copies ran), a
# runtime without aclrtMemGetAddressRange, pinned memory short for a while.
# Skips (77) when the double or the program was not built.
set -u
prog=./tests/device/device_faults
log=device_faults.run.log
. "${top_srcdir:-.}/tests/device/lib.sh"
runone() { # case, extra environment...
  c=$1
  shift
  echo "== $c $*"
  env DEVICE_FAULTS_CASE="$c" HCMPI_LOG=debug "$@" \
    "$run" -n 2 --timeout 120 "$prog" >"$log" 2>&1 || fail "run ($c $*)"
  grep -q "device_faults: $c ok" "$log" || fail "no summary line ($c $*)"
}
# The first copy of an eager message; the second chunk of a streamed one.
runone copy_fails FAKE_CANN_FAIL_H2D=1 DEVICE_FAULTS_BYTES=100
runone copy_fails FAKE_CANN_FAIL_H2D=2 HCMPI_DEVICE_CHUNK=1048576
grep -q "copy to device receive buffer" "$log" || fail "failure not logged"
runone realloc HCMPI_DEVICE_PATH=ipc
grep -q "device path ipc" "$log" || fail "ipc not used"
# The second message carried the dead key of the freed allocation.
grep -q "could not import our export: dropped" "$log" ||
  fail "stale export not reported"
runone realloc HCMPI_DEVICE_PATH=staging
# A runtime without aclrtMemGetAddressRange: no allocation base to cache,
# so each message exports its own pages (withdrawn when it is done, which
# the reallocations and the key count below check); one line per rank.
runone realloc HCMPI_DEVICE_PATH=ipc FAKE_CANN_NO_ADDRESS_RANGE=1
grep -q "device path ipc" "$log" || fail "no ipc without an allocation base"
grep -q "device path staging" "$log" && fail "staged without need"
said=$(grep -c "aclrtMemGetAddressRange not supported" "$log")
[ "$said" -eq 2 ] || fail "$said lines about aclrtMemGetAddressRange, not 2"
no_keys_left
runone realloc HCMPI_DEVICE_PATH=staging FAKE_CANN_NO_ADDRESS_RANGE=1
runone free_order
# The staging sender finds no pinned chunk three times, then one.
runone pinned_short FAKE_CANN_FAIL_MALLOC_HOST=3 HCMPI_DEVICE_PATH=staging
grep -q "device path staging" "$log" || fail "staging not used"
runone held_copies FAKE_CANN_HOLD_H2D=1 HCMPI_DEVICE_PATH=staging \
  HCMPI_DEVICE_CHUNK=1048576 HCMPI_DEVICE_SLOTS=4 DEVICE_FAULTS_BYTES=4194304
grep -q "device path staging" "$log" || fail "staging not used"
no_keys_left
rm -f "$log"
exit 0
