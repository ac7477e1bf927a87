#!/bin/sh
# tests/mpi/isendrecv.c: MPI_Isendrecv and MPI_Isendrecv_replace complete
# as one request with the receive's status and the neighbour's bytes
# (eager, rendezvous, non-contiguous), beside plain Send/Recv peers and
# MPI_PROC_NULL, several at once; bad input gets its class.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 4; do
    run_mpi_ok $n isendrecv
done
