#!/bin/sh
# Per-micro-batch time and host synchronisations of examples/pipeline with
# and without --enqueue (stream-ordered MPI), on the CANN and CUDA test
# doubles, for 2, 3 and 4 stages; prints a markdown table.  The doubles'
# "kernels" are host threads, so the times say how much host waiting the
# enqueued form removes, not what a device would gain.  Run from the build
# directory after make check built the doubles:
#   sh ../bench/pipeline_enqueue.sh [micro-batches] [int32 per activation]
set -u
mbs=${1:-16}
n=${2:-65536}
acl=$PWD/tests/fake-cann/.libs/libascendcl.so
cuda=$PWD/tests/fake-cuda/.libs/libcuda.so
[ -x ./examples/pipeline ] && [ -r "$acl" ] && [ -r "$cuda" ] ||
  { echo "build hcmpi and make check first (examples, doubles)"; exit 77; }
FAKE_CANN_DIR=/dev/shm/fake-cann-$(id -u)-bench-$$
export FAKE_CANN_DIR
echo "| runtime | stages | synchronised: syncs/mb | us/mb | enqueued: syncs/mb | us/mb |"
echo "|---|---|---|---|---|---|"
for kind in npu cuda; do
  for stages in 2 3 4; do
    out=$(env HCMPI_ACL_LIB="$acl" HCMPI_CUDA_LIB="$cuda" \
      HCMPI_DEVICE=$([ $kind = npu ] && echo acl || echo cuda) \
      ./tools/hcmpirun -n $stages --timeout 300 ./examples/pipeline \
      --device $kind --enqueue "$mbs" "$n" 2>&1) ||
      { echo "$out"; exit 1; }
    echo "$out" | awk -v k=$kind -v s=$stages '
      /synchronised:/ { sa = $2; ta = $7 }
      /enqueued:/ { sb = $2; tb = $7 }
      END { printf "| %s double | %d | %s | %s | %s | %s |\n", k, s, sa, ta, sb, tb }'
  done
done
rm -rf "$FAKE_CANN_DIR"
