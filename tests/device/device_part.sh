#!/bin/sh
# device_part (partitioned point-to-point on device buffers, standard API)
# on 2 ranks against the CANN test doubles with each device data path
# forced in turn (the debug log shows which ran), then with the CUDA
# double's memory.  Skips (77) when the doubles or the program were not
# built.
set -u
prog=./tests/device/device_part
log=device_part.run.log
. "${top_srcdir:-.}/tests/device/lib.sh"
for path in staging ipc hccl auto; do
  echo "== HCMPI_DEVICE_PATH=$path"
  HCMPI_DEVICE_PATH=$path HCMPI_LOG=debug "$run" -n 2 --timeout 120 "$prog" \
    >"$log" 2>&1 || fail "run ($path)"
  grep -q "device_part: ok" "$log" || fail "no summary line ($path)"
  case $path in
  auto) grep -q "device path ipc" "$log" || fail "auto did not pick ipc" ;;
  *) grep -q "device path $path" "$log" || fail "$path path not used" ;;
  esac
done
no_keys_left
cuda=$PWD/tests/fake-cuda/.libs/libcuda.so
if [ -r "$cuda" ]; then
  echo "== CUDA double"
  HCMPI_CUDA_LIB=$cuda HCMPI_DEVICE=cuda DEVICE_P2P_ALLOC=cuda \
    "$run" -n 2 --timeout 120 "$prog" >"$log" 2>&1 || fail "run (cuda)"
  grep -q "device_part: ok" "$log" || fail "no summary line (cuda)"
fi
rm -f "$log"
exit 0
