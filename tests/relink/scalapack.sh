#!/bin/sh
# Debian's ScaLAPACK test programs for MPICH (scalapack-mpi-test: BLACS and
# ScaLAPACK drivers linked against libscalapack-mpich and libmpich.so.12)
# on hcmpi, 4 ranks on a 2x2 or 1x4 process grid, with their own input
# files:
#  - xFbtest, BLACS's own tester through its Fortran interface (point to
#    point, broadcasts and combines on every type and grid shape, with
#    derived datatypes, user reduction ops and communicator splits): every
#    "TESTS;" summary counts 0 failures, and its last check, BLACS_ABORT,
#    ends the job as it must;
#  - the LU, QR, Cholesky, inverse, least-squares, tridiagonal-reduction and
#    nonsymmetric-eigensolver drivers (real and complex): each residual
#    check passes, as many as the input files ask for.
# Skips (77) only when the package cannot be installed.
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
D=/usr/lib/x86_64-linux-gnu/scalapack/mpich-tests
need_pkg "$D/xdlu" scalapack-mpi-test
cd "$T" || exit 1
cp "$D"/*.dat "$D"/BLACS/*.dat . || fail "copying the input files"

# --relink: hcmpi's MPICH-named libraries (and, in a sanitized build, the
# ASan runtime preloaded, which these programs would load too late).
run4() {
    timeout -k 10 150 "$HCMPIRUN" --relink -n 4 --timeout 120 "$@"
}

# BLACS: 22 summaries (5 types x send/recv, broadcast, combines...).
run4 "$D/xFbtest" >bt.log 2>&1
sums=$(grep -c "TESTS;" bt.log)
bad=$(grep "TESTS;" bt.log | grep -vc " 0 FAILED\.")
if [ "$sums" -ne 22 ] || [ "$bad" -ne 0 ] || ! grep -q "killed other procs" bt.log; then
    cat bt.log
    fail "BLACS tester: $sums summaries, $bad with failures"
fi
grep "TESTS;" bt.log
echo "PASS: BLACS tester (xFbtest), 22 summaries without a failure, BLACS_ABORT ends the job"

# driver, residual checks its input file asks for
for case in xdlu:240 xzlu:240 xdqr:352 xdllt:432 xdinv:320 xdls:576 xdtrd:134 \
    xznep:42; do
    prog=${case%%:*}
    want=${case#*:}
    run4 "$D/$prog" >"$prog.log" 2>&1
    rc=$?
    # A result line ends with its figures and the verdict.
    passed=$(grep -cE '[0-9.] +PASSED' "$prog.log")
    failed=$(grep -c "FAILED" "$prog.log")
    if [ $rc -ne 0 ] || [ "$passed" -ne "$want" ] || [ "$failed" -ne 0 ]; then
        tail -30 "$prog.log"
        fail "$prog: rc $rc, $passed checks passed (want $want), $failed failed"
    fi
    echo "PASS: $prog on 4 ranks, $passed of $want checks passed"
done
