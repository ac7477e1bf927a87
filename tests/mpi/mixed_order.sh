#!/bin/sh
# Runs tests/mpi/mixed_order.c on 2 ranks, and with queues of 2 slots (the
# fast box then falls back to the ring and pool far more often); see that
# file for what it asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 mixed_order
export HCMPI_SHM_CELLS=2
run_mpi_ok 2 mixed_order
