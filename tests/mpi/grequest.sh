#!/bin/sh
# tests/mpi/grequest.c: generalized requests and when their query, free and
# cancel callbacks run, through every kind of wait and test.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 1 grequest
run_mpi_ok 2 grequest
# A request another thread completes wakes the waiter asleep on the
# transports: with sleeps of a minute, the longest allowed, a missed
# wake-up runs the job past its time limit.
HCMPI_WAIT_MS=60000 MPI_TEST_TIMEOUT=50 run_mpi_ok 2 grequest
# The sessions model (no MPI_Init): generalized requests across two
# overlapping sessions; what the library opened is closed by the exit
# after the last MPI_Session_finalize, where the parked engine stops
# (checked on hcmpi only).
if [ "$MPI_TEST_LAUNCHER" = hcmpirun ]; then
    run_mpi_ok 1 grequest sessions
    run_mpi_ok 2 grequest sessions
fi
