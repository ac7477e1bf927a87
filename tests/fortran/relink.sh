#!/bin/sh
# Fortran programs compiled and linked by Debian MPICH's mpif90 (mpif.h,
# MPICH's own `use mpi` and `use mpi_f08` modules) run on hcmpi: LD_LIBRARY_PATH points at
# mpich-abi/ (our libmpichfort.so.12 and libmpich.so.12), no MPICH library
# is loaded, and the programs' data checks pass, including MPICH-compiled
# MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE and MPI_IN_PLACE (COMMON blocks).
# The loader's choice is checked with LD_TRACE_LOADED_OBJECTS, and the
# running ranks' own /proc/self/maps (tests/relink/maps_probe.f90) must
# show only mpich-abi's libmpichfort.so.12 and libmpich.so.12.
# Skips (77) without mpif90.mpich or without our Fortran layer.
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
command -v mpif90.mpich >/dev/null 2>&1 || skip "no mpif90.mpich"
[ -e "$ABI_DIR/libmpichfort.so.12" ] || skip "no $ABI_DIR/libmpichfort.so.12 (no gfortran)"
failures=0
for src in basic.f basic.f90 legacy.f basic_f08.f90 topo_f08.f90 part_f08.f90 spawn_f08.f90 \
    subarray_f08.f90; do
  exe=$T/$(echo "$src" | tr . _)
  if ! mpif90.mpich -w -o "$exe" "$top_srcdir/tests/fortran/$src"; then
    echo "FAIL: mpif90.mpich $src"; failures=$((failures + 1)); continue
  fi
  # Every MPI library the loader picks must be ours.
  libs=$(LD_LIBRARY_PATH=$ABI_DIR LD_TRACE_LOADED_OBJECTS=1 "$exe" | grep -E 'libmpi|libhcmpi')
  echo "$libs"
  if echo "$libs" | grep -v "$ABI_DIR/" | grep -q .; then
    echo "FAIL: $src loads a library outside $ABI_DIR"; failures=$((failures + 1)); continue
  fi
  echo "$libs" | grep -q "$ABI_DIR/libmpichfort.so.12" || {
    echo "FAIL: $src does not load our libmpichfort.so.12"; failures=$((failures + 1)); continue; }
  for n in 2 3; do
    if "$HCMPIRUN" -n "$n" --timeout 60 --env "LD_LIBRARY_PATH=$ABI_DIR" "$exe"; then
      echo "PASS: MPICH-built $src on hcmpi, $n ranks"
    else
      echo "FAIL: MPICH-built $src on $n ranks"; failures=$((failures + 1))
    fi
  done
done
[ "$failures" -eq 0 ] || fail "$failures failures"

mpif90.mpich -o "$T/probe" "$top_srcdir/tests/relink/maps_probe.f90" || fail "mpif90.mpich maps_probe.f90"
run_check probe "sum 3 (expect 3)" timeout 90 "$HCMPIRUN" -n 2 --timeout 60 \
  --env "LD_LIBRARY_PATH=$ABI_DIR" "$T/probe"
check_maps "$T/probe.log" "$ABI_DIR" 2 libmpichfort.so.12 libmpich.so.12
echo "PASS: running MPICH-built ranks map only $ABI_DIR's MPI libraries"

mpif90.mpich -o "$T/probe08" "$top_srcdir/tests/relink/maps_probe_f08.f90" ||
  fail "mpif90.mpich maps_probe_f08.f90"
run_check probe08 "sum 3 (expect 3)" timeout 90 "$HCMPIRUN" -n 2 --timeout 60 \
  --env "LD_LIBRARY_PATH=$ABI_DIR" "$T/probe08"
grep -q 'mismatch\|not freed' "$T/probe08.log" && fail "mpi_f08 probe: a check failed"
check_maps "$T/probe08.log" "$ABI_DIR" 2 libmpichfort.so.12 libmpich.so.12
echo "PASS: MPICH-built use mpi_f08 ranks map only $ABI_DIR's MPI libraries"

# The procedures and data of MPICH's modules themselves (MPI_Sizeof, the
# status conversions, the predefined callbacks, a derived type's vtab, ==
# of `use mpi` handle types), which those programs link against by
# gfortran's module names: every rank's checks pass on 3 ranks.
for prog in module_procs_f08 module_procs; do
  mpif90.mpich -I"$top_srcdir/tests/relink" -o "$T/$prog" "$top_srcdir/tests/relink/$prog.f90" ||
    fail "mpif90.mpich $prog.f90"
  "$HCMPIRUN" -n 3 --timeout 60 --env "LD_LIBRARY_PATH=$ABI_DIR" "$T/$prog" \
    >"$T/$prog.log" 2>&1 || { cat "$T/$prog.log"; fail "$prog"; }
  cat "$T/$prog.log"
  grep -q mismatch "$T/$prog.log" && fail "$prog: a check failed"
  [ "$(grep -c ' ok [0-2]$' "$T/$prog.log")" -eq 3 ] || fail "$prog: not every rank finished"
  echo "PASS: MPICH-built $prog on hcmpi, 3 ranks"
done

# Every Fortran entry point Debian's libmpichfort.so.12 exports for mpif.h,
# `use mpi` and its mpi_f08 (mpi_x_, mpi_x_f08_, mpi_x_f08ts_, their
# _large_ forms, the pmpi_/pmpir_ ones), ours exports too, and so every
# gfortran module symbol (__*_MOD_*) of the mpi_f08_types, mpi_f08_callbacks,
# mpi_f08_link_constants, mpi_constants and mpi_sizeofs modules, which
# programs compiled with MPICH's modules link against (src/fortran/
# fort_mpich_f08.c).  Left out: MPICH's internal modules (c_interface) and
# mpi_f08_compile_constants (PARAMETERs, which gfortran puts in the
# program), and the C functions MPI_Status_c2f08/_f082c, which libhcmpi
# exports.
ref=/usr/lib/x86_64-linux-gnu/libmpichfort.so.12
if [ -r "$ref" ] && command -v nm >/dev/null 2>&1; then
  fort_names() {
    nm -D --defined-only "$1" | awk '$2 ~ /^[TWi]$/ { print $3 }' | sed 's/@.*//' |
      grep -E '^p?mpi[xr]*_[a-z0-9_]*_$|^__mpi_(f08_types|f08_callbacks|f08_link_constants|constants|sizeofs)_MOD_' |
      grep -v '^p\?mpi_status_\(c2f08\|f082c\)' | sort -u
  }
  missing=$(fort_names "$ABI_DIR/libmpichfort.so.12" | comm -13 - "$(fort_names "$ref" >"$T/ref.txt"; echo "$T/ref.txt")")
  if [ -n "$missing" ]; then
    echo "$missing"
    fail "our libmpichfort.so.12 lacks $(echo "$missing" | wc -l) of MPICH's Fortran entry points"
  fi
  echo "PASS: every Fortran entry point of $ref ($(wc -l <"$T/ref.txt")) is exported"
fi
