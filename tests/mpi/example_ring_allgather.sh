#!/bin/sh
# Runs examples/ring_allgather on 3 ranks (small problem, as in make check); the
# example checks its own results and exits non-zero when they are wrong.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 3 examples/ring_allgather 20000
run_mpi_ok 4 examples/ring_allgather 20000
