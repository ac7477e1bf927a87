#!/bin/sh
# tests/mpi/self_msgs.c on 1 and 3 ranks (the ring part needs more than one).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 1 self_msgs
run_mpi_ok 3 self_msgs
