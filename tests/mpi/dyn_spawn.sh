#!/bin/sh
# Runs tests/mpi/dyn_spawn.c: 2 parents spawn 2 children, then 3 with
# spawn_multiple, then a missing program, under hcmpirun and under MPICH's
# Hydra (PMI-1's multi-line spawn) where installed; a singleton without
# launcher (MPI_ERR_SPAWN); 4 ranks each spawning 2 children on
# MPI_COMM_SELF at once (info path and wdir), without and with -usize,
# under Hydra too; a spawn with 256 arguments of 8 characters (under
# Hydra too, there without the odd bytes) after one whose arguments are
# too long.  See that file for what it asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 dyn_spawn parent
if [ "$MPI_TEST_LAUNCHER" = hcmpirun ] && command -v mpiexec.mpich >/dev/null 2>&1; then
  MPI_TEST_LAUNCHER=mpich run_mpi_ok 2 dyn_spawn parent
  MPI_TEST_LAUNCHER=mpich run_mpi_ok 4 dyn_spawn selfspawn 0
  MPI_TEST_LAUNCHER=mpich run_mpi_ok 2 dyn_spawn manyarg 0
fi
run_mpi_ok 4 dyn_spawn selfspawn 0
run_mpi_ok 2 dyn_spawn manyarg 1
prog=$(mpi_prog_path dyn_spawn)
echo "+ hcmpirun -n 4 -usize 12 $prog selfspawn 12"
timeout -k 10 $((MPI_TEST_TIMEOUT + 30)) "$top_builddir/tools/hcmpirun" -n 4 \
  -usize 12 --timeout "$MPI_TEST_TIMEOUT" "$prog" selfspawn 12 ||
  fail "selfspawn with -usize exited with status $?"
echo "+ $prog nolauncher"
env -u PMI_FD -u PMI_PORT -u PMIX_RANK HCMPI_BOOTSTRAP=singleton \
  timeout 60 "$prog" nolauncher || fail "nolauncher exited with status $?"
