#!/bin/sh
# Independent non-blocking file accesses (tests/io/io_nonblocking.c) on 1
# and 3 ranks, on io_uring where the kernel has it, and on the worker
# thread (HCMPI_IO_URING=0) on 2.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 3; do
    run_mpi_ok $n tests/io/io_nonblocking
done
HCMPI_IO_URING=0 run_mpi_ok 2 tests/io/io_nonblocking
