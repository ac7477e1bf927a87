# Common code for tests/relink/*.sh (sourced, not run).  These tests run
# programs built against MPICH (Debian's, or compiled here with mpicc.mpich)
# on hcmpi through its MPICH-named libraries in mpich-abi/.libs.
#
# Environment: top_builddir, top_srcdir (set by the Makefile).
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
top_builddir=$(cd "$top_builddir" && pwd)
top_srcdir=$(cd "$top_srcdir" && pwd)
HCMPIRUN=$top_builddir/tools/hcmpirun
ABI_DIR=$top_builddir/mpich-abi/.libs
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

skip() {
    echo "SKIP: $*"
    exit 77
}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

need_built() {
    [ -x "$HCMPIRUN" ] || fail "$HCMPIRUN not built"
    [ -e "$ABI_DIR/libmpi.so.12" ] || fail "$ABI_DIR/libmpi.so.12 not built"
    [ -e "$ABI_DIR/libmpich.so.12" ] || fail "$ABI_DIR/libmpich.so.12 not built"
    ABI_DIR=$(cd "$ABI_DIR" && pwd -P)
}

# have THING: THING is a command on PATH or an existing file.
have() {
    case $1 in
    /*) [ -e "$1" ] ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
    esac
}

# try_pkg THING PACKAGE: installs PACKAGE with apt when THING (a command or
# an absolute file name) is missing and we may (root, apt-get present);
# returns whether THING is there afterwards.
try_pkg() {
    have "$1" && return 0
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing Debian package $2"
        DEBIAN_FRONTEND=noninteractive apt-get install \
            -o DPkg::Lock::Timeout=600 -y --no-install-recommends "$2" \
            >"$T/apt.log" 2>&1 || tail -5 "$T/apt.log"
    fi
    have "$1"
}

# need_pkg THING PACKAGE: try_pkg, else skip the test.
need_pkg() {
    try_pkg "$1" "$2" || skip "package $2 ($1) cannot be installed"
}

# mpich_cc OUT SRC...: compiles with MPICH's wrapper and mpi.h.
mpich_cc() {
    command -v mpicc.mpich >/dev/null 2>&1 || skip "mpicc.mpich not installed"
    out=$1
    shift
    mpicc.mpich -std=gnu11 -O1 -Wall -Werror -o "$out" "$@" || fail "mpicc.mpich $*"
}

# relink_run N PROG ARGS...: PROG on N ranks under hcmpirun --relink.
relink_run() {
    n=$1
    shift
    echo "+ hcmpirun --relink -n $n $*"
    timeout -k 10 150 "$HCMPIRUN" --relink -n "$n" --timeout 120 "$@"
}

# hydra_run N PROG ARGS...: PROG on N ranks under MPICH's mpiexec with
# hcmpi's MPICH-named libraries first on LD_LIBRARY_PATH.
hydra_run() {
    command -v mpiexec.mpich >/dev/null 2>&1 || skip "mpiexec.mpich not installed"
    n=$1
    shift
    echo "+ LD_LIBRARY_PATH=$ABI_DIR mpiexec.mpich -n $n $*"
    LD_LIBRARY_PATH="$ABI_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        timeout -k 10 120 mpiexec.mpich -n "$n" "$@"
}

# run_check TAG LINE CMD...: CMD must succeed and print LINE (a whole line);
# its output is shown and kept in $T/TAG.log.
run_check() {
    tag=$1
    line=$2
    shift 2
    "$@" >"$T/$tag.log" 2>&1 || { cat "$T/$tag.log"; fail "$tag"; }
    cat "$T/$tag.log"
    grep -qx "$line" "$T/$tag.log" || fail "$tag: no line '$line'"
}

# check_maps LOG DIR N LIB...: every "WHO ID maps PATH" line of LOG names a
# file in DIR, and each LIB (a file name there, e.g. libmpi.so.12) is mapped
# by N distinct processes (ID: a rank or a pid).
check_maps() {
    log=$1
    dir=$2
    n=$3
    shift 3
    grep " maps " "$log" | grep -v " maps $dir/" && fail "a library outside $dir is mapped"
    for lib in "$@"; do
        who=$(grep -F " maps $dir/$lib" "$log" | awk '{print $2}' | sort -u | wc -l)
        [ "$who" -eq "$n" ] || fail "$who of $n processes mapped $dir/$lib"
    done
}
