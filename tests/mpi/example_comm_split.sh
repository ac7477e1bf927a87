#!/bin/sh
# Runs examples/comm_split on 6 ranks (small problem, as in make check); the
# example checks its own results and exits non-zero when they are wrong.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 6 examples/comm_split 
run_mpi_ok 4 examples/comm_split
