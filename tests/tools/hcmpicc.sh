#!/bin/sh
# hcmpicc-build (the build-tree wrapper): flags it adds, compiler choice, and
# a real compile, link and run of a program that includes mpi.h.
# Run from the build directory (make check does).
W=./tools/hcmpicc-build
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failures=0
check() { # description, then a command that must succeed
  d=$1; shift
  if "$@"; then echo "PASS: $d"; else echo "FAIL: $d"; failures=$((failures + 1)); fi
}
[ -x "$W" ] || { echo "missing $W"; exit 99; }

show=$($W -show a.c -o a)
echo "link: $show"
check "-show links with -lhcmpi and an rpath" \
  sh -c 'case "$1" in *" -I"*/include" a.c -o a -L"*/.libs" -Wl,-rpath,"*/.libs" -lhcmpi") exit 0;; esac; exit 1' x "$show"
show=$($W -c a.c -show)
echo "compile: $show"
check "-c adds no link flags" sh -c 'case "$1" in *-lhcmpi*|*-L*) exit 1;; *" -I"*"/include -c a.c") exit 0;; esac; exit 1' x "$show"
check "-compile-info has no link flags" sh -c 'case "$($1 -compile-info)" in *-lhcmpi*) exit 1;; esac' x "$W"
check "-link-info has link flags" sh -c 'case "$($1 -link-info)" in *-lhcmpi) exit 0;; esac; exit 1' x "$W"
check "-cc= picks the compiler" sh -c 'case "$($1 -cc=my-cc -show x.c)" in "my-cc "*) exit 0;; esac; exit 1' x "$W"
check "HCMPI_CC picks the compiler" sh -c 'case "$(HCMPI_CC=other-cc $1 -show x.c)" in "other-cc "*) exit 0;; esac; exit 1' x "$W"
printf 'GREETING\n' >"$T/g.c"
check "arguments with spaces survive" sh -c '$1 "-DGREETING=a  b" -E -P "$2/g.c" | grep -q "^a b$"' x "$W" "$T"

cat >"$T/prog.c" <<'PROG'
#include <mpi.h>
#include <stdio.h>
int main(void) {
  printf("built against hcmpi, MPI %d.%d\n", MPI_VERSION, MPI_SUBVERSION);
  return 0;
}
PROG
if [ -e .libs/libhcmpi.so ]; then
  check "compile, link and run a program" sh -c '$1 -o "$2/prog" "$2/prog.c" && "$2/prog"' x "$W" "$T"
  check "separate compile then link" sh -c '$1 -c -o "$2/prog.o" "$2/prog.c" && $1 -o "$2/prog2" "$2/prog.o" && "$2/prog2"' x "$W" "$T"
else
  echo "FAIL: .libs/libhcmpi.so not built"
  failures=$((failures + 1))
fi
echo "$failures failed"
[ $failures -eq 0 ]
