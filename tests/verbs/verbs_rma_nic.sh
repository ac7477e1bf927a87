#!/bin/sh
# Accumulates by NIC atomics over tests/fake-verbs (a TEST DOUBLE of
# libibverbs.so.1, see lib.sh; verbs_rma_nic.c says what each run checks):
# with the contract on 8 ranks, the double's atomics count (its
# <dir>/atomics file) must cover every accumulate-kind operation the test
# issued; with one rank not declaring it, or a device without atomics,
# the window keeps active messages (no atomic at all) and the results
# stay exact.
set -u
. "${top_srcdir:-.}/tests/verbs/lib.sh"
prog=$top_builddir/tests/verbs/verbs_rma_nic
[ -x "$prog" ] || exit 77
atomics() {
  if [ -f "$FAKE_VERBS_DIR/atomics" ]; then
    od -An -t u8 "$FAKE_VERBS_DIR/atomics" | tr -d ' '
  else
    echo 0
  fi
}
n=8
ok "verbs_rma_nic -n $n on" "$run" -n $n --timeout 300 "$prog" on
[ "$(grep -c '^PASS rank' "$out")" -eq $n ] || fail "not every rank passed"
# Per rank: 4 sync modes x 100 x 2, 100 on its own window, 25 spin-lock
# rounds of at least 3 (a CAS, and a fetch-add and a CAS to release), a
# swap of 2 and a read, 25 x 8 vector elements, 2 request forms, 4 reads.
want=$((n * (800 + 100 + 25 * 3 + 3 + 200 + 2 + 4)))
got=$(atomics)
echo "NIC atomics done: $got (at least $want)"
[ "$got" -ge "$want" ] || fail "only $got NIC atomics, want at least $want"
echo "== verbs_rma_nic -n 2 fatal (must abort, saying why)"
"$run" -n 2 --timeout 120 "$prog" fatal >"$out" 2>&1 && fail "MPI_MAX did not abort"
grep -q "MPI_Fetch_and_op: this window accumulates by NIC atomics, which do only MPI_SUM, MPI_REPLACE, MPI_NO_OP and compare-and-swap" "$out" ||
  fail "the abort does not say why"
rm -f "$FAKE_VERBS_DIR/atomics"
ok "verbs_rma_nic -n $n partial" "$run" -n $n --timeout 300 "$prog" partial
[ "$(grep -c '^PASS rank' "$out")" -eq $n ] || fail "not every rank passed"
[ "$(atomics)" -eq 0 ] || fail "atomics used on a window without the contract"
ok "verbs_rma_nic -n 3 off" env FAKE_VERBS_NO_ATOMICS=1 \
  "$run" -n 3 --timeout 300 "$prog" off
[ "$(grep -c '^PASS rank' "$out")" -eq 3 ] || fail "not every rank passed"
[ "$(atomics)" -eq 0 ] || fail "atomics used on a device without them"
