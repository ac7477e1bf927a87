#!/bin/sh
# A C++ program built with tools/hcmpicxx-build runs on 3 ranks, and the
# wrapper's options behave like hcmpicc's.  Skips (77) without a C++ compiler.
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
W=$top_builddir/tools/hcmpicxx-build
RUN=$top_builddir/tools/hcmpirun
[ -x "$W" ] || { echo "FAIL: $W missing"; exit 99; }
cxx=$("$W" -show | cut -d' ' -f1)
command -v "$cxx" >/dev/null 2>&1 || { echo "SKIP: no C++ compiler ($cxx)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failures=0
if "$W" -o "$T/cxx_ring" "$top_srcdir/tests/fortran/cxx_ring.cc" &&
   "$RUN" -n 3 --timeout 60 "$T/cxx_ring"; then echo "PASS: cxx_ring on 3 ranks"
else echo "FAIL: cxx_ring"; failures=$((failures + 1)); fi
case $("$W" -show a.cc) in *" a.cc -L"*" -lhcmpi") echo "PASS: -show" ;;
  *) echo "FAIL: -show"; failures=$((failures + 1)) ;; esac
case $(HCMPI_CXX=mycxx "$W" -show a.cc) in "mycxx "*) echo "PASS: HCMPI_CXX" ;;
  *) echo "FAIL: HCMPI_CXX"; failures=$((failures + 1)) ;; esac
case $("$W" -cxx=c2 -c a.cc -show) in "c2 "*-lhcmpi*) echo "FAIL: -c"; failures=$((failures + 1)) ;;
  "c2 "*) echo "PASS: -cxx= and -c" ;; *) echo "FAIL: -cxx="; failures=$((failures + 1)) ;; esac
[ "$failures" -eq 0 ]
