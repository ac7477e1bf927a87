#!/bin/sh
# Runs tests/mpi/pingpong_sizes.c on 2 ranks; see that file for what it asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 pingpong_sizes
# Each processor profile's rendezvous (amd: streamed through the cells below
# 4 MiB; intel: CMA from 32 KiB), whichever machine runs the tests.
for profile in amd intel; do
    HCMPI_CPU_PROFILE=$profile run_mpi_ok 2 pingpong_sizes
done
