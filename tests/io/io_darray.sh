#!/bin/sh
# A 3-D darray checkpoint written by 8 ranks and read back by 3
# (tests/io/io_darray.c says what each side asserts).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
file="${TMPDIR:-/tmp}/hcmpi_io_darray.$$"
trap 'rm -f "$file"' EXIT
run_mpi_ok 8 tests/io/io_darray write "$file"
run_mpi_ok 3 tests/io/io_darray read "$file"
