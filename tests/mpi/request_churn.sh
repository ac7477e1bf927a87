#!/bin/sh
# tests/mpi/request_churn.c: 100,000 requests per rank, heap flat.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 4; do
    run_mpi_ok $n request_churn
done
