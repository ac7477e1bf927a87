#!/bin/sh
# hcmpi on a real NVIDIA GPU, 2 ranks sharing it: checks that the cuda
# backend is compiled in (hcmpi_info lists it), runs device_p2p,
# device_mpi_p2p and cuda_bw with cuMemAlloc buffers with the ipc and the
# staging path forced (HCMPI_LOG=debug shows which path ran), printing each
# path's bandwidth next to cuMemcpy's measured in the same run, then
# device_coll, device_dtype, device_io and device_part on GPU buffers,
# device_enqueue (MPIX streams and enqueued operations on cudaStream_t
# streams), and device_rma (device windows imported by IPC on 2 and 3
# ranks, and as active messages over tcp): every program the CUDA double
# runs in cuda_double.sh, device_rma.sh and device_part.sh.  cuda_bw also proves host-only traffic left
# the GPU's primary context inactive.  Exits 77 (skip) at once without an
# NVIDIA GPU and libcuda.so.1.  make check runs it in the build directory;
# run anywhere else (tests/device/cuda.sh in the source tree, on a GPU
# machine) it first builds hcmpi and the programs in a scratch directory.
set -u
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 ||
  { echo "no NVIDIA GPU: skipped"; exit 77; }
ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' ||
  { echo "no libcuda.so.1: skipped"; exit 77; }
progs="tests/device/device_p2p tests/device/cuda_bw tests/device/device_coll
  tests/device/device_dtype tests/device/device_enqueue
  tests/device/device_mpi_p2p tests/device/device_io tests/device/device_part
  tests/device/device_rma"
if [ ! -x ./tools/hcmpirun ]; then
  src=$(cd "$(dirname "$0")/../.." && pwd)
  build=${TMPDIR:-/tmp}/hcmpi-cuda-build
  echo "building hcmpi in $build"
  # shellcheck disable=SC2086 # $progs is a list of targets
  mkdir -p "$build" && cd "$build" &&
    { [ -f Makefile ] || "$src/configure" >configure.log 2>&1; } &&
    make -j"$(nproc)" >make.log 2>&1 && make $progs >>make.log 2>&1 ||
    { echo "FAILED: build (see $build)"; exit 1; }
fi
run=./tools/hcmpirun
for p in $progs; do
  [ -x "$p" ] || exit 77
done
./tools/hcmpi_info 2>&1 | grep -q '^ *cuda ' ||
  { echo "FAILED: hcmpi_info lists no cuda backend"; exit 1; }
HCMPI_DEVICE=cuda
DEVICE_P2P_ALLOC=cuda
export HCMPI_DEVICE DEVICE_P2P_ALLOC
log=cuda.run.log
status=0
note() { # what, result
  echo "cuda $1: $2"
  [ "$2" = ok ] || { status=1; tail -30 "$log"; }
}
for path in ipc staging; do
  for prog in device_p2p device_mpi_p2p cuda_bw; do
    if HCMPI_DEVICE_PATH=$path HCMPI_LOG=debug \
      "$run" -n 2 --timeout 600 "./tests/device/$prog" >"$log" 2>&1 &&
      grep -q "device path $path" "$log"; then
      note "$prog, path $path" ok
    else
      note "$prog, path $path" "FAILED (or another path ran)"
    fi
    grep "^cuda_bw:" "$log"
  done
done
# Collectives, a vector datatype, file I/O and partitioned requests on GPU
# buffers.
for prog in device_coll device_dtype device_enqueue device_io device_part; do
  if "$run" -n 2 --timeout 600 "./tests/device/$prog" >"$log" 2>&1; then
    note "$prog" ok
  else
    note "$prog" FAILED
  fi
done
# One-sided: peers' device windows imported by IPC (the program checks the
# performance counters say every operation moved directly), then every
# operation as an active message over tcp.
rma() { # ranks, transports, what
  if HCMPI_TRANSPORTS=$2 HCMPI_LOG=debug "$run" -n "$1" --timeout 300 \
    ./tests/device/device_rma >"$log" 2>&1 &&
    grep -q "device_rma: $1 ranks OK" "$log" &&
    ! grep -q "device copy with rank" "$log" && { [ "$3" != ipc ] ||
    grep -q "reaches rank 1's device window by ipc" "$log"; }; then
    note "device_rma, $1 ranks over $2 ($3)" ok
  else
    note "device_rma, $1 ranks over $2 ($3)" FAILED
  fi
}
DEVICE_RMA_PATHS=ipc
export DEVICE_RMA_PATHS
rma 2 shm ipc
rma 3 shm ipc
HCMPI_RMA_DIRECT=0
DEVICE_RMA_PATHS=message
export HCMPI_RMA_DIRECT
rma 2 tcp message
rm -f "$log"
exit $status
