#!/bin/sh
# device_p2p with cudaMalloc'd (cuMemAlloc) buffers on 2 ranks sharing one
# NVIDIA GPU, through hcmpi's cuda backend: the ipc and staging paths in
# turn, each printing its wall time; then device_coll and device_dtype.  Exits 77 (skip) without a GPU and
# libcuda.so.1.  Run from the build directory (make check does).
set -u
run=./tools/hcmpirun
prog=./tests/device/device_p2p
[ -x "$run" ] && [ -x "$prog" ] || exit 77
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 ||
  { echo "no NVIDIA GPU: skipped"; exit 77; }
ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' ||
  { echo "no libcuda.so.1: skipped"; exit 77; }
HCMPI_DEVICE=cuda
DEVICE_P2P_ALLOC=cuda
export HCMPI_DEVICE DEVICE_P2P_ALLOC
status=0
for path in ipc staging; do
  start=$(date +%s.%N)
  if HCMPI_DEVICE_PATH=$path "$run" -n 2 --timeout 600 "$prog"; then
    result=ok
  else
    result=FAILED
    status=1
  fi
  end=$(date +%s.%N)
  echo "cuda path $path: $result ($(echo "$end - $start" | bc) s)"
done
# Collectives and a vector datatype on GPU buffers (staged by the face).
for prog in device_coll device_dtype; do
  if "$run" -n 2 --timeout 600 "./tests/device/$prog"; then
    echo "cuda $prog: ok"
  else
    echo "cuda $prog: FAILED"
    status=1
  fi
done
exit $status
