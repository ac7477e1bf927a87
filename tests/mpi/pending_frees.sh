#!/bin/sh
# tests/mpi/pending_frees.c: a user op, a derived datatype and a
# communicator freed while non-blocking point-to-point and collective
# operations using them are pending; results checked, on 2, 3 and 4 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 pending_frees
run_mpi_ok 3 pending_frees
run_mpi_ok 4 pending_frees
