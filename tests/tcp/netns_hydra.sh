#!/bin/sh
# Two "hosts" as network namespaces on a bridge (a third namespace holds
# the bridge and runs mpiexec), 10.200.X.0/24 addresses; 4-rank jobs with
# 2 ranks per host, launched by MPICH's Hydra through an ssh stand-in that
# enters the target network namespace and a new UTS namespace named after
# it: the hosts differ in hostname as real ones do (they still share
# /dev/shm and the boot id), and the engine's host id (hostname + boot id)
# alone must tell them apart.  Checks, from the engine's HCMPI_LOG=debug
# lines of engine_p2p, that ranks of one host use shm and ranks of
# different hosts use tcp, then (with Hydra's -pmi-port: the ranks reach
# the launcher over TCP) that tcp listens on the address that reached it
# although a decoy network is each host's first interface, and that
# node_split finds two nodes of two ranks through
# Comm_split_type(SHARED).  Skips (77) unless root with ip,
# nsenter, unshare, network namespaces and Hydra.
set -u
prog=$PWD/tests/engine/engine_p2p
hydra=$(command -v mpiexec.hydra || command -v mpiexec.mpich || true)
[ "$(id -u)" = 0 ] && [ -x "$prog" ] && [ -n "$hydra" ] || exit 77
split=$PWD/tests/launchers/node_split
[ -x "$split" ] || { echo "missing $split"; exit 99; }
for p in ip nsenter unshare hostname mount; do
  command -v $p >/dev/null || exit 77
done

id=$$
net=10.200.$((id % 200 + 20))
sw=hct_${id}_s
h1=hct_${id}_1
h2=hct_${id}_2
br=hct${id}br
tmp=$(mktemp -d /tmp/hct_netns.XXXXXX) || exit 99
cleanup() {
  for ns in "$h1" "$h2" "$sw"; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 99' INT TERM HUP

setup() {
  ip netns add "$sw" || return 77
  ip -n "$sw" link set lo up &&
    ip -n "$sw" link add "$br" type bridge &&
    ip -n "$sw" addr add "$net.10/24" dev "$br" &&
    ip -n "$sw" link set "$br" up || return 77
  for i in 1 2; do
    eval ns=\$h$i
    # A decoy network first, so it is the first UP non-loopback address:
    # a veth pair with both ends on this host, in a subnet of its own that
    # the other host cannot route to.
    ip netns add "$ns" &&
      ip -n "$ns" link add "hct${id}d$i" type veth peer name "hct${id}e$i" &&
      ip -n "$ns" addr add "10.$((200 + i)).$((id % 200 + 20)).1/24" \
        dev "hct${id}d$i" &&
      ip -n "$ns" link set "hct${id}d$i" up &&
      ip -n "$ns" link set "hct${id}e$i" up &&
      ip link add "hct${id}h$i" netns "$ns" type veth peer name \
        "hct${id}p$i" netns "$sw" &&
      ip -n "$sw" link set "hct${id}p$i" master "$br" &&
      ip -n "$sw" link set "hct${id}p$i" up &&
      ip -n "$ns" addr add "$net.$i/24" dev "hct${id}h$i" &&
      ip -n "$ns" link set "hct${id}h$i" up &&
      ip -n "$ns" link set lo up || return 77
  done
  return 0
}
setup
rc=$?
if [ $rc -ne 0 ]; then
  echo "netns set-up failed: skipping"
  exit $rc
fi

# The ssh stand-in: skip ssh options, map the host address to its
# namespace, run the command there as a host of its own (hostname = the
# namespace's name, with '-' for the '_' hostnames may not hold, and the
# test's /etc/hosts).
cat >"$tmp/nsrsh" <<EOS
#!/bin/sh
while [ \$# -gt 0 ]; do
  case "\$1" in -o|-p|-l|-i) shift 2 ;; -*) shift ;; *) break ;; esac
done
host=\$1; shift
case \$host in
  $net.1) ns=$h1 ;;
  $net.2) ns=$h2 ;;
  $net.10) ns=$sw ;;
  *) echo "nsrsh: unknown host \$host" >&2; exit 255 ;;
esac
exec nsenter --net=/run/netns/\$ns unshare --uts --mount sh -c \
  "mount --bind $tmp/hosts /etc/hosts && hostname \$(echo \$ns | tr _ -) && \$*"
EOS
chmod +x "$tmp/nsrsh"
# The hosts know each other's names (Hydra's proxy puts its own in
# PMI_PORT), through an /etc/hosts bound over the real one in their mount
# namespaces only.
{
  echo "127.0.0.1 localhost"
  echo "$net.1 $(echo "$h1" | tr _ -)"
  echo "$net.2 $(echo "$h2" | tr _ -)"
  echo "$net.10 $(echo "$sw" | tr _ -)"
} >"$tmp/hosts"

out=$tmp/out
# Over PMI_FD (a socketpair to Hydra's proxy) nothing says which network
# reached the launcher: HCMPI_TCP_IF names it.
HCMPI_TCP_IF=$net.0/24 HCMPI_LOG=debug timeout 300 nsenter --net="/run/netns/$sw" "$hydra" \
  -launcher ssh -launcher-exec "$tmp/nsrsh" -iface "$br" \
  -hosts "$net.1:2,$net.2:2" -n 4 "$prog" >"$out" 2>&1
status=$?
grep -v " debug " "$out"
if [ $status -ne 0 ]; then
  echo "FAIL: job exited with $status"
  grep ' debug ' "$out" | tail -40
  exit 1
fi
grep -q 'engine_p2p: 4 ranks OK' "$out" || { echo "FAIL: no OK line"; exit 1; }

# Hydra fills each host in order: ranks 0,1 on host 1 and 2,3 on host 2.
. "$(cd "$(dirname "$0")" && pwd)/../launchers/lib.sh"
peers_check "$out" 2 4 || exit 1
grep 'peer .* via' "$out" | sed 's/^hcmpi\[[0-9]*\] //' | sort

# With -pmi-port the ranks reach Hydra's proxy over TCP, and without
# HCMPI_TCP_IF tcp must listen on the address of that connection, not on
# the decoy listed first.  mpiexec runs as a named host too (its proxies
# find it by name, with no -iface).
HCMPI_LOG=debug timeout 300 "$tmp/nsrsh" $net.10 "$hydra" -pmi-port \
  -launcher ssh -launcher-exec "$tmp/nsrsh" \
  -hosts "$net.1:2,$net.2:2" -n 4 "$split" --nodes 2 >"$out" 2>&1
status=$?
grep -v " debug " "$out"
for i in 1 2; do
  got=$(grep -c "debug tcp: using $net.$i, which reached the launcher\$" "$out")
  if [ "$got" -ne 2 ]; then
    echo "FAIL: $got of the 2 ranks on host $i listen where they reached Hydra"
    grep ' debug \(tcp\|bootstrap\)' "$out"
    exit 1
  fi
done
if [ $status -ne 0 ] ||
  ! grep -q '^node_split: 4 ranks on 2 nodes (2,2): OK$' "$out"; then
  echo "FAIL: node_split across the two hosts (status $status)"
  exit 1
fi
echo "netns_hydra: OK"
exit 0
