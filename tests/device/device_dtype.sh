#!/bin/sh
# device_dtype (a vector datatype on device buffers, point-to-point) on 2
# ranks against the CANN test double, under each device data path.  Skips
# (77) when the double or the program was not built.
set -u
run=./tools/hcmpirun
prog=./tests/device/device_dtype
lib=$PWD/tests/fake-cann/.libs/libascendcl.so
[ -x "$run" ] && [ -x "$prog" ] && [ -r "$lib" ] || exit 77
HCMPI_ACL_LIB=$lib
HCMPI_DEVICE=acl
export HCMPI_ACL_LIB HCMPI_DEVICE
log=device_dtype.run.log
for path in auto staging; do
  echo "== HCMPI_DEVICE_PATH=$path"
  HCMPI_DEVICE_PATH=$path "$run" -n 2 --timeout 300 "$prog" >"$log" 2>&1 &&
    grep -q "device_dtype: 2 ranks OK" "$log" || {
    echo "FAILED ($path)"
    tail -30 "$log"
    exit 1
  }
done
rm -f "$log"
exit 0
