#!/bin/sh
# tests/mpi/bsend_buffers.c on 2 ranks: MPI-4.1's buffers of communicators
# and sessions before the process's, MPI_BUFFER_AUTOMATIC, flushes that
# complete only once the messages left, detach results, bad input, and
# the session's buffer for communicators made from groups derived from it.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 bsend_buffers
