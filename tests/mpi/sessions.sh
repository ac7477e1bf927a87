#!/bin/sh
# MPI-4 sessions beside the world model (tests/mpi/sessions_models.c, in
# each start and finalize order), process sets and session error handlers
# (sessions_psets.c), and communicators made from groups of a session and
# of MPI_COMM_WORLD (comm_from_groups.c); see each file for what it asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 3 sessions_models world-first
run_mpi_ok 4 sessions_models sessions-first
run_mpi_ok 2 sessions_models sessions-only
run_mpi_ok 3 sessions_psets
run_mpi_ok 4 comm_from_groups session
run_mpi_ok 3 comm_from_groups world
