#!/bin/sh
# Fortran programs built with tools/hcmpifort-build (mpif.h, `use mpi`,
# `use mpi_f08`) run on 2 and 3 ranks under hcmpirun; each checks its data
# (io.f90 and io_f08.f90 write and read files in the current directory)
# and exits non-zero on a mismatch.  Skips (77) without the Fortran layer.
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
W=$top_builddir/tools/hcmpifort-build
RUN=$top_builddir/tools/hcmpirun
[ -x "$W" ] || { echo "SKIP: Fortran layer not built (no gfortran)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failures=0
for src in basic.f basic.f90 basic_f08.f90 legacy.f topo.f90 topo_f08.f90 \
    part_f08.f90 large_f08.f90 io.f90 io_f08.f90 sessions.f90 rma.f90 ulfm_f08.f90 \
    greq.f90 spawn_f08.f90 f08ts.f90 callbacks_f08.f90 subarray_f08.f90 \
    mpi41.f90 mpi41_f08.f90; do
  exe=$T/$(echo "$src" | tr . _)
  if ! "$W" -o "$exe" "$top_srcdir/tests/fortran/$src"; then
    echo "FAIL: compile $src"; failures=$((failures + 1)); continue
  fi
  for n in 2 3; do
    if "$RUN" -n "$n" --timeout 60 "$exe"; then echo "PASS: $src on $n ranks"
    else echo "FAIL: $src on $n ranks"; failures=$((failures + 1)); fi
  done
done
# Attributes across languages: a Fortran program with a C half.
exe=$T/attrlang
if "$W" -I"$top_srcdir/include" -o "$exe" "$top_srcdir/tests/fortran/attrlang.f90" \
    "$top_srcdir/tests/fortran/attrlang_c.c"; then
  if "$RUN" -n 2 --timeout 60 "$exe"; then echo "PASS: attrlang on 2 ranks"
  else echo "FAIL: attrlang on 2 ranks"; failures=$((failures + 1)); fi
else
  echo "FAIL: compile attrlang"; failures=$((failures + 1))
fi
# Constant values against MPICH's mpif.h, where Debian's MPICH is installed.
mpich_h=/usr/include/x86_64-linux-gnu/mpich/mpif.h
if [ -e "$mpich_h" ] && command -v python3 >/dev/null 2>&1; then
  if python3 "$top_srcdir/tests/fortran/mpif_values.py" \
      "$top_srcdir/src/fortran/mpif.h" "$mpich_h"; then echo "PASS: mpif.h values"
  else echo "FAIL: mpif.h values"; failures=$((failures + 1)); fi
fi
# The wrapper's options, as hcmpicc's.
show=$("$W" -show x.f90 -o x)
case $show in *" -I"*" x.f90 -o x -L"*" -lhcmpifort -lhcmpi") echo "PASS: -show" ;;
  *) echo "FAIL: -show gave: $show"; failures=$((failures + 1)) ;; esac
case $("$W" -compile-info) in *-lhcmpi*) echo "FAIL: -compile-info"; failures=$((failures + 1)) ;;
  *) echo "PASS: -compile-info" ;; esac
case $(HCMPI_FC=myfc "$W" -show x.f) in "myfc "*) echo "PASS: HCMPI_FC" ;;
  *) echo "FAIL: HCMPI_FC"; failures=$((failures + 1)) ;; esac
case $("$W" -fc=otherfc -show x.f) in "otherfc "*) echo "PASS: -fc=" ;;
  *) echo "FAIL: -fc="; failures=$((failures + 1)) ;; esac
[ "$failures" -eq 0 ]
