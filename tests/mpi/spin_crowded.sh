#!/bin/sh
# Runs tests/mpi/spin_crowded.c on 2 ranks taken for a crowded node
# (HCMPI_OVERSUBSCRIBED=1): a wait for a message sleeps after
# HCMPI_SPIN_CROWDED yielding polls, which wins over HCMPI_SPIN, is capped
# by the crowded default of HCMPI_SPIN (2000), and is the processor
# profile's when unset (64 on AMD, 256 elsewhere: both run out in 50 ms).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
unset HCMPI_SPIN HCMPI_SPIN_PURE HCMPI_SPIN_CROWDED
export HCMPI_OVERSUBSCRIBED=1
HCMPI_SPIN=1000000000 HCMPI_SPIN_CROWDED=0 run_mpi_ok 2 spin_crowded sleeps
HCMPI_SPIN=1000000000 run_mpi_ok 2 spin_crowded yields
HCMPI_SPIN_CROWDED=1000000000 run_mpi_ok 2 spin_crowded sleeps
for profile in amd intel generic; do
    HCMPI_CPU_PROFILE=$profile run_mpi_ok 2 spin_crowded sleeps
done
