#!/bin/sh
# Runs examples/pipeline on 4 ranks (small problem, as in make check); the
# example checks its own results and exits non-zero when they are wrong.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 4 examples/pipeline 8 4096
run_mpi_ok 1 examples/pipeline 4 1024
