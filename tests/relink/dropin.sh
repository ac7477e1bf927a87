#!/bin/sh
# hcmpicc and hcmpirun as drop-in mpicc and mpiexec: MPICH's wrapper
# options (-shlib, -static-mpi) and mpiexec's (-np, -genv, -env, -ppn,
# -hosts, -l), and a clear message for those hcmpirun does not support.
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
CC=$top_builddir/tools/hcmpicc-build
failures=0
check() { # description, then a command that must succeed
    d=$1
    shift
    if "$@"; then echo "PASS: $d"; else echo "FAIL: $d"; failures=$((failures + 1)); fi
}
run() { timeout 60 "$HCMPIRUN" "$@" >"$T/out" 2>"$T/err" </dev/null; }

check "hcmpicc -shlib links the shared library" \
    sh -c 'case "$($1 -shlib -show a.c)" in *" -lhcmpi") exit 0;; esac; exit 1' x "$CC"
if [ -f "$top_builddir/.libs/libhcmpi.a" ]; then
    check "hcmpicc -static-mpi links libhcmpi.a" \
        sh -c 'case "$($1 -static-mpi -show a.c)" in *libhcmpi.a*) exit 0;; esac; exit 1' x "$CC"
else
    check "hcmpicc -static-mpi says why it cannot" \
        sh -c '! $1 -static-mpi -show a.c 2>"$2/e" && grep -q "enable-static" "$2/e"' x "$CC" "$T"
fi
check "hcmpicc -static-mpi -c compiles only" \
    sh -c 'case "$($1 -static-mpi -c -show a.c)" in *-lhcmpi*|*libhcmpi.a*) exit 1;; esac' x "$CC"

check "-np 3 -l labels three ranks" \
    sh -c 'run() { timeout 60 "$@" >"$T/out" 2>&1 </dev/null; }; T=$2
           run "$1" -np 3 -l sh -c "echo r\$PMI_RANK" &&
           [ "$(sort "$T/out" | tr "\n" " ")" = "[0] r0 [1] r1 [2] r2 " ]' x "$HCMPIRUN" "$T"
check "-genv K V and -env K V reach every rank" \
    sh -c 'timeout 60 "$1" -n 2 -genv HC_A "x y" -env HC_B 2 sh -c "echo \"\$HC_A/\$HC_B\"" >"$2/o" &&
           [ "$(grep -c "^x y/2$" "$2/o")" -eq 2 ]' x "$HCMPIRUN" "$T"
check "-ppn and -hosts of this host are accepted" \
    sh -c 'timeout 60 "$1" -ppn 2 -hosts "localhost,$(hostname):2" -n 2 true' x "$HCMPIRUN"
check "-hosts naming another host is refused clearly" \
    sh -c '! timeout 60 "$1" -hosts other-host.invalid -n 2 true 2>"$2/e" &&
           grep -q "this host only" "$2/e"' x "$HCMPIRUN" "$T"
for opt in "-f hosts" "-hostfile hosts" "-wdir /tmp" "-genvnone"; do
    check "$opt is reported as not supported" \
        sh -c '! timeout 60 "$1" $3 -n 1 true 2>"$2/e" && grep -q "is not supported" "$2/e"' \
        x "$HCMPIRUN" "$T" "$opt"
done
check "-bind-to core is accepted, as Hydra's option" \
    timeout 60 "$HCMPIRUN" -bind-to core -n 2 true
check "':' (several programs) is reported as not supported" \
    sh -c '! timeout 60 "$1" -n 1 : -n 1 true 2>"$2/e" && grep -q "is not supported" "$2/e"' x "$HCMPIRUN" "$T"
check "--relink puts the MPICH-named libraries first (then libmpi_abi's folder)" \
    sh -c 'LD_LIBRARY_PATH=/old timeout 60 "$1" --relink -n 1 sh -c "echo \$LD_LIBRARY_PATH" >"$2/o" &&
           grep -qx "$3:\(.*:\)\?/old" "$2/o"' x "$HCMPIRUN" "$T" "$ABI_DIR"
echo "$failures failed"
[ $failures -eq 0 ]
