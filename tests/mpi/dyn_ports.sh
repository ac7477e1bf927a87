#!/bin/sh
# Runs tests/mpi/dyn_ports.c: two jobs started apart (2 and 3 ranks, then
# 1 and 1) meet through a port whose name passes through a file; join over
# a TCP pair; bad input.  See that file for what it asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "two jobs at once: hcmpirun only"
dir=$(mktemp -d "${TMPDIR:-/tmp}/hcmpi-ports.XXXXXX") || fail "mktemp"
trap 'rm -rf "$dir"' EXIT

pair() {
  rm -f "$dir/port"
  run_mpi "$1" dyn_ports server "$dir" "$2" &
  server=$!
  run_mpi "$2" dyn_ports client "$dir" "$1"
  crc=$?
  wait "$server"
  src=$?
  [ $src -eq 77 ] && exit 77
  [ $src -eq 0 ] || fail "server job of $1 ranks exited with status $src"
  [ $crc -eq 0 ] || fail "client job of $2 ranks exited with status $crc"
}
pair 2 3
pair 1 1
run_mpi_ok 2 dyn_ports join
run_mpi_ok 1 dyn_ports bad
