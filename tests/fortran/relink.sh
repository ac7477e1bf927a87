#!/bin/sh
# Fortran programs compiled and linked by Debian MPICH's mpif90 (mpif.h and
# MPICH's own `use mpi` module) run on hcmpi: LD_LIBRARY_PATH points at
# mpich-abi/ (our libmpichfort.so.12 and libmpich.so.12), no MPICH library
# is loaded, and the programs' data checks pass, including MPICH-compiled
# MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE and MPI_IN_PLACE (COMMON blocks).
# Skips (77) without mpif90.mpich or without our Fortran layer.
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
top_builddir=$(cd "$top_builddir" && pwd)
ABI=$top_builddir/mpich-abi/.libs
RUN=$top_builddir/tools/hcmpirun
command -v mpif90.mpich >/dev/null 2>&1 || { echo "SKIP: no mpif90.mpich"; exit 77; }
[ -e "$ABI/libmpichfort.so.12" ] || { echo "SKIP: no $ABI/libmpichfort.so.12 (no gfortran)"; exit 77; }
ABI=$(cd "$ABI" && pwd -P)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failures=0
for src in basic.f basic.f90 legacy.f; do
  exe=$T/$(echo "$src" | tr . _)
  if ! mpif90.mpich -w -o "$exe" "$top_srcdir/tests/fortran/$src"; then
    echo "FAIL: mpif90.mpich $src"; failures=$((failures + 1)); continue
  fi
  # Every MPI library the loader picks must be ours.
  libs=$(LD_LIBRARY_PATH=$ABI LD_TRACE_LOADED_OBJECTS=1 "$exe" | grep -E 'libmpi|libhcmpi')
  echo "$libs"
  if echo "$libs" | grep -v "$ABI/" | grep -q .; then
    echo "FAIL: $src loads a library outside $ABI"; failures=$((failures + 1)); continue
  fi
  echo "$libs" | grep -q "$ABI/libmpichfort.so.12" || {
    echo "FAIL: $src does not load our libmpichfort.so.12"; failures=$((failures + 1)); continue; }
  for n in 2 3; do
    if "$RUN" -n "$n" --timeout 60 --env "LD_LIBRARY_PATH=$ABI" "$exe"; then
      echo "PASS: MPICH-built $src on hcmpi, $n ranks"
    else
      echo "FAIL: MPICH-built $src on $n ranks"; failures=$((failures + 1))
    fi
  done
done
[ "$failures" -eq 0 ]
