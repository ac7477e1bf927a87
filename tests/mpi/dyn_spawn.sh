#!/bin/sh
# Runs tests/mpi/dyn_spawn.c: 2 parents spawn 2 children, then 3 with
# spawn_multiple, then a missing program; and a singleton without launcher
# (MPI_ERR_SPAWN).  See that file for what it asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "spawn: hcmpirun only"
run_mpi_ok 2 dyn_spawn parent
prog=$(mpi_prog_path dyn_spawn)
echo "+ $prog nolauncher"
env -u PMI_FD -u PMI_PORT -u PMIX_RANK HCMPI_BOOTSTRAP=singleton \
  timeout 60 "$prog" nolauncher || fail "nolauncher exited with status $?"
