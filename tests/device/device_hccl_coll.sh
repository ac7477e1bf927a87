#!/bin/sh
# device_hccl_coll (blocking, non-blocking and persistent collectives on
# device buffers as HCCL's own collectives) against the CANN test doubles:
# 2 and 3 ranks, then 3 ranks with HCMPI_COLL_HCCL=0 (everything staged, no
# HCCL call).  Every HCCL comm's rendezvous file must be gone at the end.
# Skips (77) when a double or the program was not built.
set -u
prog=./tests/device/device_hccl_coll
log=device_hccl_coll.run.log
. "${top_srcdir:-.}/tests/device/lib.sh"
runone() { # ranks, HCMPI_COLL_HCCL
  echo "== $1 ranks, HCMPI_COLL_HCCL=$2"
  HCMPI_COLL_HCCL=$2 "$run" -n "$1" --timeout 120 "$prog" >"$log" 2>&1 ||
    fail "run on $1 ranks, HCMPI_COLL_HCCL=$2"
  grep -q "device_hccl_coll: $1 ranks OK" "$log" || fail "no summary ($1, $2)"
}
runone 2 1
runone 3 1
runone 3 0
no_keys_left
rm -f "$log"
exit 0
