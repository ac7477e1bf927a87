#!/bin/sh
# tests/abi/abi_version.c: MPI_Abi_get_version is 1.0 through libmpi_abi
# (with the ABI queries and handle integer conversions) and -1.-1 through
# libhcmpi, the MPICH ABI.
: "${top_builddir:=.}"
for p in abi_version_std abi_version_mpich; do
    [ -x "$top_builddir/tests/abi/$p" ] || { echo "SKIP: $p not built"; exit 77; }
done
"$top_builddir/tests/abi/abi_version_std" 1 0 || exit 1
"$top_builddir/tests/abi/abi_version_mpich" -1 -1 || exit 1
