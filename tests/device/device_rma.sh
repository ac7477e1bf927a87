#!/bin/sh
# device_rma (one-sided operations on device windows and device origin
# buffers; several ranks accumulating into one device word) against the
# CANN test double on 1, 2 and 3 ranks over shared memory and 2 over tcp
# and verbs (the fake-verbs double), then against the CUDA double
# (tests/fake-cuda) when it was built.  Both doubles fault on any host
# access to their device memory.  Skips (77) when the CANN double or the
# program was not built.
set -u
prog=./tests/device/device_rma
# Copies queued on a stream land 300 us after the call that queued them,
# so a completing call (flush, unlock, fence, complete) or a request that
# did not wait for hcmpi's queued device copies leaves old bytes where
# the program checks at once.
FAKE_CANN_ASYNC_LAG_US=300
FAKE_CUDA_ASYNC_LAG_US=300
export FAKE_CANN_ASYNC_LAG_US FAKE_CUDA_ASYNC_LAG_US
log=device_rma.run.log
. "${top_srcdir:-.}/tests/device/lib.sh"
runone() { # ranks, transports, what
  echo "== $1 ranks, HCMPI_TRANSPORTS=$2 ($3)"
  HCMPI_TRANSPORTS=$2 HCMPI_LOG=debug "$run" -n "$1" --timeout 120 "$prog" \
    >"$log" 2>&1 || fail "run on $1 ranks over $2 ($3)"
  grep -q "device_rma: $1 ranks OK" "$log" || fail "no summary ($1, $2, $3)"
  ! grep -q "device copy with rank" "$log" || fail "a device copy failed ($3)"
}
# shm: peers' device windows imported by IPC, and every operation towards
# one (puts and gets from host and device memory, accumulates under the
# target's atomic word) moves directly (DEVICE_RMA_PATHS=ipc: the program
# checks the performance counters); tcp without direct paths: every
# operation is an active message applied by its target.
ipc() {
  grep -q "reaches rank 1's device window by ipc" "$log" ||
    fail "no device window imported ($1)"
}
runone 1 shm cann
DEVICE_RMA_PATHS=ipc
export DEVICE_RMA_PATHS
runone 2 shm cann
ipc cann
runone 3 shm cann
ipc cann
HCMPI_RMA_DIRECT=0
DEVICE_RMA_PATHS=message
export HCMPI_RMA_DIRECT
runone 2 tcp cann
unset HCMPI_RMA_DIRECT DEVICE_RMA_PATHS
# verbs (the fake-verbs double): host windows take RDMA; CANN device
# memory has no dma-buf, so its windows are reached by IPC on this node.
verbs=$PWD/tests/fake-verbs/.libs/libibverbs.so
have_verbs=0
if nm -D "$verbs" 2>/dev/null | grep -q ' T ibv_get_device_list'; then
  have_verbs=1
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
  DEVICE_RMA_PATHS=ipc
  export HCMPI_CUDA_LIB HCMPI_DEVICE DEVICE_P2P_ALLOC DEVICE_RMA_PATHS
  runone 2 shm cuda
  ipc cuda
  runone 3 shm cuda
  ipc cuda
  # CUDA device windows over verbs: registered from their dma-buf, their
  # puts and gets are RDMA WRITE and READ (HCMPI_DEVICE_PATH=rdma asks
  # for RDMA rather than IPC on this one node).
  if [ "$have_verbs" = 1 ]; then
    FAKE_VERBS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hcmpi-fv.XXXXXX") || exit 1
    HCMPI_DEVICE_PATH=rdma
    DEVICE_RMA_PATHS=rdma
    export FAKE_VERBS_DIR HCMPI_DEVICE_PATH DEVICE_RMA_PATHS
    runone 2 verbs cuda
    unset HCMPI_DEVICE_PATH
    rm -rf "$FAKE_VERBS_DIR"
  fi
  HCMPI_RMA_DIRECT=0
  DEVICE_RMA_PATHS=message
  export HCMPI_RMA_DIRECT
  runone 2 tcp cuda
fi
rm -f "$log"
exit 0
