#!/bin/sh
# Accessor messages on 2 ranks: CMA on and off (an accessor never uses a
# get, but a plain peer may), a tiny eager limit with small shm cells
# (everything rendezvous, backlogged fragments), and tcp when built.
set -u
run=./tools/hcmpirun
prog=./tests/engine/engine_acc
[ -x "$run" ] && [ -x "$prog" ] || exit 77
for cma in 1 0; do
  echo "== HCMPI_SHM_CMA=$cma"
  HCMPI_SHM_CMA=$cma "$run" -n 2 --timeout 300 "$prog" || exit 1
done
echo "== HCMPI_EAGER_LIMIT=64 HCMPI_SHM_CELLS=4"
HCMPI_EAGER_LIMIT=64 HCMPI_SHM_CELLS=4 "$run" -n 2 --timeout 300 "$prog" ||
  exit 1
echo "== HCMPI_TRANSPORTS=tcp"
HCMPI_TRANSPORTS=tcp "$run" -n 2 --timeout 300 "$prog" || exit 1
echo "== 3 ranks (rank 2 idle)"
"$run" -n 3 --timeout 300 "$prog" || exit 1
exit 0
