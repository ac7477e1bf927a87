#!/bin/sh
# device_p2p on 2 ranks against the CANN test double, with each device data
# path forced in turn; the debug log shows which path really ran.  Skips
# (77) when the double or the programs were not built.
set -u
prog=./tests/device/device_p2p
log=device_p2p.run.log
. "${top_srcdir:-.}/tests/device/lib.sh"
runone() { # path, extra environment...
  path=$1
  shift
  echo "== HCMPI_DEVICE_PATH=$path $*"
  env HCMPI_DEVICE_PATH="$path" HCMPI_LOG=debug "$@" \
    "$run" -n 2 --timeout 300 "$prog" >"$log" 2>&1 || fail "run ($path)"
  grep -q "device_p2p: 2 ranks" "$log" || fail "no summary line ($path)"
}
runone staging
grep -q "device path staging" "$log" || fail "staging path not used"
grep -q "device path ipc" "$log" && fail "ipc used although staging forced"
runone ipc
grep -q "device path ipc" "$log" || fail "ipc path not used"
runone auto
grep -q "device path ipc" "$log" || fail "auto did not pick ipc"
# Small shm cells and a small staging chunk: many DATA fragments, full
# rings (HC_ERR_AGAIN) in the middle of the pipeline.
runone staging HCMPI_SHM_CELLS=4 HCMPI_DEVICE_CHUNK=65536 HCMPI_DEVICE_SLOTS=2
runone auto HCMPI_SHM_CMA=0
grep -q "device path hccl" "$log" && fail "auto used hccl on one node"
runone hccl
grep -q "device path hccl" "$log" || fail "hccl path not used"
grep -q "HcclComm with rank 0 ready" "$log" || fail "no HcclComm"
grep -q "device path ipc" "$log" && fail "ipc used although hccl forced"
# The lower rank receives first: the root info rides its CTS.
runone hccl DEVICE_P2P_REVERSE=1
grep -q "device path hccl" "$log" || fail "hccl path not used (reverse)"
# Cells too small for the root info: hccl is refused, staging serves.
runone hccl HCMPI_SHM_CELL_SIZE=2048
grep -q "device path hccl" "$log" && fail "hccl used without room for root"
grep -q "device path staging" "$log" || fail "no staging fallback"
no_keys_left
rm -f "$log"
exit 0
