#!/bin/sh
# Independent non-blocking file accesses (tests/io/io_nonblocking.c) on 1
# and 3 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 3; do
    run_mpi_ok $n tests/io/io_nonblocking
done
