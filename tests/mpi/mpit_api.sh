#!/bin/sh
# Runs tests/mpi/mpit_api.c on 1 rank, with a few HCMPI_* variables set whose
# values the control variables must read back.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
HCMPI_SHM_CELLS=48 HCMPI_TCP_SENDQ=3m HCMPI_DEVICE_PATH=staging \
  HCMPI_ASYNC_PROGRESS=0 HCMPI_CPU_PROFILE=intel
export HCMPI_SHM_CELLS HCMPI_TCP_SENDQ HCMPI_DEVICE_PATH HCMPI_ASYNC_PROGRESS \
  HCMPI_CPU_PROFILE
run_mpi_ok 1 mpit_api
