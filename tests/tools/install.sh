#!/bin/sh
# An installed hcmpi works the way its users use it.  `make install
# DESTDIR=<stage>` from this build tree must put every public file where the
# configured prefix says, and the installed text files (wrappers, hcmpi.pc,
# the CMake package) and ELF run paths must name installed paths only,
# never this build tree, the source tree or the stage.  The wrappers'
# -compile-info and -link-info lines are compared word for word
# (hcmpicc, hcmpicxx, hcmpifort and its hcmpif77/hcmpif90 aliases), and the
# drop-in names of configure --enable-mpi-names are made by running
# Makefile.in's own install-exec-hook on the stage.
#
# Then the test re-runs itself in a private mount namespace in which the
# stage is overlaid on the real prefix, so the tree is exactly where
# `make install` would have put it, without touching the machine's prefix.
# There, with no LD_LIBRARY_PATH and nothing of the build tree: programs
# built by the installed hcmpicc, hcmpicxx, hcmpifort (`use mpi`), hcmpif77
# (mpif.h), hcmpif90 (`use mpi_f08`), by pkg-config's flags and by a CMake
# project's find_package(hcmpi) run on 2 ranks under the installed
# hcmpirun and map libhcmpi from the prefix (the run path works); the
# installed hcmpirun --relink points at the installed mpich-abi/ (then the
# libdir of libmpi_abi.so.1), where an
# MPICH-built program (libmpich.so.12) and one linked against libmpi.so.12
# map only those libraries; mpicc, mpiexec and mpirun work.  Without root
# and unshare the staged checks still run and the test skips (77).
. "${top_srcdir:-.}/tests/relink/lib.sh"

# mkvar NAME: a variable of this build's Makefile, ${...} references expanded
# the way make expands them (they are all plain directory variables).
mkvar() {
    v=$(sed -n "s|^$1 = ||p" "$top_builddir/Makefile")
    eval "printf '%s\n' \"$v\""
}
prefix=$(mkvar prefix)
# shellcheck disable=SC2034 # read by the eval of bindir and libdir
exec_prefix=$(mkvar exec_prefix)
bindir=$(mkvar bindir)
libdir=$(mkvar libdir)
includedir=$(mkvar includedir)
abidir=$libdir/hcmpi/mpich-abi
have_fc=no
[ -x "$top_builddir/tools/hcmpifort" ] && have_fc=yes

# expect_line WHAT GOT WANT: two lines must be equal.
expect_line() {
    [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
    echo "ok: $1"
}

# ---- staged checks (no privilege needed) ---------------------------------

stage_install() {
    echo "+ make install DESTDIR=$D"
    # The sub-make must not talk to the jobserver of the make running check.
    (unset MAKEFLAGS MFLAGS MAKELEVEL &&
        ${MAKE:-make} -C "$top_builddir" install DESTDIR="$D") >"$T/install.log" 2>&1 ||
        { tail -20 "$T/install.log"; fail "make install DESTDIR=$D"; }
}

stage_files() {
    for f in "$bindir/hcmpicc" "$bindir/hcmpicxx" "$bindir/hcmpirun" \
        "$includedir/mpi.h" "$includedir/hcomm.h" "$libdir/libhcmpi.so" \
        "$libdir/pkgconfig/hcmpi.pc" "$libdir/cmake/hcmpi/hcmpi-config.cmake" \
        "$libdir/cmake/hcmpi/hcmpi-config-version.cmake" \
        "$abidir/libmpi.so.12" "$abidir/libmpich.so.12" \
        "$bindir/hcmpicc_abi" "$includedir/mpi_abi.h" \
        "$includedir/mpi-abi/mpi.h" "$libdir/libmpi_abi.so.1" \
        "$libdir/pkgconfig/hcmpi-abi.pc"; do
        [ -e "$D$f" ] || fail "$f is not installed"
    done
    if [ $have_fc = yes ]; then
        for f in "$bindir/hcmpifort" "$bindir/hcmpif77" "$bindir/hcmpif90" \
            "$includedir/mpif.h" "$includedir/mpi.mod" "$includedir/mpi_f08.mod" \
            "$libdir/libhcmpifort.so" "$abidir/libmpifort.so.12" \
            "$abidir/libmpichfort.so.12"; do
            [ -e "$D$f" ] || fail "$f is not installed"
        done
    fi
    for n in libmpi libmpich; do
        readelf -d "$D$abidir/$n.so.12" | grep -q "(SONAME).*\[$n\.so\.12\]" ||
            fail "installed $n.so.12 has another SONAME"
    done
    echo "ok: installed files in $prefix (Fortran: $have_fc)"
}

# No installed text file and no ELF run path may name a path of this build.
stage_paths() {
    find "$D" -name '*.so*' -type f -exec readelf -d {} + | grep -E "RPATH|RUNPATH" >"$T/runpaths"
    for p in "$top_builddir" "$top_srcdir" "$D"; do
        grep -IlF "$p" "$D$bindir"/hcmpi* "$D$libdir/pkgconfig/hcmpi.pc" \
            "$D$libdir"/cmake/hcmpi/*.cmake && fail "the files above name $p"
        grep -F "$p" "$T/runpaths" && fail "an installed library has a run path into $p"
    done
    echo "ok: installed wrappers, hcmpi.pc, CMake files and run paths name no build path"
}

# The wrappers' info lines, word for word, from the configured compilers.
stage_wrappers() {
    cc=$(mkvar CC)
    link="-L$libdir -Wl,-rpath,$libdir"
    expect_line "hcmpicc -compile-info" "$("$D$bindir/hcmpicc" -compile-info)" "$cc -I$includedir"
    expect_line "hcmpicc -link-info" "$("$D$bindir/hcmpicc" -link-info)" \
        "$cc -I$includedir $link -lhcmpi"
    cxx=$(mkvar CXX)
    expect_line "hcmpicxx -compile-info" "$("$D$bindir/hcmpicxx" -compile-info)" "$cxx -I$includedir"
    expect_line "hcmpicxx -link-info" "$("$D$bindir/hcmpicxx" -link-info)" \
        "$cxx -I$includedir $link -lhcmpi"
    expect_line "hcmpicxx -show" "$("$D$bindir/hcmpicxx" -show -O2 a.cc -o a)" \
        "$cxx -I$includedir -O2 a.cc -o a $link -lhcmpi"
    [ $have_fc = yes ] || return 0
    fc=$(mkvar FC)
    compat=$(mkvar HC_FC_COMPAT_FLAGS)
    [ -z "$compat" ] || fc="$fc $compat"
    for w in hcmpifort hcmpif77 hcmpif90; do
        expect_line "$w -compile-info" "$("$D$bindir/$w" -compile-info)" \
            "$fc -I$includedir -I$includedir"
        expect_line "$w -link-info" "$("$D$bindir/$w" -link-info)" \
            "$fc -I$includedir -I$includedir $link -lhcmpifort -lhcmpi"
    done
}

stage_pkgconfig() {
    command -v pkg-config >/dev/null 2>&1 || { echo "no pkg-config: hcmpi.pc not read"; return 0; }
    got=$(PKG_CONFIG_PATH="$D$libdir/pkgconfig" pkg-config --cflags --libs hcmpi) ||
        fail "pkg-config hcmpi"
    # pkg-config leaves out -I of the compiler's own include directories.
    case " $got " in *" -L$libdir -Wl,-rpath,$libdir -lhcmpi "*) ;;
    *) fail "pkg-config --libs hcmpi: $got" ;; esac
    [ "$includedir" = /usr/include ] || case " $got " in *" -I$includedir "*) ;;
    *) fail "pkg-config --cflags hcmpi: $got" ;; esac
    echo "ok: pkg-config --cflags --libs hcmpi: $got"
}

# configure --enable-mpi-names adds an install-exec-hook; it is taken from
# Makefile.in as it stands and run on the stage, as make install would.
stage_mpi_names() {
    sed -n 's/^@HC_MPI_NAMES_TRUE@//p' "$top_srcdir/Makefile.in" >"$T/names.mk"
    grep -q "^install-exec-hook:" "$T/names.mk" || fail "Makefile.in has no --enable-mpi-names hook"
    (unset MAKEFLAGS MFLAGS MAKELEVEL &&
        ${MAKE:-make} -s -f "$T/names.mk" install-exec-hook DESTDIR="$D" \
            bindir="$bindir" LN_S="$(mkvar LN_S)") || fail "the --enable-mpi-names hook"
    for pair in mpicc:hcmpicc mpiexec:hcmpirun mpirun:hcmpirun; do
        expect_line "--enable-mpi-names: ${pair%%:*}" \
            "$(readlink "$D$bindir/${pair%%:*}")" "${pair#*:}"
    done
}

# ---- in the namespace: the stage overlaid on the real prefix --------------

# run2 TAG LINE PROG: PROG on 2 ranks under the installed hcmpirun prints
# LINE and maps libhcmpi from the installed libdir only.
run2() {
    run_check "$1" "$2" timeout 90 "$bindir/hcmpirun" -n 2 --timeout 60 "$3"
    check_maps "$T/$1.log" "$libdir" 2 libhcmpi.so.0
    echo "ok: $1-built program on 2 ranks maps $libdir/libhcmpi.so.0"
}

ns_c() {
    "$bindir/hcmpicc" -o "$T/probe" "$top_srcdir/tests/relink/maps_probe.c" || fail "hcmpicc"
    readelf -d "$T/probe" | grep -q "R.*PATH.*\[$libdir\]" || fail "hcmpicc: no run path $libdir"
    run2 hcmpicc "ring token 1 (expect 1)" "$T/probe"
    "$bindir/hcmpicxx" -o "$T/cxx_ring" "$top_srcdir/tests/fortran/cxx_ring.cc" || fail "hcmpicxx"
    timeout 90 "$bindir/hcmpirun" -n 2 --timeout 60 "$T/cxx_ring" || fail "hcmpicxx program"
    echo "ok: hcmpicxx program on 2 ranks"
    [ -x "$bindir/mpicc" ] || return 0
    expect_line "mpicc -show" "$("$bindir/mpicc" -show a.c)" "$("$bindir/hcmpicc" -show a.c)"
    run_check mpiexec "ring token 1 (expect 1)" timeout 90 "$bindir/mpiexec" -n 2 "$T/probe"
    run_check mpirun "ring token 1 (expect 1)" timeout 90 "$bindir/mpirun" -np 2 "$T/probe"
}

ns_fortran() {
    [ $have_fc = yes ] || return 0
    for pair in hcmpif77:basic.f hcmpifort:basic.f90 hcmpif90:basic_f08.f90; do
        w=${pair%%:*}
        src=${pair#*:}
        "$bindir/$w" -w -o "$T/$src.x" "$top_srcdir/tests/fortran/$src" || fail "$w $src"
        timeout 90 "$bindir/hcmpirun" -n 2 --timeout 60 "$T/$src.x" >"$T/$src.log" 2>&1 ||
            { cat "$T/$src.log"; fail "$w-built $src on 2 ranks"; }
        echo "ok: $src built by installed $w runs on 2 ranks"
    done
}

ns_pkgconfig() {
    command -v pkg-config >/dev/null 2>&1 || return 0
    flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs hcmpi)
    # $flags is split on purpose: it is a list of compiler words.
    ${CC:-cc} -o "$T/probe_pc" "$top_srcdir/tests/relink/maps_probe.c" $flags ||
        fail "cc with pkg-config flags"
    run2 pkg-config "ring token 1 (expect 1)" "$T/probe_pc"
}

ns_cmake() {
    command -v cmake >/dev/null 2>&1 || { echo "no cmake: find_package(hcmpi) not tried"; return 0; }
    mkdir -p "$T/cm"
    cp "$top_srcdir/tests/relink/maps_probe.c" "$T/cm/"
    cat >"$T/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.10)
project(probe C)
find_package(hcmpi 0.1 REQUIRED)
add_executable(probe maps_probe.c)
target_link_libraries(probe PRIVATE hcmpi::hcmpi)
CM
    (cmake -S "$T/cm" -B "$T/cm/b" -DCMAKE_PREFIX_PATH="$prefix" &&
        cmake --build "$T/cm/b") >"$T/cmake.log" 2>&1 || { cat "$T/cmake.log"; fail "cmake"; }
    run2 cmake "ring token 1 (expect 1)" "$T/cm/b/probe"
}

ns_relink() {
    expect_line "installed hcmpirun --relink" \
        "$("$bindir/hcmpirun" --relink -n 1 sh -c 'echo "$LD_LIBRARY_PATH"')" "$abidir:$libdir"
    command -v mpicc.mpich >/dev/null 2>&1 || { echo "no mpicc.mpich: relink runs left out"; return 0; }
    mpicc.mpich -c -o "$T/mp.o" "$top_srcdir/tests/relink/maps_probe.c" || fail "mpicc.mpich -c"
    mpicc.mpich -o "$T/mp_mpich" "$T/mp.o" || fail "mpicc.mpich"
    ${CC:-cc} -o "$T/mp_mpi" "$T/mp.o" -L"$abidir" -lmpi || fail "link with -lmpi"
    for pair in mp_mpich:libmpich.so.12 mp_mpi:libmpi.so.12; do
        run_check "${pair%%:*}" "ring token 1 (expect 1)" timeout 90 \
            "$bindir/hcmpirun" --relink -n 2 --timeout 60 "$T/${pair%%:*}"
        check_maps "$T/${pair%%:*}.log" "$abidir" 2 "${pair#*:}"
    done
    echo "ok: MPICH-built programs under the installed hcmpirun --relink"
}

in_namespace() {
    D=$1
    [ -d "$prefix" ] || skip "prefix $prefix does not exist here to mount on"
    mount -t overlay overlay -o "lowerdir=$D$prefix:$prefix" "$prefix" 2>/dev/null ||
        mount --bind "$D$prefix" "$prefix" || skip "cannot mount the stage on $prefix"
    unset LD_LIBRARY_PATH
    cd "$T" || exit 1
    ns_c
    ns_fortran
    ns_pkgconfig
    ns_cmake
    ns_relink
    echo "ok: the installed tree builds and runs from $prefix alone"
}

if [ "${1:-}" = --in-namespace ]; then
    in_namespace "$2"
    exit 0
fi
need_built
D=$T/stage
stage_install
stage_files
stage_paths
stage_wrappers
stage_pkgconfig
stage_mpi_names
[ "$(id -u)" -eq 0 ] && unshare -m --propagation private true 2>/dev/null ||
    skip "the staged install is right; running it needs root and unshare -m"
unshare -m --propagation private sh "$top_srcdir/tests/tools/install.sh" --in-namespace "$D" ||
    fail "the installed tree"
