#!/bin/sh
# ABI comparison with MPICH: every constant, size, offset and prototype of
# include/mpi.h against Debian's MPICH headers (see abi-check.py).
# Skips (exit 77) where MPICH's compiler wrapper or python3 is missing.
# HCMPI_ABI_MPICC names another MPICH wrapper; CC and CXX pick the compilers.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
mpicc=${HCMPI_ABI_MPICC:-mpicc.mpich}

if ! command -v "$mpicc" >/dev/null 2>&1; then
  echo "SKIP: $mpicc (MPICH) not found"
  exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "SKIP: python3 not found"
  exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/hcmpi-abi.XXXXXX") || exit 99
HCMPI_ABI_MPICC=$mpicc python3 "$top_srcdir/tests/abi/abi-check.py" \
  "$top_srcdir/include" "$work"
rc=$?
if [ "$rc" -eq 0 ]; then
  rm -rf "$work"
else
  echo "probe sources kept in $work"
fi
exit "$rc"
