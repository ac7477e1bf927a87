# shellcheck shell=sh disable=SC2154 # prog and log are set by the sourcing script
# Sourced by the tests/device scripts after they set prog (the program)
# and log (its run log): the launcher, the CANN test doubles in the
# environment (HCMPI_ACL_LIB, HCMPI_HCCL_LIB, HCMPI_DEVICE=acl, a
# FAKE_CANN_DIR of its own), fail, and the check that no IPC key outlived
# its test.  Exits 77 (skip) when the
# launcher, the program or a double was not built.
run=./tools/hcmpirun
lib=$PWD/tests/fake-cann/.libs/libascendcl.so
hccl=$PWD/tests/fake-cann/.libs/libhccl.so
[ -x "$run" ] && [ -x "$prog" ] && [ -r "$lib" ] && [ -r "$hccl" ] || exit 77
HCMPI_ACL_LIB=$lib
HCMPI_HCCL_LIB=$hccl
HCMPI_DEVICE=acl
# The doubles' IPC records of this script alone: scripts run side by side.
FAKE_CANN_DIR=/dev/shm/fake-cann-$(id -u)-$$
export HCMPI_ACL_LIB HCMPI_HCCL_LIB HCMPI_DEVICE FAKE_CANN_DIR
fail() {
  echo "FAILED: $*"
  tail -40 "$log"
  exit 1
}
no_keys_left() {
  left=$(ls "$FAKE_CANN_DIR" 2>/dev/null | wc -l)
  [ "$left" -eq 0 ] || fail "$left IPC keys left in $FAKE_CANN_DIR"
  rmdir "$FAKE_CANN_DIR" 2>/dev/null
  return 0
}
