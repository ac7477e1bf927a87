#!/bin/sh
# Runs engine_coll (every engine collective, checked against serial
# references) on 1, 2, 3, 4, 5 and 8 ranks: powers of two and not.
set -u
run=./tools/hcmpirun
prog=./tests/engine/engine_coll
[ -x "$run" ] && [ -x "$prog" ] || exit 77
for n in 1 2 3 4 5 8; do
  echo "== -n $n"
  "$run" -n "$n" --timeout 600 "$prog" || exit 1
done
# Every size through rendezvous and the shm backlog.
echo "== -n 3 HCMPI_EAGER_LIMIT=64 HCMPI_SHM_CELLS=4"
HCMPI_EAGER_LIMIT=64 HCMPI_SHM_CELLS=4 "$run" -n 3 --timeout 600 "$prog" ||
  exit 1
exit 0
