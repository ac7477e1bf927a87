#!/bin/sh
# device_io (MPI-IO from and into device buffers) on 2 ranks against the
# CANN test double.  Skips (77) when the double or the program was not
# built.
set -u
run=./tools/hcmpirun
prog=./tests/device/device_io
lib=$PWD/tests/fake-cann/.libs/libascendcl.so
[ -x "$run" ] && [ -x "$prog" ] && [ -r "$lib" ] || exit 77
HCMPI_ACL_LIB=$lib
HCMPI_DEVICE=acl
export HCMPI_ACL_LIB HCMPI_DEVICE
log=device_io.run.log
"$run" -n 2 --timeout 300 "$prog" >"$log" 2>&1 &&
  grep -q "device_io: 2 ranks OK" "$log" || {
  echo "FAILED"
  tail -30 "$log"
  exit 1
}
rm -f "$log"
exit 0
