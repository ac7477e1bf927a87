#!/bin/sh
# hcmpi-built programs launched by MPICH's Hydra (mpiexec.mpich, PMI-1 over
# PMI_FD): pingpong_sizes on 2 ranks, comm_split_dup and examples/comm_split
# on 4.  Skips when mpiexec.mpich is absent.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
command -v mpiexec.mpich >/dev/null 2>&1 || skip "mpiexec.mpich not installed"
MPI_TEST_LAUNCHER=mpich
run_mpi_ok 2 pingpong_sizes
run_mpi_ok 4 comm_split_dup
run_mpi_ok 4 examples/comm_split
