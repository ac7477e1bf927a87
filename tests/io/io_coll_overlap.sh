#!/bin/sh
# Collective non-blocking and split collective accesses moving in the
# background on the file's thread (tests/io/io_coll_overlap.c), on 1, 2
# and 4 ranks, and on 2 without the io_uring (HCMPI_IO_URING=0).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 4; do
    run_mpi_ok $n tests/io/io_coll_overlap
done
HCMPI_IO_URING=0 run_mpi_ok 2 tests/io/io_coll_overlap
