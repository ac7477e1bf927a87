#!/bin/sh
# Runs tests/mpi/spin_crowded.c on 2 ranks taken for a crowded node
# (HCMPI_OVERSUBSCRIBED=1): a wait for a message sleeps after
# HCMPI_SPIN_CROWDED yielding polls (256 unset: under load that many
# yields may outlast the test's waits, so the default is not run), which
# wins over HCMPI_SPIN but is capped by it.  Small bounds where a sleep
# is expected.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
unset HCMPI_SPIN HCMPI_SPIN_PURE HCMPI_SPIN_CROWDED
export HCMPI_OVERSUBSCRIBED=1
HCMPI_SPIN=1000000000 HCMPI_SPIN_CROWDED=0 run_mpi_ok 2 spin_crowded sleeps
HCMPI_SPIN=1000000000 run_mpi_ok 2 spin_crowded yields
HCMPI_SPIN=16 HCMPI_SPIN_CROWDED=1000000000 run_mpi_ok 2 spin_crowded sleeps
HCMPI_SPIN_CROWDED=8 run_mpi_ok 2 spin_crowded sleeps
