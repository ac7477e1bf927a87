#!/bin/sh
# Runs tests/mpi/cancel.c on 2 ranks; see that file for what it asserts.  The
# directory argument is where rank 0 leaves the file that releases rank 1
# during the send-cancel case.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run_mpi_ok 2 cancel "$dir"
