#!/bin/sh
# Runs tests/mpi/pingpong_sizes.c on 2 ranks; see that file for what it asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 pingpong_sizes
# Each processor profile's rendezvous (amd: streamed through the cells below
# 4 MiB; intel: CMA from 32 KiB), whichever machine runs the tests.
for profile in amd intel; do
    HCMPI_CPU_PROFILE=$profile run_mpi_ok 2 pingpong_sizes
done
# Every wait sleeps at once (HCMPI_SPIN=0): two ranks on a node with as many
# processors send with the compiler's fence only and sleep after
# membarrier, so a wake-up lost between the two would hang the run; and the
# same with sends that fence each message (HCMPI_SHM_LIGHT_FENCE=0).
for light in 1 0; do
    HCMPI_SPIN=0 HCMPI_SHM_LIGHT_FENCE=$light run_mpi_ok 2 pingpong_sizes
done
