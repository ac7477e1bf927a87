#!/bin/sh
# Runs tests/mpi/eager_busy.c on 2 ranks under the intel profile (4 KiB
# eager limit, HCMPI_SHM_EAGER_BUSY_MAX 16 KiB) with 16 KiB cells: a pair
# that reads every rendezvous with CMA (lone messages above 4 KiB are
# rendezvous); one that streams a stream's rendezvous through its cells but
# reads a lone one (the profile's HCMPI_SHM_LONE_READ_MIN, 4 KiB: lone
# messages above 4 KiB are rendezvous all the same); and one that would
# stream lone ones too (HCMPI_SHM_LONE_READ_MIN at HCMPI_SHM_CMA_MIN: eager up
# to a cell); each with a stream of messages behind an unfinished rendezvous.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
unset HCMPI_EAGER_LIMIT HCMPI_SHM_EAGER_BUSY_MAX HCMPI_SHM_LONE_READ_MIN HCMPI_SHM_CMA_MIN
export HCMPI_CPU_PROFILE=intel HCMPI_SHM_CELL_SIZE=16k
HCMPI_SHM_CMA_MIN=0 run_mpi_ok 2 eager_busy read
HCMPI_SHM_STREAM_RUNQ_MAX=100 run_mpi_ok 2 eager_busy read
HCMPI_SHM_STREAM_RUNQ_MAX=100 HCMPI_SHM_LONE_READ_MIN=32k \
    run_mpi_ok 2 eager_busy stream
