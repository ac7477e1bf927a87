#!/bin/sh
# The device-buffer examples on 4 ranks: --device npu against the CANN test
# double (each data path forced in turn for the pipeline), and --device
# host; comm_split on 4 and 8 ranks on npu.  Each example checks its own
# result and exits non-zero when wrong.
# Skips (77) when the double or the programs were not built.
set -u
run=./tools/hcmpirun
lib=$PWD/tests/fake-cann/.libs/libascendcl.so
hccl=$PWD/tests/fake-cann/.libs/libhccl.so
for p in pipeline sparse_allgather moe_dispatch comm_split; do
  [ -x "./examples/$p" ] || exit 77
done
[ -x "$run" ] && [ -r "$lib" ] && [ -r "$hccl" ] || exit 77
HCMPI_ACL_LIB=$lib
HCMPI_HCCL_LIB=$hccl
# The doubles' IPC records of this script alone: scripts run side by side.
FAKE_CANN_DIR=/dev/shm/fake-cann-$(id -u)-$$
export HCMPI_ACL_LIB HCMPI_HCCL_LIB FAKE_CANN_DIR
log=examples.run.log
fail() {
  echo "FAILED: $*"
  tail -30 "$log"
  exit 1
}
runone() { # expected output, program and arguments (after env settings)
  want=$1
  shift
  echo "== $*"
  env HCMPI_LOG=debug "$@" >"$log" 2>&1 || fail "$*"
  grep -q "$want" "$log" || fail "no '$want' from $*"
}
for dev in npu host; do
  runone "on $dev: OK" HCMPI_DEVICE=acl "$run" -n 4 --timeout 300 \
    ./examples/pipeline --device $dev 6
  runone "on $dev, .*: OK" HCMPI_DEVICE=acl "$run" -n 4 --timeout 300 \
    ./examples/sparse_allgather --device $dev
  runone "on $dev: OK" HCMPI_DEVICE=acl "$run" -n 4 --timeout 300 \
    ./examples/moe_dispatch --device $dev
done
for path in staging ipc hccl; do
  runone "on npu: OK" HCMPI_DEVICE=acl HCMPI_DEVICE_PATH=$path \
    "$run" -n 4 --timeout 300 ./examples/pipeline --device npu 4
  grep -q "device path $path" "$log" || fail "pipeline: $path not used"
done
runone "on npu, .*: OK" HCMPI_DEVICE=acl HCMPI_DEVICE_PATH=hccl \
  "$run" -n 4 --timeout 300 ./examples/sparse_allgather --device npu
grep -q "device path hccl" "$log" || fail "sparse_allgather: hccl not used"
runone "on npu: OK" HCMPI_DEVICE=acl HCMPI_DEVICE_PATH=hccl \
  "$run" -n 4 --timeout 300 ./examples/moe_dispatch --device npu
grep -q "device path hccl" "$log" || fail "moe_dispatch: hccl not used"
# Stage and expert groups (collectives and point-to-point in split
# communicators on device buffers): 2x2 and 2 stages x 4 experts.
runone "2 stages x 2 experts on npu, .*: OK" HCMPI_DEVICE=acl \
  "$run" -n 4 --timeout 300 ./examples/comm_split --device npu
runone "2 stages x 4 experts on npu, .*: OK" HCMPI_DEVICE=acl \
  "$run" -n 8 --timeout 300 ./examples/comm_split --device npu 4
leftover=$(ls "$FAKE_CANN_DIR" 2>/dev/null | wc -l)
[ "$leftover" -eq 0 ] || fail "$leftover fake-cann files left in $FAKE_CANN_DIR"
rmdir "$FAKE_CANN_DIR" 2>/dev/null
rm -f "$log"
exit 0
