#!/bin/sh
# device_rma (one-sided operations on device windows and device origin
# buffers) against the CANN test double on 1 and 2 ranks over shared
# memory and 2 over tcp, then against the CUDA double (tests/fake-cuda)
# when it was built.  Both doubles fault on any host access to their
# device memory.  Skips (77) when the CANN double or the program was not
# built.
set -u
prog=./tests/device/device_rma
log=device_rma.run.log
. "${top_srcdir:-.}/tests/device/lib.sh"
runone() { # ranks, transports, what
  echo "== $1 ranks, HCMPI_TRANSPORTS=$2 ($3)"
  HCMPI_TRANSPORTS=$2 "$run" -n "$1" --timeout 120 "$prog" >"$log" 2>&1 ||
    fail "run on $1 ranks over $2 ($3)"
  grep -q "device_rma: $1 ranks OK" "$log" || fail "no summary ($1, $2, $3)"
}
runone 1 shm cann
runone 2 shm cann
runone 2 tcp cann
no_keys_left
cuda=$PWD/tests/fake-cuda/.libs/libcuda.so
if [ -r "$cuda" ]; then
  HCMPI_CUDA_LIB=$cuda
  HCMPI_DEVICE=cuda
  DEVICE_P2P_ALLOC=cuda
  export HCMPI_CUDA_LIB HCMPI_DEVICE DEVICE_P2P_ALLOC
  runone 2 shm cuda
  runone 2 tcp cuda
fi
rm -f "$log"
exit 0
