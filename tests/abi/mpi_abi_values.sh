#!/bin/sh
# tests/abi/mpi_abi_values.c: every constant of include/mpi_abi.h against
# the MPI-5.0 standard's table typed into the test; then checks that the
# test names every constant the header defines (a constant added to the
# header without its standard value fails here).
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
prog="$top_builddir/tests/abi/mpi_abi_values"
[ -x "$prog" ] || { echo "SKIP: $prog not built"; exit 77; }
checked=$(mktemp) || exit 1
defined=$(mktemp) || exit 1
trap 'rm -f "$checked" "$defined"' EXIT
"$prog" >"$checked" || exit 1
# Object-like MPI_ macros and enumerators of the hand-written part.
sed -n '1,/BEGIN GENERATED PROTOTYPES/p' "$top_srcdir/include/mpi_abi.h" |
    sed -n -e 's/^#define \(MPI_[A-Z0-9_]*\) .*/\1/p' \
        -e 's/^ *\(MPI_[A-Z0-9_]*\) = .*/\1/p' |
    grep -v '^MPI_ABI_H_INCLUDED$' | sort -u >"$defined"
missing=$(sort -u "$checked" | comm -13 - "$defined")
if [ -n "$missing" ]; then
    echo "FAIL: constants of mpi_abi.h the test does not check:" $missing
    exit 1
fi
echo "PASS: $(wc -l <"$defined") constants of mpi_abi.h match the standard"
