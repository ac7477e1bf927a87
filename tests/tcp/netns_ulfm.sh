#!/bin/sh
# ULFM across two "hosts": network namespaces joined by a veth pair,
# 10.202.X.0/24 addresses.  hcmpirun --no-kill-on-failure starts each rank
# through a stand-in that enters the first namespace for the lower half of
# the ranks and the second for the upper half, with HCMPI_NODE_ID naming
# the namespace, so ranks of one host meet over shm and ranks of different
# hosts only over tcp (checked from HCMPI_LOG=debug's "peer N via" lines).
# Then, 2 ranks per host: tests/mpi/ulfm's revoke racing point-to-point,
# agreement with a death, agreements while the coordinator dies, shrink
# until one rank is left; ulfm_rma's kill (epochs of windows locked by
# messages, as the members are on two nodes, fail and free the dead
# rank's locks); and examples/resilient_jacobi on 6 ranks (3 per host)
# with a rank of each host killed in one run, which must print the
# residual of the run without failure.  The killed ranks' deaths reach the
# other host through closed tcp connections.  Skips (77) unless root with
# ip, nsenter and network namespaces.
set -u
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "needs hcmpirun --no-kill-on-failure"
[ "$(id -u)" = 0 ] || skip "needs root for network namespaces"
for p in ip nsenter; do
    command -v $p >/dev/null || skip "no $p"
done
mpi_launcher_cmd
ulfm=$(mpi_prog_path ulfm)
rma=$(mpi_prog_path ulfm_rma)
jacobi=$(mpi_prog_path examples/resilient_jacobi)
for prog in "$ulfm" "$rma" "$jacobi"; do
    [ -x "$prog" ] || skip "$prog not built"
done

id=$$
net=10.202.$((id % 200 + 20))
h1=hcu_${id}_1
h2=hcu_${id}_2
tmp=$(mktemp -d /tmp/hcu_netns.XXXXXX) || exit 99
cleanup() {
    for ns in "$h1" "$h2"; do ip netns del "$ns" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 99' INT TERM HUP

ip netns add "$h1" && ip netns add "$h2" &&
    ip link add "hcu${id}a" netns "$h1" type veth peer name "hcu${id}b" \
        netns "$h2" &&
    ip -n "$h1" addr add "$net.1/24" dev "hcu${id}a" &&
    ip -n "$h2" addr add "$net.2/24" dev "hcu${id}b" &&
    ip -n "$h1" link set lo up && ip -n "$h2" link set lo up &&
    ip -n "$h1" link set "hcu${id}a" up && ip -n "$h2" link set "hcu${id}b" up ||
    skip "network namespace set-up failed"

# The rank's host: its namespace, as a node of its own.  exec keeps the
# pid hcmpirun started, so it sees the rank's own death.
cat >"$tmp/onhost" <<EOS
#!/bin/sh
if [ "\$PMI_RANK" -lt \$((PMI_SIZE / 2)) ]; then ns=$h1; else ns=$h2; fi
HCMPI_NODE_ID=\$ns
export HCMPI_NODE_ID
exec nsenter --net=/run/netns/\$ns "\$@"
EOS
chmod +x "$tmp/onhost"
HCMPI_TCP_IF=$net.0/24
export HCMPI_TCP_IF
out=$tmp/out

run() { # EXPECT(ok|death) RANKS PROG ARGS...
    expect=$1 n=$2
    shift 2
    echo "+ hcmpirun --no-kill-on-failure -n $n onhost ${1##*/} ${2:-}"
    timeout -k 5 60 "$HCMPIRUN" --no-kill-on-failure -n "$n" --timeout 45 \
        "$tmp/onhost" "$@" >"$out" 2>&1
    rc=$?
    grep -v " debug " "$out"
    [ $rc -ne 124 ] || fail "$*: job hung until the timeout"
    grep -q "FAIL rank" "$out" && fail "$*: a check failed"
    if [ "$expect" = ok ]; then
        [ $rc -eq 0 ] || fail "$*: job exited $rc"
    else
        [ $rc -ne 0 ] || fail "$*: job exited 0 although a rank died"
        grep -q "killed by signal 9" "$out" || fail "$*: no death reported"
    fi
}
passed() { # MODE SURVIVORS
    n=$(grep -c "PASS $1" "$out")
    [ "$n" -eq "$2" ] || fail "$1: $n of $2 ranks passed"
}

HCMPI_LOG=debug run ok 4 "$ulfm" revoke_p2p
passed revoke_p2p 4
# Each rank reaches its host's other rank over shm and the others over tcp.
for r in 0 1 2 3; do
    mate=$((r ^ 1))
    for p in 0 1 2 3; do
        [ $p -eq $r ] && continue
        want=tcp
        [ $p -eq $mate ] && want=shm
        grep -q "rank $r: peer $p via $want" "$out" ||
            fail "rank $r does not reach $p via $want: $(grep "rank $r: peer $p via" "$out")"
    done
done

export HCMPI_LOG=warn
run death 4 "$ulfm" agree
passed agree 3
run death 4 "$ulfm" agree_kill 0
passed agree_kill 3
run death 4 "$ulfm" shrink_loop
passed shrink_loop 1
run death 4 "$rma" kill
passed kill 3

HCMPI_LOG=error run ok 6 "$jacobi"
ref=$(sed -n 's/^residual \([^ ]*\) after 300 iterations on 6 ranks$/\1/p' "$out")
[ -n "$ref" ] || fail "no residual from the run without failure"
HCMPI_LOG=error run death 6 "$jacobi" --kill 1@70 --kill 4@150
got=$(sed -n 's/^residual \([^ ]*\) after 300 iterations on 4 ranks$/\1/p' "$out")
[ "$got" = "$ref" ] || fail "jacobi with kills: residual '$got', want $ref"
n=$(grep -c "recovered on 4 ranks" "$out")
[ "$n" -eq 4 ] || fail "jacobi: $n of 4 survivors recovered on 4 ranks"
n=$(grep -c "killed by signal 9" "$out")
[ "$n" -eq 2 ] || fail "jacobi: $n deaths reported, want 2"
echo "netns_ulfm: OK (residual $ref across the deaths)"
