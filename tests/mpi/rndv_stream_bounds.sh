#!/bin/sh
# tests/mpi/rndv_stream_bounds.c on 2 ranks: with the default shm
# thresholds (rendezvous below HCMPI_SHM_CMA_MIN stream through the send
# pools, larger ones are read with CMA); with small cells and a pool of 8
# (many fragments, the sender waiting for cells) and the switch at 64 KiB;
# with every rendezvous read by CMA; and with every rank counted as
# waiting for a core (HCMPI_SHM_STREAM_RUNQ_MAX=0), where every rendezvous
# is read too, which hcmpi's counters confirm; and with every rendezvous
# read and every read from 256 KiB up shared with the sender (chunks of
# 256 KiB written by it from the front, read by the receiver from the
# back), whatever the load (HCMPI_SHM_STREAM_RUNQ_MAX=100), also with
# rings of 2 slots, where asks for help find the ring full and the
# receiver reads alone.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 rndv_stream_bounds
(HCMPI_SHM_CELL_SIZE=4096 HCMPI_SHM_CELLS=8 HCMPI_SHM_CMA_MIN=65536 &&
    export HCMPI_SHM_CELL_SIZE HCMPI_SHM_CELLS HCMPI_SHM_CMA_MIN &&
    run_mpi_ok 2 rndv_stream_bounds) || exit $?
(HCMPI_SHM_CMA_MIN=0 && export HCMPI_SHM_CMA_MIN &&
    run_mpi_ok 2 rndv_stream_bounds) || exit $?
mode=read
if [ "$MPI_TEST_LAUNCHER" != hcmpirun ] || [ -n "${HCMPI_TRANSPORTS:-}" ]; then
    mode=
fi
(HCMPI_SHM_STREAM_RUNQ_MAX=0 && export HCMPI_SHM_STREAM_RUNQ_MAX &&
    run_mpi_ok 2 rndv_stream_bounds $mode) || exit $?
(HCMPI_SHM_STREAM_RUNQ_MAX=100 HCMPI_SHM_CMA_MIN=0 HCMPI_SHM_CMA_HELP_MIN=262144 &&
    export HCMPI_SHM_STREAM_RUNQ_MAX HCMPI_SHM_CMA_MIN HCMPI_SHM_CMA_HELP_MIN &&
    run_mpi_ok 2 rndv_stream_bounds $mode) || exit $?
(HCMPI_SHM_CELLS=2 HCMPI_SHM_STREAM_RUNQ_MAX=100 HCMPI_SHM_CMA_MIN=0 \
    HCMPI_SHM_CMA_HELP_MIN=262144 &&
    export HCMPI_SHM_CELLS HCMPI_SHM_STREAM_RUNQ_MAX HCMPI_SHM_CMA_MIN \
        HCMPI_SHM_CMA_HELP_MIN &&
    run_mpi_ok 2 rndv_stream_bounds $mode) || exit $?
