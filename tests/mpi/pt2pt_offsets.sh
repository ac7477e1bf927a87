#!/bin/sh
# Runs tests/mpi/pt2pt_offsets.c on 2 ranks; see that file for what it
# asserts.  Once as the machine's profile does, once with CMA off (every
# rendezvous streamed through the cells) and once on the amd profile, whose
# payload copies from 2 KiB take hc_copy_host's vector loop on AMD; then
# as a far pair filling its cells with non-temporal stores.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 pt2pt_offsets
HCMPI_SHM_CMA=0 run_mpi_ok 2 pt2pt_offsets
HCMPI_CPU_PROFILE=amd run_mpi_ok 2 pt2pt_offsets
# A far pair whose sender fills every cell past its cache (non-temporal
# stores from odd offsets, heads and tails plain), with and without CMA.
HCMPI_CPU_PROFILE=amd HCMPI_SHM_PLACEMENT=far HCMPI_SHM_FAR_CELL_STREAM_MIN=1 \
    run_mpi_ok 2 pt2pt_offsets
HCMPI_CPU_PROFILE=amd HCMPI_SHM_PLACEMENT=far HCMPI_SHM_FAR_CELL_STREAM_MIN=1 \
    HCMPI_SHM_CMA=0 run_mpi_ok 2 pt2pt_offsets
