#!/bin/sh
# rma_target_waits.c: passive-target accumulates to ranks that wait in
# MPI_Barrier meanwhile, on 2, 3 and 4 ranks.  The targets sleep at once
# when idle (HCMPI_SPIN=0) and the engine's sleep is a minute long (its
# maximum, HCMPI_WAIT_MS), so only a wake-up by the origin's messages lets
# a target in the barrier serve them before the launcher's timeout: its
# blocking collective must sleep where messages wake it.  Before that fix
# each operation waited out the sleep.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 2 3 4; do
    HCMPI_SPIN=0 HCMPI_WAIT_MS=60000 run_mpi_ok $n rma_target_waits
done
HCMPI_WAIT_MS=60000 run_mpi_ok 3 rma_target_waits
echo "rma_target_waits: all cases passed"
