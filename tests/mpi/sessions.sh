#!/bin/sh
# MPI-4 sessions beside the world model (tests/mpi/sessions_models.c, in
# each start and finalize order, and made again after the last one was
# finalised), process sets and session error handlers
# (sessions_psets.c), and communicators made from groups of a session and
# of MPI_COMM_WORLD (comm_from_groups.c), two sessions built in two threads
# at once (sessions_threads.c); see each file for what it asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 3 sessions_models world-first
run_mpi_ok 4 sessions_models sessions-first
run_mpi_ok 2 sessions_models sessions-only
run_mpi_ok 3 sessions_models sessions-again
run_mpi_ok 3 sessions_psets
run_mpi_ok 4 comm_from_groups session
run_mpi_ok 3 comm_from_groups world
run_mpi_ok 4 sessions_threads
run_mpi_ok 3 sessions_threads
# MPI_COMM_WORLD used with only a session running: the fatal default ends
# the job with MPI_ERR_COMM (5) and a line that says why (hcmpi's wording).
if [ "${MPI_TEST_LAUNCHER:-hcmpirun}" = hcmpirun ]; then
  out=$(run_mpi 2 sessions_models world-refused 2>&1)
  rc=$?
  echo "$out"
  [ $rc -eq 5 ] || fail "world-refused: job status $rc, want 5"
  echo "$out" | grep -qFx "hcmpi: abort (code 5): MPI_Comm_size: MPI_COMM_WORLD exists only between MPI_Init and MPI_Finalize (MPI_ERR_COMM)" ||
    fail "world-refused: no abort line naming MPI_COMM_WORLD"
  echo "$out" | grep -q "FAIL rank" && fail "world-refused: the call returned"
fi
exit 0
