#!/bin/sh
# Runs examples/pingpong on 2 ranks (small problem, as in make check); the
# example checks its own results and exits non-zero when they are wrong.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 examples/pingpong 20 262144
