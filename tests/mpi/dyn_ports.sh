#!/bin/sh
# Runs tests/mpi/dyn_ports.c: two jobs started apart (2 and 3 ranks, then
# 1 and 1) meet through a port whose name passes through a file, then
# (2 and 2) through a published name; join over a TCP pair; bad input.
# See that file for what it asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "two jobs at once: hcmpirun only"
dir=$(mktemp -d "${TMPDIR:-/tmp}/hcmpi-ports.XXXXXX") || fail "mktemp"
trap 'rm -rf "$dir"' EXIT

# pair NSERVER NCLIENT MODE ARG: the two jobs at once.
pair() {
  run_mpi "$1" dyn_ports "${3}server" "$4" "$2" &
  server=$!
  run_mpi "$2" dyn_ports "${3}client" "$4" "$1"
  crc=$?
  wait "$server"
  src=$?
  [ $src -eq 77 ] && exit 77
  [ $src -eq 0 ] || fail "server job of $1 ranks exited with status $src"
  [ $crc -eq 0 ] || fail "client job of $2 ranks exited with status $crc"
}
pair 2 3 "" "$dir"
rm -f "$dir/port"
pair 1 1 "" "$dir"
HCMPI_NAME_DIR=$dir/names
export HCMPI_NAME_DIR
mkdir "$HCMPI_NAME_DIR" || fail "mkdir"
pair 2 2 pub "hcmpi test service"
run_mpi_ok 2 dyn_ports join
run_mpi_ok 1 dyn_ports bad
