# Shared by scripts/quickstart.sh, scripts/check.sh and .ci/run (sourced).
# Installs missing build dependencies (Debian/Ubuntu, apt), then configures
# and builds hcmpi out of tree.
#   BUILD_DIR   build directory (default: <repo>/build)
#   JOBS        make -j (default: 2)
#   CONFIGURE_FLAGS  extra configure flags

HC_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${BUILD_DIR:=$HC_REPO/build}"
: "${JOBS:=2}"
HC_APT_PACKAGES="build-essential autoconf automake libtool pkg-config check mpich libmpich-dev openmpi-bin libopenmpi-dev python3 gfortran g++ gnuplot-nox"
# The verbs transport compiles against its header in every mode (configure
# --with-verbs=auto leaves it out without one, and says so).
HC_APT_PACKAGES="$HC_APT_PACKAGES libibverbs-dev"
# Only for tests/launchers (Slurm daemons, PMIx header) and tests/relink
# (Debian programs linked against libmpich12, cmake); CI=true adds them.
HC_APT_CI_PACKAGES="slurm-wlm libpmix-dev"
HC_APT_CI_PACKAGES="$HC_APT_CI_PACKAGES netpipe-mpich2 yorick-mpy-mpich2 libtachyon-mpich-0 tachyon-bin-nox cmake"
HC_APT_CI_PACKAGES="$HC_APT_CI_PACKAGES scalapack-mpi-test nwchem-mpich" # tests/relink/scalapack.sh, nwchem.sh
HC_APT_CI_PACKAGES="$HC_APT_CI_PACKAGES mocassin" # tests/relink/mocassin.sh (Fortran, MPI_Allreduce; ~3 MB with its data)
HC_APT_CI_PACKAGES="$HC_APT_CI_PACKAGES libadios-bin libadios-mpich-dev" # tests/relink/adios.sh (about 4 MB)
HC_APT_CI_PACKAGES="$HC_APT_CI_PACKAGES eztrace otf2-tools" # tests/relink/eztrace.sh (about 1 MB)
HC_APT_CI_PACKAGES="$HC_APT_CI_PACKAGES chromium" # tests/tools/trace.sh renders report.html (issue 11)
if [ "${CI:-}" = true ]; then HC_APT_PACKAGES="$HC_APT_PACKAGES $HC_APT_CI_PACKAGES"; fi

hc_deps_missing() {
    local c
    for c in gcc make autoreconf automake libtoolize pkg-config python3 mpicc.mpich mpiexec.mpich; do
        command -v "$c" >/dev/null 2>&1 || { echo "$c"; return 0; }
    done
    pkg-config --exists check 2>/dev/null || { echo "check (pkg-config)"; return 0; }
    [ -f /usr/include/infiniband/verbs.h ] || { echo "libibverbs-dev"; return 0; }
    if [ "${CI:-}" = true ]; then
        command -v slurmd >/dev/null 2>&1 || { echo "slurmd"; return 0; }
        pkg-config --exists pmix 2>/dev/null || { echo "pmix (pkg-config)"; return 0; }
        command -v chromium >/dev/null 2>&1 || { echo "chromium"; return 0; }
    fi
    return 1
}

hc_install_deps() {
    local missing sudo=""
    missing=$(hc_deps_missing) || return 0
    echo "== missing build dependency: $missing; installing with apt"
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "not root and no sudo: install $HC_APT_PACKAGES" >&2; return 1; }
        sudo="sudo"
    fi
    $sudo apt-get update -q || return 1
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y \
        --no-install-recommends $HC_APT_PACKAGES
}

# hc_build [configure flags...]: autoreconf, configure in $BUILD_DIR, make.
hc_build() {
    echo "== autoreconf in $HC_REPO"
    (cd "$HC_REPO" && autoreconf -fi) || return 1
    mkdir -p "$BUILD_DIR" || return 1
    echo "== configure in $BUILD_DIR: --enable-werror $* ${CONFIGURE_FLAGS:-}"
    (cd "$BUILD_DIR" && "$HC_REPO/configure" -q --enable-werror "$@" ${CONFIGURE_FLAGS:-}) || return 1
    echo "== make -j$JOBS"
    make -C "$BUILD_DIR" -j"$JOBS"
}

# hc_trs_counts DIR...: prints "passed failed skipped" summed over the .trs
# files under the given build directories (ERROR and XPASS count as failed).
hc_trs_counts() {
    find "$@" -name '*.trs' -exec cat {} + 2>/dev/null | awk '
        /^:test-result: (PASS|XFAIL)/ { p++ }
        /^:test-result: (FAIL|ERROR|XPASS)/ { f++ }
        /^:test-result: SKIP/ { s++ }
        END { printf "%d %d %d\n", p, f, s }'
}

# hc_slowest_tests N DIR...: the N tests with the longest "duration: S s"
# line (tests/bounded.sh) in their logs under the given build directories.
hc_slowest_tests() {
    local n=$1
    shift
    find "$@" -name '*.log' -path '*/tests/*' -o -name '*.log' -path '*/bench/*' 2>/dev/null |
        xargs grep -H '^duration: [0-9]* s$' 2>/dev/null |
        sed -E 's|^(.*/)?([^/]+)/(tests\|bench)/(.*)\.log:duration: ([0-9]+) s$|\5 \3/\4 (\2)|' |
        sort -rn | head -n "$n"
}

# hc_print_failed_logs DIR: the log of every failed test under DIR.
hc_print_failed_logs() {
    local trs failed
    failed=$(grep -lE '^:test-result: (FAIL|ERROR|XPASS)' $(find "$1" -name '*.trs') 2>/dev/null)
    [ -n "$failed" ] || return 0
    # What failed, in brief, before the whole logs: a long log would push
    # its own verdict out of a truncated view of the output.
    echo "======== failures in brief ($1)"
    for trs in $failed; do
        echo "-- ${trs%.trs}.log"
        grep -E '^(FAIL|ERROR)|FAIL:|hung|timed out|Sanitizer' "${trs%.trs}.log" | head -20
    done
    for trs in $failed; do
        echo "======== ${trs%.trs}.log"
        cat "${trs%.trs}.log"
    done
}
