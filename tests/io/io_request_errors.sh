#!/bin/sh
# A failed file request completed by Waitall, Testall, Waitsome, Testsome,
# Waitany and Testany raises on the file's handler, not MPI_COMM_WORLD's
# (tests/io/io_request_errors.c), on 1 and 2 ranks, on the io_uring where
# the kernel has it and on the worker thread (HCMPI_IO_URING=0).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2; do
    run_mpi_ok $n tests/io/io_request_errors
done
HCMPI_IO_URING=0 run_mpi_ok 2 tests/io/io_request_errors
