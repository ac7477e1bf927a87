#!/bin/sh
# Intercommunicators (tests/mpi/intercomm_{comm,coll}.c): communicator
# operations and every collective, blocking and non-blocking, on 5 ranks
# (groups 2+3 and 1+4) and 2 (1+1); MPI_Comm_idup on 4 and 9 ranks, where a
# remote leader waiting in a receive used to hang it.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 2 5; do
    run_mpi_ok $n intercomm_coll
done
for n in 2 4 5 9; do
    run_mpi_ok $n intercomm_comm
done
