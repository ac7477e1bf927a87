#!/bin/sh
# A view whose filetype holds no data on one rank (tests/io/io_empty_view.c),
# on 2 and 3 ranks (MPICH's io/setview_zero is the 3-rank case).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 tests/io/io_empty_view
run_mpi_ok 3 tests/io/io_empty_view
