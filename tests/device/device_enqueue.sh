#!/bin/sh
# device_enqueue (MPIX streams and enqueue operations) on 2 ranks, over the
# CANN double's aclrtStream and then the CUDA double's cudaStream_t.  Skips
# (77) when the doubles or the program were not built.
set -u
prog=./tests/device/device_enqueue
log=device_enqueue.run.log
. "${top_srcdir:-.}/tests/device/lib.sh"
cuda=$PWD/tests/fake-cuda/.libs/libcuda.so
[ -r "$cuda" ] || exit 77
echo "== aclrtStream (CANN double)"
"$run" -n 2 --timeout 120 "$prog" >"$log" 2>&1 || fail "run (acl)"
grep -q "device_enqueue: 2 ranks OK (aclrtStream)" "$log" ||
  fail "no summary (acl)"
echo "== cudaStream_t (CUDA double)"
HCMPI_DEVICE=cuda HCMPI_CUDA_LIB=$cuda DEVICE_P2P_ALLOC=cuda \
  "$run" -n 2 --timeout 120 "$prog" >"$log" 2>&1 || fail "run (cuda)"
grep -q "device_enqueue: 2 ranks OK (cudaStream_t)" "$log" ||
  fail "no summary (cuda)"
no_keys_left
rm -f "$log"
exit 0
