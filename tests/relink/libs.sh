#!/bin/sh
# mpich-abi/libmpi.so.12 and libmpich.so.12: the SONAMEs MPICH-built
# binaries look for, no dependency on a real MPICH, and exactly libhcmpi's
# exported symbols (MPI_ weak over PMPI_ strong, 8-byte data objects).
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
nm -D --defined-only "$top_builddir/.libs/libhcmpi.so" | awk '{print $2, $3}' |
    sort >"$T/hcmpi.syms"
[ -s "$T/hcmpi.syms" ] || fail "no symbols in libhcmpi.so"
for n in libmpi libmpich; do
    so=$ABI_DIR/$n.so.12
    readelf -d "$so" >"$T/dyn" || fail "readelf $so"
    grep -q "(SONAME).*\[$n\.so\.12\]" "$T/dyn" || fail "$so: SONAME is not $n.so.12"
    grep "(NEEDED)" "$T/dyn" | grep -qi -e mpich -e libmpi && fail "$so needs an MPI library"
    grep -q -e "(RPATH)" -e "(RUNPATH)" "$T/dyn" && fail "$so has an rpath"
    nm -D --defined-only "$so" | awk '{print $2, $3}' | sort >"$T/$n.syms"
    cmp -s "$T/hcmpi.syms" "$T/$n.syms" || {
        diff "$T/hcmpi.syms" "$T/$n.syms" | head
        fail "$so exports other symbols than libhcmpi.so"
    }
    grep -qx "W MPI_Send" "$T/$n.syms" && grep -qx "T PMPI_Send" "$T/$n.syms" ||
        fail "$so: MPI_Send is not a weak alias of a strong PMPI_Send"
    for d in MPI_F_STATUS_IGNORE MPI_F_STATUSES_IGNORE MPI_F08_STATUS_IGNORE \
        MPI_F08_STATUSES_IGNORE MPI_UNWEIGHTED MPI_WEIGHTS_EMPTY \
        MPI_T_PVAR_ALL_HANDLES; do
        readelf --dyn-syms -W "$so" | awk -v s="$d" '$8 == s && $4 == "OBJECT" && $3 == 8' |
            grep -q . || fail "$so: $d is not an 8-byte data object"
    done
    echo "ok: $n.so.12 ($(wc -l <"$T/$n.syms") symbols)"
done
