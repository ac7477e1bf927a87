#!/bin/sh
# tests/mpi/rma_direct.c: one-sided operations move directly (shared
# windows by loads and stores, MPI_Win_create puts and gets by CMA when shm
# reaches the peers, by RDMA over verbs) and stay atomic and correct, on 8
# and 2 ranks; with CMA refused they fall back to active messages; with
# HCMPI_RMA_DIRECT=0 every operation is one.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
case ${HCMPI_TRANSPORTS:-all} in
all | *shm* | verbs) peer=peer ;;
*) peer= ;; # tcp between local ranks: no direct path to other ranks
esac
HCMPI_RMA_DIRECT=1
export HCMPI_RMA_DIRECT
run_mpi_ok 8 rma_direct shared $peer
run_mpi_ok 2 rma_direct shared $peer
case ${HCMPI_TRANSPORTS:-all} in
verbs) ;; # no CMA to refuse
*)
    (HCMPI_SHM_CMA=0 && export HCMPI_SHM_CMA && run_mpi_ok 4 rma_direct shared) ||
        exit $?
    ;;
esac
HCMPI_RMA_DIRECT=0 run_mpi_ok 8 rma_direct message
