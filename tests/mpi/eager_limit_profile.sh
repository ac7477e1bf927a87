#!/bin/sh
# Runs tests/mpi/eager_limit_profile.c on 2 ranks: between ranks of a node
# the eager limit is the processor profile's (intel 4 KiB, amd 16 KiB)
# while HCMPI_EAGER_LIMIT is unset, and a set one wins.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
unset HCMPI_EAGER_LIMIT
# The busy pair's eager (eager_busy.sh) off: the profile's limit alone.
HCMPI_CPU_PROFILE=intel HCMPI_SHM_EAGER_BUSY_MAX=0 run_mpi_ok 2 eager_limit_profile 4096
# Cells of 32 KiB, so a 16 KiB packet and its header fit one.
HCMPI_CPU_PROFILE=amd HCMPI_SHM_CELL_SIZE=32k run_mpi_ok 2 eager_limit_profile 16384
HCMPI_CPU_PROFILE=intel HCMPI_EAGER_LIMIT=12288 run_mpi_ok 2 eager_limit_profile 12288
