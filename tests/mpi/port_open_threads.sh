#!/bin/sh
# tests/mpi/port_open_threads.c: a port opened (the runtime transport
# started) while another thread of the rank sleeps in MPI_Recv; 2 ranks,
# and 2 over tcp alone.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 port_open_threads
HCMPI_TRANSPORTS=tcp run_mpi_ok 2 port_open_threads 3
