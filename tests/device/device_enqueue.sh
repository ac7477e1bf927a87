#!/bin/sh
# device_enqueue (MPIX streams and enqueue operations) on 2 ranks, over the
# CANN double's aclrtStream and then the CUDA double's cudaStream_t, where
# streams wait on a flag (aclrtValueWait, cuStreamWaitValue32) while the
# operations run (device buffers handed to the engine as they are; over
# HCCL with HCMPI_DEVICE_PATH=hccl, whose HcclSend/HcclRecv count must
# cover every device message; staged with HCMPI_STREAM_DIRECT=0, the
# default on CUDA, whose direct form must end in the CUDA double's report
# of the hang a real driver has there), and
# again over both with HCMPI_STREAM_WAIT=hostfn (host functions run them
# whole); then
# a peer killed while a receive from it is enqueued (the stream goes on,
# the next enqueue call reports MPIX_ERR_PROC_FAILED), and one killed
# just after it started a device send to an enqueued receive over HCCL
# (the stream goes on once HCCL gives up, an error is reported); then
# examples/pipeline --enqueue on 3 ranks over each (and over HCCL), whose
# enqueued form must take no host synchronisation in any micro-batch.
# Skips (77) when the doubles or the programs were not built.
set -u
prog=./tests/device/device_enqueue
log=device_enqueue.run.log
. "${top_srcdir:-.}/tests/device/lib.sh"
cuda=$PWD/tests/fake-cuda/.libs/libcuda.so
[ -r "$cuda" ] && [ -x ./examples/pipeline ] || exit 77
echo "== aclrtStream (CANN double)"
"$run" -n 2 --timeout 120 "$prog" >"$log" 2>&1 || fail "run (acl)"
grep -q "device_enqueue: 2 ranks OK (aclrtStream)" "$log" ||
  fail "no summary (acl)"
cuda_run() { # what, then env settings
  what=$1
  shift
  env "$@" HCMPI_DEVICE=cuda HCMPI_CUDA_LIB="$cuda" DEVICE_P2P_ALLOC=cuda \
    "$run" -n 2 --timeout 120 "$prog" >"$log" 2>&1 || fail "run (cuda, $what)"
  grep -q "device_enqueue: 2 ranks OK (cudaStream_t)" "$log" ||
    fail "no summary (cuda, $what)"
}
echo "== cudaStream_t (CUDA double)"
cuda_run staged
echo "== cudaStream_t (CUDA double), device buffers handed to the engine: must hang"
# What HCMPI_STREAM_DIRECT=auto stages on CUDA for: closing a peer's IPC
# import, cuIpcCloseMemHandle waits for the stream held on an enqueued
# receive's flag while it blocks the driver call that leads to raising
# the flag (an H200 hung so).  The double reports that wait and aborts.
env HCMPI_STREAM_DIRECT=1 HCMPI_DEVICE=cuda HCMPI_CUDA_LIB="$cuda" \
  DEVICE_P2P_ALLOC=cuda timeout -k 5 90 "$run" -n 2 --timeout 60 "$prog" \
  >"$log" 2>&1 && fail "direct form on the CUDA double did not hang"
grep -q "cuIpcCloseMemHandle waits for stream .* held on a value wait: a real driver would hang here" "$log" ||
  fail "direct form on the CUDA double: no report of the close's hang"
echo "== aclrtStream, device messages through HCCL (HcclSend/HcclRecv)"
HCMPI_DEVICE_PATH=hccl DEVICE_ENQUEUE_HCCL=1 "$run" -n 2 --timeout 120 \
  "$prog" >"$log" 2>&1 || fail "run (acl, hccl)"
grep -q "device_enqueue: 2 ranks OK (aclrtStream)" "$log" ||
  fail "no summary (acl, hccl)"
[ "$(grep -c "HcclSend/HcclRecv for" "$log")" -eq 2 ] ||
  fail "no HCCL count (acl, hccl)"
echo "== aclrtStream, device data staged by the enqueue itself"
HCMPI_STREAM_DIRECT=0 "$run" -n 2 --timeout 120 "$prog" >"$log" 2>&1 ||
  fail "run (acl, staged)"
grep -q "device_enqueue: 2 ranks OK (aclrtStream)" "$log" ||
  fail "no summary (acl, staged)"
echo "== aclrtStream, host functions run the operations"
HCMPI_STREAM_WAIT=hostfn "$run" -n 2 --timeout 120 "$prog" >"$log" 2>&1 ||
  fail "run (acl, hostfn)"
grep -q "device_enqueue: 2 ranks OK (aclrtStream)" "$log" ||
  fail "no summary (acl, hostfn)"
echo "== cudaStream_t, host functions run the operations"
cuda_run hostfn HCMPI_STREAM_WAIT=hostfn
echo "== cudaStream_t, as on a real GPU (a copy for the kernel, no counts)"
cuda_run "real form" DEVICE_ENQUEUE_AS_REAL=1
killed() { # runtime name, then env settings
  name=$1
  shift
  echo "== a peer killed with operations enqueued ($name)"
  env "$@" timeout -k 5 90 "$run" --no-kill-on-failure -n 2 --timeout 60 \
    "$prog" killed >"$log" 2>&1
  [ $? -ne 124 ] || fail "killed peer: hung ($name)"
  grep -q "the stream reported MPIX_ERR_PROC_FAILED" "$log" ||
    fail "killed peer: no MPIX_ERR_PROC_FAILED ($name)"
}
killed acl
killed "acl, hccl" HCMPI_DEVICE_PATH=hccl
killed cuda HCMPI_DEVICE=cuda HCMPI_CUDA_LIB="$cuda" DEVICE_P2P_ALLOC=cuda
echo "== a peer killed while its device send to an enqueued receive is under way (hccl)"
# The dead rank leaves the HCCL double's rendezvous file behind: in a
# directory of its own, removed after.
FAKE_CANN_DIR=$FAKE_CANN_DIR/killed HCMPI_DEVICE_PATH=hccl \
  HCCL_EXEC_TIMEOUT=5 HCCL_CONNECT_TIMEOUT=5 \
  timeout -k 5 90 "$run" --no-kill-on-failure -n 2 --timeout 60 \
  "$prog" killed-sending >"$log" 2>&1
[ $? -ne 124 ] || fail "killed sender: hung"
rm -rf "$FAKE_CANN_DIR/killed"
grep -q "the stream reported error class" "$log" ||
  fail "killed sender: no error reported"
pipeline() { # device kind, then env settings
  kind=$1
  shift
  echo "== examples/pipeline --device $kind --enqueue ($*)"
  env "$@" "$run" -n 3 --timeout 120 ./examples/pipeline --device "$kind" \
    --enqueue 8 4096 >"$log" 2>&1 || fail "pipeline ($kind: $*)"
  grep -q "synchronised: .* per micro-batch: OK" "$log" ||
    fail "synchronised pipeline wrong ($kind: $*)"
  grep -q "enqueued: *0.00 host syncs per micro-batch, .*: OK" "$log" ||
    fail "enqueued pipeline wrong or synchronised the host ($kind: $*)"
}
pipeline npu HCMPI_DEVICE=acl
pipeline npu HCMPI_DEVICE=acl HCMPI_DEVICE_PATH=hccl
pipeline cuda HCMPI_DEVICE=cuda HCMPI_CUDA_LIB="$cuda"
no_keys_left
rm -f "$log"
exit 0
