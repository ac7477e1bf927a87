#!/bin/sh
# Fortran coarrays from Debian's OpenCoarrays for MPICH
# (libcoarrays-mpich-dev: caf.mpich; one-sided MPI underneath: windows,
# passive-target locks, atomics, puts and gets) on hcmpi by relinking:
# tests/relink/coarray_check.f90 compiled with caf.mpich runs on 4 images
# under hcmpirun --relink and on MPICH; the sorted outputs must be equal
# and say that every check held.  Skips (77) when the package cannot be
# installed.
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
need_pkg caf.mpich libcoarrays-mpich-dev
command -v mpiexec.mpich >/dev/null 2>&1 || skip "mpiexec.mpich not installed"
cd "$T" || exit 1
caf.mpich -O1 -o coarray_check "$top_srcdir/tests/relink/coarray_check.f90" \
    >caf.log 2>&1 || { cat caf.log; fail "caf.mpich"; }
relink_run 4 ./coarray_check >hc.out 2>hc.err ||
    { cat hc.out hc.err; fail "coarray_check on hcmpi"; }
timeout -k 10 150 mpiexec.mpich -n 4 ./coarray_check >mpich.out 2>mpich.err ||
    { cat mpich.out mpich.err; fail "coarray_check on MPICH"; }
# The program's lines only (MPICH's UCX may warn on stdout).
grep -E '^images? ' hc.out | sort >hc.sorted
grep -E '^images? ' mpich.out | sort >mpich.sorted
[ "$(wc -l <hc.sorted)" -eq 9 ] || { cat hc.out; fail "hcmpi's run printed $(wc -l <hc.sorted) of 9 lines"; }
cat hc.sorted
cmp hc.sorted mpich.sorted || { diff hc.sorted mpich.sorted; fail "output differs from MPICH's"; }
grep -q '^images 4 atomic sum 10 critical count 200$' hc.sorted ||
    fail "atomics or critical sections went wrong"
[ "$(grep -c ' bad big 0$' hc.sorted)" -eq 4 ] || fail "a large remote write went wrong"
[ "$(grep -c ' co_sum 10 broadcast 4242$' hc.sorted)" -eq 4 ] ||
    fail "co_sum or co_broadcast went wrong"
echo "coarrays: OpenCoarrays (MPICH build) on hcmpi: output equals MPICH's"
