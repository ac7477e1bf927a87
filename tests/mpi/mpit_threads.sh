#!/bin/sh
# Runs tests/mpi/mpit_threads.c on 2 ranks: MPI_T calls from a tool thread
# beside MPI_THREAD_MULTIPLE traffic, and unexpected_message events counted
# by a THREAD_SAFE callback (tests/tsan/run.sh runs it under TSan).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 mpit_threads
