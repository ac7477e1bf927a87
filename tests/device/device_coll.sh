#!/bin/sh
# device_coll (MPI collectives on device buffers) on 1 to 4 ranks against
# the CANN test double.  Skips (77) when the double or the program was not
# built.
set -u
run=./tools/hcmpirun
prog=./tests/device/device_coll
lib=$PWD/tests/fake-cann/.libs/libascendcl.so
[ -x "$run" ] && [ -x "$prog" ] && [ -r "$lib" ] || exit 77
HCMPI_ACL_LIB=$lib
HCMPI_DEVICE=acl
export HCMPI_ACL_LIB HCMPI_DEVICE
log=device_coll.run.log
for n in 1 2 3 4; do
  echo "== $n ranks"
  "$run" -n $n --timeout 300 "$prog" >"$log" 2>&1 || {
    echo "FAILED on $n ranks"
    tail -30 "$log"
    exit 1
  }
  grep -q "device_coll: $n ranks OK" "$log" || {
    echo "no summary line on $n ranks"
    tail -30 "$log"
    exit 1
  }
done
leftover=$(ls /dev/shm/fake-cann-"$(id -u)" 2>/dev/null | wc -l)
[ "$leftover" -eq 0 ] || { echo "$leftover IPC keys left in /dev/shm"; exit 1; }
rm -f "$log"
exit 0
