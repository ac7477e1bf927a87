#!/bin/bash
# Installs missing build dependencies, configures (--enable-werror), builds,
# and runs the whole test suite (make check).  Prints the logs of failed
# tests and a final "N passed, N failed, N skipped" line; exits with make
# check's status.
#   scripts/check.sh [--sanitizers] [make check arguments, e.g. TESTS=...]
#   BUILD_DIR (default build/, build-san/ with --sanitizers), JOBS (2)
set -u
san=no
if [ "${1:-}" = "--sanitizers" ]; then
    san=yes
    shift
    : "${BUILD_DIR:=$(cd "$(dirname "$0")/.." && pwd)/build-san}"
fi
. "$(dirname "$0")/common.sh"
hc_install_deps || exit 1
if [ $san = yes ]; then
    hc_build --enable-sanitizers || exit 1
else
    hc_build || exit 1
fi
echo "== make -j$JOBS check $*"
# Stale results from an earlier run would skew the count.
find "$BUILD_DIR" -name '*.trs' -delete
make -C "$BUILD_DIR" -j"$JOBS" check "$@"
status=$?
# A short libFuzzer pass over the packet and PMI decoders (about 45 s).
if [ "${CI:-}" = true ] && [ $san = no ] && command -v clang >/dev/null 2>&1; then
    echo "== make fuzz-short"
    make -C "$BUILD_DIR" fuzz-short
    frc=$?
    [ $frc -eq 0 ] || [ $frc -eq 77 ] || status=1
fi
hc_print_failed_logs "$BUILD_DIR"
if [ "${HCMPI_CHECK_NO_SUMMARY:-0}" != 1 ]; then
    read -r p f s < <(hc_trs_counts "$BUILD_DIR")
    echo "$p passed, $f failed, $s skipped"
fi
exit $status
