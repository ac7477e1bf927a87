#!/bin/sh
# The cuda backend (src/device/cuda.c) without a GPU: device_mpi_p2p,
# device_p2p (the native API), device_coll, device_dtype and device_io on 2 ranks
# with their buffers from tests/fake-cuda, a TEST DOUBLE of libcuda.so.1
# whose device memory faults on any host access.  The point-to-point
# programs run with the staging and the ipc path forced; the debug log
# shows which path really ran.  Skips (77) when the double or the
# programs were not built.
set -u
run=./tools/hcmpirun
lib=$PWD/tests/fake-cuda/.libs/libcuda.so
log=cuda_double.run.log
progs="device_mpi_p2p device_p2p device_coll device_dtype device_io"
for p in $progs; do
  [ -x "./tests/device/$p" ] || exit 77
done
[ -x "$run" ] && [ -r "$lib" ] || exit 77
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
  for prog in device_mpi_p2p device_p2p; do
    echo "== $prog, HCMPI_DEVICE_PATH=$path"
    HCMPI_DEVICE_PATH=$path HCMPI_LOG=debug "$run" -n 2 --timeout 120 \
      "./tests/device/$prog" >"$log" 2>&1 || fail "run $prog ($path)"
    grep -q "$prog: \(ok\|2 ranks\)" "$log" || fail "no summary ($prog, $path)"
    grep -q "cuda runtime loaded" "$log" || fail "cuda backend not loaded"
    grep -q "device path $path" "$log" || fail "$path path not used ($prog)"
    [ "$path" = ipc ] || ! grep -q "device path ipc" "$log" ||
      fail "ipc ran although staging was forced ($prog)"
  done
done
for prog in device_coll device_dtype device_io; do
  echo "== $prog"
  "$run" -n 2 --timeout 120 "./tests/device/$prog" >"$log" 2>&1 ||
    fail "$prog"
  grep -q "$prog: 2 ranks OK" "$log" || fail "no summary ($prog)"
done
rm -f "$log"
echo "cuda_double: all passed"
exit 0
