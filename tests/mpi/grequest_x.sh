#!/bin/sh
# tests/mpi/grequest_x.c: MPIX_Grequest_start and generalized request
# classes; poll_fn and wait_fn driven by tests and waits, beside real
# receives; callback errors and a bad class get their class.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 4; do
    run_mpi_ok $n grequest_x
done
