#!/bin/sh
# A collective read past the end of the file leaves the rest of the buffer
# as it was (tests/io/io_read_past_end.c): overlapping ranges on 2 ranks
# (MPICH's io/rd_end), interleaved stripes on 2 and 4 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
file="${TMPDIR:-/tmp}/hcmpi_io_read_past_end.$$"
trap 'rm -f "$file"' EXIT
run_mpi_ok 2 tests/io/io_read_past_end same "$file"
run_mpi_ok 2 tests/io/io_read_past_end stripes "$file"
run_mpi_ok 4 tests/io/io_read_past_end stripes "$file"
