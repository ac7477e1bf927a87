#!/bin/sh
# The PMIx backend under Open MPI's mpirun (PMIx server, no PMI_FD): four
# ranks exchange keys through tests/tools/pmi_client, then engine_p2p runs
# its point-to-point checks.  Skips (77) without mpirun.openmpi.
# Run from the build directory (make check does).
set -u
MPIRUN=$(command -v mpirun.openmpi) || { echo "no mpirun.openmpi; skipped"; exit 77; }
CLIENT=./tests/tools/pmi_client
P2P=./tests/engine/engine_p2p
for f in "$CLIENT" "$P2P"; do
  [ -x "$f" ] || { echo "missing $f (run from the build directory)"; exit 99; }
done
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# Sanitizer builds: libpmix's own allocations are not our leaks.
LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
failures=0

# Oversubscribe: CI machines have 2 cores.
run() {
  timeout 120 "$MPIRUN" --allow-run-as-root --oversubscribe -x LSAN_OPTIONS "$@" \
    >"$T/out" 2>"$T/err" </dev/null
}
check() {
  name=$1 rc=$2 want=$3 pattern=$4
  got=$(grep -c "$pattern" "$T/out")
  if [ "$rc" -eq 0 ] && [ "$got" -eq "$want" ]; then
    echo "PASS: $name"
  else
    echo "FAIL: $name (rc=$rc, $got of $want lines)"
    echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"
    failures=$((failures + 1))
  fi
}

run -n 4 "$CLIENT" --expect-size 4 --expect-backend pmix
check "mpirun -n 4 pmi_client (pmix)" $? 4 '^pmi_client: rank [0-3] of 4 ok (pmix)$'

run -n 1 "$CLIENT" --expect-size 1 --expect-backend pmix
check "mpirun -n 1 pmi_client (pmix)" $? 1 '^pmi_client: rank 0 of 1 ok (pmix)$'

for n in 2 4; do
  run -n "$n" "$P2P"
  check "mpirun -n $n engine_p2p" $? 1 "^engine_p2p: $n ranks OK$"
done

[ "$failures" -eq 0 ] || exit 1
exit 0
