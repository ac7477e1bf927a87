#!/bin/sh
# Runs engine_p2p on 2 and 4 ranks, with CMA single-copy rendezvous and with
# CMA refused (pipelined DATA packets through the shm rings).
set -u
run=./tools/hcmpirun
prog=./tests/engine/engine_p2p
[ -x "$run" ] && [ -x "$prog" ] || exit 77
for n in 2 4; do
  for cma in 1 0; do
    echo "== -n $n HCMPI_SHM_CMA=$cma"
    HCMPI_SHM_CMA=$cma "$run" -n "$n" --timeout 300 "$prog" || exit 1
  done
done
# A tiny eager limit and small shm cells push every size through rendezvous
# and the per-peer backlog.
echo "== -n 2 HCMPI_EAGER_LIMIT=64 HCMPI_SHM_CELLS=4"
HCMPI_EAGER_LIMIT=64 HCMPI_SHM_CELLS=4 "$run" -n 2 --timeout 300 "$prog" ||
  exit 1
# THREAD_MULTIPLE: concurrent threads on one engine.
if [ -x ./tests/engine/engine_threads ]; then
  for cma in 1 0; do
    echo "== engine_threads -n 2 HCMPI_SHM_CMA=$cma"
    HCMPI_SHM_CMA=$cma "$run" -n 2 --timeout 300 ./tests/engine/engine_threads ||
      exit 1
  done
fi
exit 0
