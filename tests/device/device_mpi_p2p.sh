#!/bin/sh
# device_mpi_p2p (MPI point-to-point on device buffers, standard API) on 2
# ranks against the CANN test doubles, with each device data path forced
# in turn; the debug log shows which path really ran.  Skips (77) when the
# doubles or the program were not built.
set -u
prog=./tests/device/device_mpi_p2p
log=device_mpi_p2p.run.log
. "${top_srcdir:-.}/tests/device/lib.sh"
for path in staging ipc hccl auto; do
  echo "== HCMPI_DEVICE_PATH=$path"
  HCMPI_DEVICE_PATH=$path HCMPI_LOG=debug "$run" -n 2 --timeout 120 "$prog" \
    >"$log" 2>&1 || fail "run ($path)"
  grep -q "device_mpi_p2p: ok" "$log" || fail "no summary line ($path)"
  # Device-to-host and host-to-device messages always stage.
  grep -q "device path staging" "$log" || fail "staging not used ($path)"
  case $path in
  staging)
    grep -q "device path \(ipc\|hccl\)" "$log" && fail "not staging only" ;;
  auto) grep -q "device path ipc" "$log" || fail "auto did not pick ipc" ;;
  *) grep -q "device path $path" "$log" || fail "$path path not used" ;;
  esac
done
echo "== a failing copy into a device receive buffer"
DEVICE_MPI_P2P_FAIL=1 FAKE_CANN_FAIL_H2D=1 "$run" -n 2 --timeout 60 "$prog" \
  >"$log" 2>&1 || fail "run (copy failure)"
grep -q "copy failure reported: ok" "$log" || fail "no summary (copy failure)"
no_keys_left
rm -f "$log"
exit 0
