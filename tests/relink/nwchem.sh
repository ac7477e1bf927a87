#!/bin/sh
# Debian's NWChem for MPICH (nwchem-mpich) on hcmpi.  Its Global Arrays
# run over ARMCI-MPI, so every distributed matrix access is MPI one-sided
# communication (windows, passive-target locks, Get, Put, Accumulate,
# fetch-and-op counters) besides the collectives.  A water molecule
# (6-31G*):
#  - SCF energy on 2 and 4 ranks, and on 2 ranks over tcp;
#  - B3LYP DFT energy and gradient on 3 ranks;
# each equals what MPICH computes on one rank (no communication) within
# the convergence thresholds: 1e-7 hartree for energies, 1e-5 for every
# gradient component.  (Debian's MPICH 4.0.2 itself does not converge the
# 2-rank SCF on this machine.)
# Skips (77) only when the package cannot be installed.
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
need_pkg nwchem.mpich nwchem-mpich
command -v mpiexec.mpich >/dev/null 2>&1 || skip "mpiexec.mpich not installed"
cd "$T" || exit 1

cat >scf.nw <<'EOF'
start scf
geometry units angstrom noautosym
 symmetry c1
 O  0.000  0.000  0.000
 H  0.000  0.757  0.587
 H  0.000 -0.757  0.587
end
basis
 * library 6-31g*
end
task scf energy
EOF
sed -e 's/^start scf/start dft/' -e 's/^task scf energy/dft\n xc b3lyp\nend\ntask dft gradient/' \
    scf.nw >dft.nw

# run NAME LAUNCH...: a fresh directory per run (NWChem keeps its files).
run() {
    name=$1
    shift
    mkdir "$name" && cp scf.nw dft.nw "$name" || fail "$name: setup"
    (cd "$name" && "$@") >"$name.log" 2>&1 || { tail -30 "$name.log"; fail "$name: rc $?"; }
}
# value FILE PATTERN: the last number of the line matching PATTERN.
value() { grep "$2" "$1" | tail -1 | awk '{print $NF}'; }
# gradient FILE: the three atoms' gradient components, one per line.
gradient() {
    grep -A5 "DFT ENERGY GRADIENTS" "$1" | tail -3 | awk '{print $6; print $7; print $8}'
}
close() { awk -v a="$1" -v b="$2" -v tol="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= tol) }'; }

# --relink: hcmpi's MPICH-named libraries (and the ASan runtime preloaded
# in a sanitized build, whose leak check then sees NWChem's own few
# unfreed bytes: those, and only those, are suppressed).
echo "leak:nwchem.mpich" >lsan.supp
hc() {
    LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
        timeout -k 10 300 "$HCMPIRUN" --relink --timeout 280 "$@"
}
run ref_scf timeout 300 mpiexec.mpich -n 1 nwchem.mpich scf.nw
run ref_dft timeout 300 mpiexec.mpich -n 1 nwchem.mpich dft.nw
ref=$(value ref_scf.log "Total SCF energy")
refd=$(value ref_dft.log "Total DFT energy")
[ -n "$ref" ] && [ -n "$refd" ] || fail "MPICH's one-rank reference has no energy"
echo "MPICH on 1 rank: SCF $ref, DFT $refd"

for case in scf2:2: scf4:4: scftcp:2:HCMPI_TRANSPORTS=tcp; do
    name=${case%%:*}
    rest=${case#*:}
    n=${rest%%:*}
    env=${rest#*:}
    run "$name" hc -n "$n" ${env:+--env "$env"} nwchem.mpich scf.nw
    e=$(value "$name.log" "Total SCF energy")
    close "$e" "$ref" 1e-7 || fail "$name: SCF energy $e, MPICH's $ref"
    echo "PASS: SCF on $n ranks${env:+ ($env)}: $e"
done

run dft3 hc -n 3 nwchem.mpich dft.nw
e=$(value dft3.log "Total DFT energy")
close "$e" "$refd" 1e-7 || fail "dft3: DFT energy $e, MPICH's $refd"
gradient dft3.log >g.txt
gradient ref_dft.log >gref.txt
[ "$(wc -l <g.txt)" -eq 9 ] || { cat dft3.log | tail -20; fail "dft3: no gradient"; }
paste g.txt gref.txt | while read -r a b; do
    close "$a" "$b" 1e-5 || { echo "gradient $a, MPICH's $b"; exit 1; }
done || fail "dft3: gradient differs from MPICH's"
echo "PASS: B3LYP energy and gradient on 3 ranks: $e"
