#!/bin/sh
# HCMPI_TRACE end to end on 4 ranks (checks in trace_check.py):
# - trace_counts (known counts) traced: the JSON parses and holds exactly
#   its MPI_Send/Recv/Isend/Irecv/Waitall/Barrier calls, every engine send
#   is paired with its receive by a flow, the matrix agrees;
# - examples/moe_dispatch traced: every rank's MPI_Isend, MPI_Irecv,
#   MPI_Waitall, MPI_Alltoall and MPI_Allreduce counts in the JSON equal
#   the ones the program printed, and nothing else is traced;
# - bytes by path: shm on one node, tcp when only tcp is allowed, verbs
#   over the libibverbs test double (when built with its headers), and each
#   device path (ipc, staging, hccl, forced in turn) for device buffers of
#   the CANN test double, when it is built;
# - heatmap.png is a 640x560 PNG that is not blank;
# - report.html rendered by headless Chromium has no script error, draws
#   the heatmap cells, one timeline box per traced call and the per-path
#   table, and its screenshot is a 1000x1400 PNG that is not blank.
# - hcmpi-trace's hand-written table of call names agrees with trace.h
#   (trace_calls.py).
# SKIP (77) when gnuplot or chromium is missing, after the other checks ran.
top_srcdir=${top_srcdir:-.}
RUN=./tools/hcmpirun
TRACE="$top_srcdir/tools/hcmpi-trace"
CHECK="$top_srcdir/tests/tools/trace_check.py"
for f in "$RUN" ./tests/tools/trace_counts ./examples/moe_dispatch; do
  [ -x "$f" ] || { echo "SKIP: $f not built"; exit 77; }
done
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failures=0
missing=""
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
python3 "$top_srcdir/tests/tools/trace_calls.py" "$top_srcdir" ||
  fail "hcmpi-trace's call names disagree with src/hcomm/trace.h"

# traced NAME [env settings] -- program and arguments: runs it on 4 ranks
# with HCMPI_TRACE=$T/NAME, output in $T/NAME.out, then hcmpi-trace.
traced() {
  name=$1
  shift
  env "$@" HCMPI_TRACE="$T/$name" timeout 120 "$RUN" -n 4 --timeout 100 \
    $prog >"$T/$name.out" 2>&1 || { fail "traced $name run failed"; cat "$T/$name.out"; }
  python3 "$TRACE" "$T/$name" >"$T/$name.summary" || fail "hcmpi-trace $name failed"
}

prog=./tests/tools/trace_counts
traced counts
cat "$T/counts.summary"
python3 "$CHECK" counts "$T/counts" || failures=$((failures + 1))

prog=./examples/moe_dispatch
traced moe
grep -q ": OK" "$T/moe.out" || fail "moe_dispatch did not print OK"
cat "$T/moe.summary"
python3 "$CHECK" moe "$T/moe" "$T/moe.out" || failures=$((failures + 1))
python3 "$CHECK" paths "$T/moe" shm || failures=$((failures + 1))
grep -Eq '(src|href)="https?:|fetch\(|XMLHttpRequest|@import' "$T/moe/report.html" &&
  fail "report.html loads something from the network"

prog="./examples/moe_dispatch 8 64"
traced tcp HCMPI_TRANSPORTS=self,tcp
python3 "$CHECK" paths "$T/tcp" tcp || failures=$((failures + 1))
# verbs against the libibverbs test double, when it was built with
# rdma-core's headers (libibverbs-dev, a CI-only package: a note, no skip).
ibv=$PWD/tests/fake-verbs/.libs/libibverbs.so
if nm -D "$ibv" 2>/dev/null | grep -q ' T ibv_get_device_list'; then
  mkdir "$T/fake-verbs"
  traced verbs HCMPI_VERBS_LIB="$ibv" FAKE_VERBS_DIR="$T/fake-verbs" \
    HCMPI_TRANSPORTS=verbs
  python3 "$CHECK" paths "$T/verbs" verbs || failures=$((failures + 1))
else
  echo "note: no libibverbs test double with symbols: verbs path not checked"
fi
acl=$PWD/tests/fake-cann/.libs/libascendcl.so
hccl=$PWD/tests/fake-cann/.libs/libhccl.so
if [ -r "$acl" ] && [ -r "$hccl" ]; then
  prog="./examples/moe_dispatch --device npu 8 64"
  for path in ipc staging hccl; do
    traced "dev-$path" HCMPI_ACL_LIB="$acl" HCMPI_HCCL_LIB="$hccl" \
      HCMPI_DEVICE=acl HCMPI_DEVICE_PATH=$path
    grep -q "on npu: OK" "$T/dev-$path.out" || fail "moe_dispatch on npu ($path)"
    python3 "$CHECK" paths "$T/dev-$path" $path || failures=$((failures + 1))
  done
else
  missing="$missing CANN-test-double"
fi

if [ -r "$T/moe/heatmap.png" ]; then
  python3 "$CHECK" png "$T/moe/heatmap.png" 640 560 3 || failures=$((failures + 1))
else
  missing="$missing gnuplot"
fi

CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROME" ]; then
  # A fresh profile per run; no network, no background services.
  chrome() {
    mkdir "$T/profile-$1"
    profile=$T/profile-$1
    shift
    timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic \
      --no-first-run --disable-background-networking --disable-component-update \
      --disable-sync --user-data-dir="$profile" --enable-logging=stderr --v=0 \
      "$@" "file://$T/moe/report.html" 2>>"$T/chrome.err"
  }
  chrome dom --dump-dom >"$T/dom.html" || fail "chromium --dump-dom failed"
  python3 "$CHECK" dom "$T/dom.html" "$T/moe" || failures=$((failures + 1))
  chrome shot --screenshot="$T/shot.png" --window-size=1000,1400 >/dev/null ||
    fail "chromium --screenshot failed"
  [ -s "$T/shot.png" ] && python3 "$CHECK" png "$T/shot.png" 1000 1400 16 ||
    fail "screenshot"
  # The page's console, as Chromium logs it: any uncaught error fails.
  grep -q 'CONSOLE.*report rendered' "$T/chrome.err" || fail "no console log from chromium"
  if grep 'CONSOLE.*Uncaught' "$T/chrome.err"; then fail "script errors"; fi
else
  missing="$missing chromium"
fi
[ "$failures" -eq 0 ] || exit 1
if [ -n "$missing" ]; then
  echo "SKIP: all else passed, but not checked without:$missing"
  exit 77
fi
echo "PASS: tracing"
