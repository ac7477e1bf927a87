#!/bin/sh
# Debian's NetPIPE (NPmpich2, linked against libmpich.so.12) on 2 ranks of
# hcmpi, under hcmpirun --relink and under mpiexec.mpich with
# LD_LIBRARY_PATH, 1 byte to 4 MiB (a fixed 20 repeats per size, so the run
# is short), plus NetPIPE's integrity check with preposted receives and
# synchronous sends.  While each timed run is going, the test reads
# /proc/<pid>/maps of both NPmpich2 ranks: every libmpi* mapping must be
# hcmpi's.  An MPICH-built probe reads its own maps the same two ways.
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
mpich_cc "$T/maps_probe" "$top_srcdir/tests/relink/maps_probe.c"
need_pkg NPmpich2 netpipe-mpich2
NP=$(readlink -f "$(command -v NPmpich2)")

descendants() {
    for c in $(ps -o pid= --ppid "$1"); do
        echo "$c"
        descendants "$c"
    done
}

# rank_maps LAUNCHER_PID OUT: once two NPmpich2 processes run under the
# launcher, their libmpi* mappings go to OUT.
rank_maps() {
    i=0
    while [ $i -lt 300 ]; do
        : >"$2"
        found=0
        for p in $(descendants "$1"); do
            [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$NP" ] || continue
            awk -v p="$p" '{ n = split($6, a, "/") } a[n] ~ /^libmpi/ { print "pid", p, "maps", $6 }' \
                "/proc/$p/maps" >>"$2" 2>/dev/null && found=$((found + 1))
        done
        [ $found -ge 2 ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# check_netpipe LOG OUTFILE
check_netpipe() {
    grep -q "^  0: *1 bytes .* times --> .* Mbps in .* usec" "$1" ||
        fail "NetPIPE did not print its first line"
    grep -q "^ *[0-9]*: *4194304 bytes .* times --> .* Mbps in .* usec" "$1" ||
        fail "NetPIPE did not reach 4194304 bytes"
    # Every row of the -o file: size, a positive rate, a positive time.
    awk 'NF != 3 || $2 <= 0 || $3 <= 0 { bad = 1 } $1 == 4194304 { big = 1 }
         END { exit bad || !big || NR < 100 }' "$2" ||
        fail "NetPIPE's output file is incomplete or has a zero rate"
}

# timed_run LAUNCHER TAG: NPmpich2 in the background while its maps are read.
timed_run() {
    $1 2 NPmpich2 -u 4194304 -n 20 -o "$2.out" >"$2.log" 2>&1 &
    job=$!
    rank_maps $job "$2.maps"
    found=$?
    wait $job || { cat "$2.log"; fail "NPmpich2 under $1"; }
    [ $found -eq 0 ] || fail "did not see both NPmpich2 ranks under $1"
    cat "$2.maps"
    check_maps "$2.maps" "$ABI_DIR" 2 libmpich.so.12
    tail -3 "$2.log"
    check_netpipe "$2.log" "$2.out"
    echo "ok: NPmpich2 under $1"
}

relink_run 2 "$T/maps_probe" >"$T/probe1" 2>&1 || { cat "$T/probe1"; fail "probe under hcmpirun --relink"; }
cat "$T/probe1"
check_maps "$T/probe1" "$ABI_DIR" 2 libmpich.so.12
grep -q "^ring token 1 (expect 1)" "$T/probe1" || fail "probe ring token wrong"
hydra_run 2 "$T/maps_probe" >"$T/probe2" 2>&1 || { cat "$T/probe2"; fail "probe under mpiexec.mpich"; }
cat "$T/probe2"
check_maps "$T/probe2" "$ABI_DIR" 2 libmpich.so.12
grep -q "^ring token 1 (expect 1)" "$T/probe2" || fail "probe ring token wrong"

cd "$T" || exit 1
timed_run relink_run np1
timed_run hydra_run np2
relink_run 2 NPmpich2 -u 4194304 -i -a -S -n 5 >check.log 2>&1 ||
    { cat check.log; fail "NPmpich2 integrity check"; }
passed=$(grep -c "Integrity check passed" check.log)
grep -i "integrity check failed" check.log && fail "NetPIPE integrity check failed"
[ "$passed" -ge 30 ] || { cat check.log; fail "only $passed integrity checks passed"; }
echo "ok: NetPIPE integrity check, $passed sizes"
