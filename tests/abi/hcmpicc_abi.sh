#!/bin/sh
# hcmpicc -abi and hcmpicc_abi build against the standard ABI (the binary
# names libmpi_abi.so.1 and reports ABI 1.0); hcmpicc without it stays on
# the MPICH ABI (-1.-1); hcmpirun --relink runs a standard-ABI binary that
# has no run path to hcmpi (as one built against another MPI's
# libmpi_abi.so.1); pkg-config hcmpi-abi gives the same flags.
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
cc_abi="$top_builddir/tools/hcmpicc_abi-build"
cc_plain="$top_builddir/tools/hcmpicc-build"
run="$top_builddir/tools/hcmpirun"
src="$top_srcdir/tests/abi/abi_version.c"
for f in "$cc_abi" "$cc_plain" "$run"; do
    [ -x "$f" ] || { echo "SKIP: $f not built"; exit 77; }
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
needs() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

"$cc_abi" -o "$tmp/v_abi" "$src" || fail "hcmpicc_abi"
"$cc_plain" -abi -o "$tmp/v_flag" "$src" || fail "hcmpicc -abi"
"$cc_plain" -o "$tmp/v_mpich" "$src" || fail "hcmpicc"
for b in v_abi v_flag; do
    needs "$tmp/$b" | grep -qx libmpi_abi.so.1 || fail "$b: $(needs "$tmp/$b")"
    "$run" -n 2 "$tmp/$b" 1 0 || fail "$b does not report ABI 1.0"
done
needs "$tmp/v_mpich" | grep -q libmpi_abi && fail "plain hcmpicc linked libmpi_abi"
"$run" -n 1 "$tmp/v_mpich" -1 -1 || fail "MPICH-ABI build does not report -1.-1"

# No run path: only hcmpirun --relink's LD_LIBRARY_PATH finds the library.
libs="$top_builddir/.libs"
${CC:-cc} -I"$top_srcdir/include/mpi-abi" -o "$tmp/v_norpath" "$src" \
    -L"$libs" -lmpi_abi || fail "build without run path"
"$run" -n 2 --relink "$tmp/v_norpath" 1 0 || fail "hcmpirun --relink"

if command -v pkg-config >/dev/null 2>&1; then
    flags=$(PKG_CONFIG_PATH="$top_builddir" pkg-config --cflags --libs hcmpi-abi) ||
        fail "pkg-config hcmpi-abi"
    case "$flags" in
    *-lmpi_abi*/mpi-abi*|*/mpi-abi*-lmpi_abi*) ;;
    *) fail "pkg-config hcmpi-abi: $flags" ;;
    esac
fi
echo "PASS: hcmpicc -abi, hcmpicc_abi, hcmpirun --relink, pkg-config hcmpi-abi"
