#!/bin/sh
# device_coll (MPI collectives on device buffers) against the CANN test
# double: 1 to 4 ranks with the automatic data path, then 3 ranks with each
# device data path forced in turn (HCMPI_HCCL_LIB pointing at the HCCL
# double, so hccl is really available).  Skips (77) when the double or the
# program was not built.
set -u
prog=./tests/device/device_coll
log=device_coll.run.log
. "${top_srcdir:-.}/tests/device/lib.sh"
runone() { # ranks, path
  echo "== $1 ranks, HCMPI_DEVICE_PATH=$2"
  HCMPI_DEVICE_PATH=$2 "$run" -n "$1" --timeout 300 "$prog" >"$log" 2>&1 ||
    fail "run on $1 ranks, path $2"
  grep -q "device_coll: $1 ranks OK" "$log" || fail "no summary ($1, $2)"
}
for n in 1 2 3 4; do
  runone $n auto
done
for path in staging ipc hccl; do
  runone 3 $path
done
no_keys_left
rm -f "$log"
exit 0
