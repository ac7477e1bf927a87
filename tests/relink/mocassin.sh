#!/bin/sh
# Debian's mocassin (Monte Carlo photoionisation, Fortran, MPICH-built) on
# hcmpi.  Every rank follows its own photon packets; after each iteration
# MPI_Allreduce sums the estimators of the whole grid (single-precision
# arrays) and the ranks share the cells' updates the same way.  A Meudon
# HII-region benchmark shrunk to 5x5x5 cells, 10000 packets, 2 iterations:
#  - on 2 ranks, and on 2 ranks over tcp, the result files are byte for
#    byte those MPICH writes at test time (a sum of two addends does not
#    depend on the order);
#  - on 3 ranks every number is MPICH's within 1e-4 relative (the two
#    libraries add three ranks' floats in different orders: ~1e-7 apart).
# repeatable_seed.so, preloaded into every rank under both libraries, makes
# a rank's random seed depend on its rank alone (MPICH twice then writes the
# same files).  Skips (77) only when the package cannot be installed.
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
need_pkg mocassin mocassin
command -v mpiexec.mpich >/dev/null 2>&1 || skip "mpiexec.mpich not installed"
command -v cc >/dev/null 2>&1 || skip "no C compiler for the seed shim"
cd "$T" || exit 1
cc -shared -fPIC -O1 -Wall -Werror -o repeatable_seed.so \
    "$top_srcdir/tests/relink/repeatable_seed.c" || fail "cc repeatable_seed.c"
# After whatever the launcher preloads (hcmpirun --relink: the ASan runtime
# of a sanitized build, which must come first).
cat >seeded <<EOF
#!/bin/sh
LD_PRELOAD="\${LD_PRELOAD:+\$LD_PRELOAD:}$T/repeatable_seed.so" exec "\$@"
EOF
chmod +x seeded

mkdir input
cat >input/input.in <<'EOF'
TStellar 40000.
output
symmetricXYZ
Hdensity 100.
TeStart 8000.
contShape blackbody
nebComposition "input/abun.in"
maxIterateMC 2 95.
nPhotons 10000
nx 5
ny 5
nz 5
nbins 300
LPhot 4.26e13
nuMax 15.
nuMin 1.001e-5
Rin 30.e17
Rout 1.46E+19
edges 1.40E+19 1.40E+19 1.40E+19
convLimit 0.05
EOF
# H, He, ..., Zn by number relative to H (the benchmark's: C, N, O, Ne, S).
for a in 1. 0.1 0. 0. 0. 2.2e-4 4.e-5 3.3e-4 0. 5.e-5 0. 0. 0. 0. 0. 9.e-6 \
    0. 0. 0. 0. 0. 0. 0. 0. 0. 0. 0. 0. 0. 0.; do
    echo "$a"
done >input/abun.in

# run NAME LAUNCH...: mocassin in a fresh directory NAME (it reads
# input/input.in and writes output/).
run() {
    name=$1
    shift
    mkdir -p "$name/output" && cp -r input "$name" || fail "$name: setup"
    (cd "$name" && "$@" "$T/seeded" mocassin) >"$name.log" 2>&1 ||
        { tail -30 "$name.log"; fail "$name: rc $?"; }
    grep -q "clean exit" "$name.log" || { tail -30 "$name.log"; fail "$name: no clean exit"; }
}
echo "leak:mocassin" >lsan.supp
hc() {
    LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
        timeout -k 10 120 "$HCMPIRUN" --relink --timeout 100 "$@"
}
# Every file but summary.out, which has the wall-clock times.
RESULTS="lineFlux.out temperature.out ionratio.out SED.out tauNu.out grid1.out grid2.out"
# near A B TOL: the same words, and numbers within TOL relative (values
# under 1e-30, denormals in single precision, are not compared).
near() {
    awk -v tol="$3" '
    function num(s) { return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
    function abs(x) { return x < 0 ? -x : x }
    NR == FNR { for (i = 1; i <= NF; i++) a[++na] = $i; next }
    { for (i = 1; i <= NF; i++) b[++nb] = $i }
    END {
        if (na != nb) { print "  " na " words against " nb; exit 1 }
        for (i = 1; i <= na; i++) {
            if (!num(a[i]) || !num(b[i])) {
                if (a[i] != b[i]) { print "  word " i ": " a[i] " against " b[i]; exit 1 }
                continue
            }
            m = abs(a[i]) > abs(b[i]) ? abs(a[i]) : abs(b[i])
            if (m > 1e-30 && abs(a[i] - b[i]) > tol * m) {
                print "  word " i ": " a[i] " against " b[i]; exit 1
            }
        }
    }' "$1" "$2"
}

run ref2 timeout 120 mpiexec.mpich -n 2
run ref3 timeout 120 mpiexec.mpich -n 3
# hbeta DIR: the H-beta luminosity of DIR's run.
hbeta() { grep -m1 "Hbeta \[E36" "$1/output/lineFlux.out" | awk '{print $NF}'; }
hbeta=$(hbeta ref2)
[ -n "$hbeta" ] || fail "MPICH's run has no Hbeta flux"
echo "MPICH on 2 ranks: Hbeta $hbeta E36 erg/s"

for case in two: tcp:HCMPI_TRANSPORTS=tcp; do
    name=${case%%:*}
    env=${case#*:}
    run "$name" hc -n 2 ${env:+--env "$env"}
    for f in $RESULTS; do
        cmp "ref2/output/$f" "$name/output/$f" || fail "$name: $f differs from MPICH's"
    done
    echo "PASS: 2 ranks${env:+ ($env)}: every result file equals MPICH's"
done

run three hc -n 3
for f in $RESULTS; do
    near "ref3/output/$f" "three/output/$f" 1e-4 || fail "three: $f differs from MPICH's"
done
echo "PASS: 3 ranks: every number within 1e-4 of MPICH's (Hbeta $(hbeta three), MPICH's $(hbeta ref3))"
