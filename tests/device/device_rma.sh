#!/bin/sh
# device_rma (one-sided operations on device windows and device origin
# buffers) against the CANN test double on 1 and 2 ranks over shared
# memory and 2 over tcp and verbs (the fake-verbs double), then against the CUDA double (tests/fake-cuda)
# when it was built.  Both doubles fault on any host access to their
# device memory.  Skips (77) when the CANN double or the program was not
# built.
set -u
prog=./tests/device/device_rma
log=device_rma.run.log
. "${top_srcdir:-.}/tests/device/lib.sh"
runone() { # ranks, transports, what
  echo "== $1 ranks, HCMPI_TRANSPORTS=$2 ($3)"
  HCMPI_TRANSPORTS=$2 HCMPI_LOG=debug "$run" -n "$1" --timeout 120 "$prog" \
    >"$log" 2>&1 || fail "run on $1 ranks over $2 ($3)"
  grep -q "device_rma: $1 ranks OK" "$log" || fail "no summary ($1, $2, $3)"
  ! grep -q "device copy with rank" "$log" || fail "a device copy failed ($3)"
}
# shm: peers' device windows imported by IPC (dense puts and gets of
# device memory copy device to device); tcp without direct paths: every
# operation to a device window is applied by its target.
ipc() {
  grep -q "reaches rank 1's device window by ipc" "$log" ||
    fail "no device window imported ($1)"
}
runone 1 shm cann
runone 2 shm cann
ipc cann
HCMPI_RMA_DIRECT=0
export HCMPI_RMA_DIRECT
runone 2 tcp cann
unset HCMPI_RMA_DIRECT
# verbs (the fake-verbs double): host windows take RDMA, device windows
# must not (they register nothing, so their operations are messages).
verbs=$PWD/tests/fake-verbs/.libs/libibverbs.so
if nm -D "$verbs" 2>/dev/null | grep -q ' T ibv_get_device_list'; then
  FAKE_VERBS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hcmpi-fv.XXXXXX") || exit 1
  HCMPI_VERBS_LIB=$verbs
  export FAKE_VERBS_DIR HCMPI_VERBS_LIB
  runone 2 verbs cann
  rm -rf "$FAKE_VERBS_DIR"
fi
no_keys_left
cuda=$PWD/tests/fake-cuda/.libs/libcuda.so
if [ -r "$cuda" ]; then
  HCMPI_CUDA_LIB=$cuda
  HCMPI_DEVICE=cuda
  DEVICE_P2P_ALLOC=cuda
  export HCMPI_CUDA_LIB HCMPI_DEVICE DEVICE_P2P_ALLOC
  runone 2 shm cuda
  ipc cuda
  HCMPI_RMA_DIRECT=0
  export HCMPI_RMA_DIRECT
  runone 2 tcp cuda
fi
rm -f "$log"
exit 0
