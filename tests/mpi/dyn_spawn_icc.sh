#!/bin/sh
# Runs tests/mpi/dyn_spawn_icc.c: 3 parents (rank 0 spawning 2 children
# alone) and 1 parent with 3 children build an intercommunicator across
# the two jobs, under hcmpirun and under MPICH's Hydra where installed.
# See that file for what it asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 3 dyn_spawn_icc parent 2
run_mpi_ok 1 dyn_spawn_icc parent 3
if [ "$MPI_TEST_LAUNCHER" = hcmpirun ] && command -v mpiexec.mpich >/dev/null 2>&1; then
  MPI_TEST_LAUNCHER=mpich run_mpi_ok 3 dyn_spawn_icc parent 2
fi
