#!/bin/sh
# tests/mpi/large_count_types.c: the _c datatype constructors, packing and
# reduction calls against their int forms, types above 2^31 by size and
# extent, and the classes of results an int cannot hold.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 1 large_count_types
