#!/bin/sh
# Runs tests/mpi/success_paths.c on 2 and 3 ranks (a third rank only takes
# part in the collective parts); see that file for what it asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 2 3; do
    run_mpi_ok $n success_paths
done
