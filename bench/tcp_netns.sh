#!/bin/sh
# hcmpi's tcp transport next to a raw TCP socket across one veth between two
# network namespaces, in the same run (needs root, ip, nsenter, Hydra).
#   BUILD=/work/build-x bench/tcp_netns.sh     (BUILD: hcmpi build tree,
#                                               default the current directory)
# bench/latency and bench/bandwidth (built with tools/hcmpicc-build) run on
# 2 ranks, one per namespace, under mpiexec.hydra with an nsenter stand-in
# for ssh that gives each namespace its own HCMPI_NODE_ID, so the ranks talk
# over tcp; bench/rawsock does the same ping-pong and windowed stream.  The
# two alternate ROUNDS times (default 2) and the best median of each size
# is kept.  Prints a table with hcmpi/raw ratios (targets from issue 5:
# latency <= 1.2x raw, bandwidth >= 90% of raw).
# Knobs: LAT_SIZES, BW_SIZES, REPS, LAT_ITERS, BW_ITERS, ROUNDS.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${BUILD:=$(pwd)}"
: "${LAT_SIZES:=1,8,64,512,4K,32K}"
: "${BW_SIZES:=64K,256K,1M,4M}"
: "${REPS:=7}"
: "${LAT_ITERS:=1000}"
: "${BW_ITERS:=40}"
: "${ROUNDS:=2}"
hydra=$(command -v mpiexec.hydra || command -v mpiexec.mpich || true)
cc=$BUILD/tools/hcmpicc-build
[ "$(id -u)" = 0 ] || { echo "tcp_netns: needs root"; exit 77; }
[ -n "$hydra" ] && [ -x "$cc" ] || { echo "tcp_netns: needs Hydra and $cc"; exit 77; }
command -v ip >/dev/null && command -v nsenter >/dev/null || exit 77

id=$$
net=10.201.$((id % 200 + 20))
h1=hcb_${id}_1
h2=hcb_${id}_2
tmp=$(mktemp -d /tmp/hcb_netns.XXXXXX) || exit 1
cleanup() {
  [ -n "${srv:-}" ] && kill "$srv" 2>/dev/null
  for ns in "$h1" "$h2"; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

"$cc" -O2 -o "$tmp/latency" "$here/latency.c" "$here/common.c" &&
  "$cc" -O2 -o "$tmp/bandwidth" "$here/bandwidth.c" "$here/common.c" &&
  ${CC:-cc} -O2 -o "$tmp/rawsock" "$here/rawsock.c" || exit 1

ip netns add "$h1" && ip netns add "$h2" &&
  ip link add "hcb${id}a" netns "$h1" type veth peer name "hcb${id}b" \
    netns "$h2" &&
  ip -n "$h1" addr add "$net.1/24" dev "hcb${id}a" &&
  ip -n "$h2" addr add "$net.2/24" dev "hcb${id}b" || exit 77
for ns in "$h1" "$h2"; do
  ip -n "$ns" link set lo up || exit 77
done
ip -n "$h1" link set "hcb${id}a" up && ip -n "$h2" link set "hcb${id}b" up ||
  exit 77

# The ssh stand-in: skip ssh options, enter the host's namespace as a node
# of its own.  mpiexec runs in $h1, which Hydra may treat as local and fork
# directly: that rank keeps the default node id, still distinct from $h2.
cat >"$tmp/nsrsh" <<EOS
#!/bin/sh
while [ \$# -gt 0 ]; do
  case "\$1" in -o|-p|-l|-i) shift 2 ;; -*) shift ;; *) break ;; esac
done
host=\$1; shift
case \$host in
  $net.1) ns=$h1 ;;
  $net.2) ns=$h2 ;;
  *) echo "nsrsh: unknown host \$host" >&2; exit 255 ;;
esac
HCMPI_NODE_ID=\$ns
export HCMPI_NODE_ID
exec nsenter --net=/run/netns/\$ns sh -c "\$*"
EOS
chmod +x "$tmp/nsrsh"

HCMPI_TCP_IF=$net.0/24
export HCMPI_TCP_IF
hc_run() {
  timeout 600 nsenter --net="/run/netns/$h1" "$hydra" -launcher ssh \
    -launcher-exec "$tmp/nsrsh" -iface "hcb${id}a" \
    -hosts "$net.1:1,$net.2:1" -n 2 "$@"
}

# Check once that the two ranks really reach each other over tcp.
HCMPI_LOG=debug hc_run "$tmp/latency" -s 8 -r 1 -i 10 >"$tmp/dbg" 2>&1
if ! grep -q 'rank 0: peer 1 via tcp' "$tmp/dbg" ||
  ! grep -q 'rank 1: peer 0 via tcp' "$tmp/dbg"; then
  echo "tcp_netns: ranks do not use tcp:"
  grep -E 'via|rror' "$tmp/dbg"
  exit 1
fi

raw_run() {
  port=$((20000 + id % 20000))
  ip netns exec "$h2" "$tmp/rawsock" server "$port" &
  srv=$!
  ip netns exec "$h1" "$tmp/rawsock" client "$net.2" "$port" -s "$LAT_SIZES" \
    -S "$BW_SIZES" -r "$REPS" -i "$LAT_ITERS" -I "$BW_ITERS"
  rc=$?
  wait "$srv"
  srv=
  return $rc
}

out=$tmp/out
: >"$out"
r=0
while [ $r -lt "$ROUNDS" ]; do
  raw_run >>"$out" || { echo "tcp_netns: rawsock failed"; exit 1; }
  hc_run "$tmp/latency" -s "$LAT_SIZES" -r "$REPS" -i "$LAT_ITERS" \
    >>"$out" || { echo "tcp_netns: hcmpi latency failed"; exit 1; }
  hc_run "$tmp/bandwidth" -s "$BW_SIZES" -r "$REPS" -i "$BW_ITERS" \
    >>"$out" || { echo "tcp_netns: hcmpi bandwidth failed"; exit 1; }
  r=$((r + 1))
done

echo "# tcp across veth: $ROUNDS rounds, best median per size;" \
  "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
awk '
function field(name,   i, kv) {
  for (i = 1; i <= NF; i++) {
    split($i, kv, "=")
    if (kv[1] == name) return kv[2]
  }
  return ""
}
function lo(a, k, v) { if (!(k in a) || v < a[k]) a[k] = v }
function hi(a, k, v) { if (!(k in a) || v > a[k]) a[k] = v }
# rawsock prints sizes in the order given: that is the table order.
/^bench=raw_latency/ {
  k = field("size") + 0
  if (!(k in rl)) lk[++nl] = k
  lo(rl, k, field("median_us") + 0)
}
/^bench=latency/ { lo(hl, field("size") + 0, field("median_us") + 0) }
/^bench=raw_bandwidth/ {
  k = field("size") + 0
  if (!(k in rb)) bk[++nb] = k
  hi(rb, k, field("median_MBps") + 0)
}
/^bench=bandwidth/ { hi(hb, field("size") + 0, field("median_MBps") + 0) }
END {
  printf "%-10s %12s %12s %10s\n", "size", "raw_us", "hcmpi_us", "hcmpi/raw"
  for (i = 1; i <= nl; i++) {
    k = lk[i]
    printf "%-10d %12.2f %12.2f %9.2fx\n", k, rl[k], hl[k], hl[k] / rl[k]
  }
  printf "%-10s %12s %12s %10s\n", "size", "raw_MBps", "hcmpi_MBps", "hcmpi/raw"
  for (i = 1; i <= nb; i++) {
    k = bk[i]
    printf "%-10d %12.1f %12.1f %9.1f%%\n", k, rb[k], hb[k], 100 * hb[k] / rb[k]
  }
}' "$out"
[ -n "${KEEP_RAW:-}" ] && cat "$out"
exit 0
