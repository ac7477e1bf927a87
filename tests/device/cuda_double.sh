#!/bin/sh
# The cuda backend (src/device/cuda.c) without a GPU: device_mpi_p2p and
# device_coll on 2 ranks with their buffers from tests/fake-cuda, a TEST
# DOUBLE of libcuda.so.1 whose device memory faults on any host access.
# device_mpi_p2p runs with the staging and the ipc path forced; the debug
# log shows which path really ran.  Skips (77) when the double or the
# programs were not built.
set -u
run=./tools/hcmpirun
lib=$PWD/tests/fake-cuda/.libs/libcuda.so
log=cuda_double.run.log
for p in "$run" ./tests/device/device_mpi_p2p ./tests/device/device_coll; do
  [ -x "$p" ] || exit 77
done
[ -r "$lib" ] || exit 77
HCMPI_CUDA_LIB=$lib
HCMPI_DEVICE=cuda
DEVICE_P2P_ALLOC=cuda
export HCMPI_CUDA_LIB HCMPI_DEVICE DEVICE_P2P_ALLOC
fail() {
  echo "FAILED: $*"
  tail -40 "$log"
  exit 1
}
for path in staging ipc; do
  echo "== device_mpi_p2p, HCMPI_DEVICE_PATH=$path"
  HCMPI_DEVICE_PATH=$path HCMPI_LOG=debug "$run" -n 2 --timeout 120 \
    ./tests/device/device_mpi_p2p >"$log" 2>&1 || fail "run ($path)"
  grep -q "device_mpi_p2p: ok" "$log" || fail "no summary line ($path)"
  grep -q "cuda runtime loaded" "$log" || fail "cuda backend not loaded"
  grep -q "device path $path" "$log" || fail "$path path not used"
  [ "$path" = ipc ] || ! grep -q "device path ipc" "$log" ||
    fail "ipc ran although staging was forced"
done
echo "== device_coll"
"$run" -n 2 --timeout 120 ./tests/device/device_coll >"$log" 2>&1 ||
  fail "device_coll"
rm -f "$log"
echo "cuda_double: all passed"
exit 0
