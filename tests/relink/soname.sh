#!/bin/sh
# Binaries linked the way upstream MPICH, Intel MPI and MVAPICH2 link them
# (NEEDED libmpi.so.12, and libmpifort.so.12 for Fortran, not Debian's
# libmpich*.so.12) run on hcmpi: maps_probe.c compiled against MPICH's
# mpi.h and maps_probe.f90 compiled by mpif90.mpich, each linked with
# -L mpich-abi -lmpi (-lmpifort), run on 2 ranks under hcmpirun --relink
# and with LD_LIBRARY_PATH; each running rank's /proc/self/maps holds only
# mpich-abi's libmpi.so.12 (and libmpifort.so.12), no libmpich.  Without
# mpicc.mpich the C probe uses hcmpi's mpi.h (the same ABI); the Fortran
# half needs mpif90.mpich and our Fortran layer, else it is left out.
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
CC=${CC:-cc}

# needs_only EXE LIB...: the MPI libraries EXE names are exactly LIB...
needs_only() {
    exe=$1
    shift
    got=$(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*mpi.*\)\]/\1/p' | sort | tr '\n' ' ')
    want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
    [ "$got" = "$want" ] || fail "$exe needs '$got', not '$want'"
}

# run_probe EXE LINE LIB...: EXE on 2 ranks both ways prints LINE and maps
# every LIB from mpich-abi, nothing else of MPI.
run_probe() {
    exe=$1
    line=$2
    shift 2
    run_check "$(basename "$exe")-relink" "$line" relink_run 2 "$exe"
    check_maps "$T/$(basename "$exe")-relink.log" "$ABI_DIR" 2 "$@"
    run_check "$(basename "$exe")-env" "$line" timeout 150 "$HCMPIRUN" -n 2 \
        --timeout 120 --env "LD_LIBRARY_PATH=$ABI_DIR" "$exe"
    check_maps "$T/$(basename "$exe")-env.log" "$ABI_DIR" 2 "$@"
    grep -q " maps .*/libmpich" "$T/$(basename "$exe")-env.log" && fail "$exe mapped a libmpich"
    echo "ok: $exe runs on $*"
}

if command -v mpicc.mpich >/dev/null 2>&1; then
    mpicc.mpich -c -o "$T/probe.o" "$top_srcdir/tests/relink/maps_probe.c" || fail "mpicc.mpich -c"
else
    $CC -I"$top_srcdir/include" -c -o "$T/probe.o" "$top_srcdir/tests/relink/maps_probe.c" || fail "cc -c"
fi
$CC -o "$T/probe_c" "$T/probe.o" -L"$ABI_DIR" -lmpi || fail "link with -lmpi"
needs_only "$T/probe_c" libmpi.so.12
run_probe "$T/probe_c" "ring token 1 (expect 1)" libmpi.so.12

if command -v mpif90.mpich >/dev/null 2>&1 && [ -e "$ABI_DIR/libmpifort.so.12" ]; then
    mpif90.mpich -c -o "$T/probe_f.o" "$top_srcdir/tests/relink/maps_probe.f90" ||
        fail "mpif90.mpich -c"
    # --no-as-needed: upstream mpifort binaries name both libraries.
    gfortran -o "$T/probe_f" "$T/probe_f.o" -Wl,--no-as-needed -L"$ABI_DIR" \
        -lmpifort -lmpi || fail "link with -lmpifort -lmpi"
    needs_only "$T/probe_f" libmpifort.so.12 libmpi.so.12
    run_probe "$T/probe_f" "sum 3 (expect 3)" libmpifort.so.12 libmpi.so.12
else
    echo "no mpif90.mpich or no Fortran layer: Fortran half left out"
fi
