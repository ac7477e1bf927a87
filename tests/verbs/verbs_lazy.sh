#!/bin/sh
# Queue pairs on first use, and the inline limit the device grants, over
# tests/fake-verbs (a TEST DOUBLE of libibverbs.so.1, see lib.sh).
set -u
. "${top_srcdir:-.}/tests/verbs/lib.sh"
sparse=$top_builddir/tests/verbs/verbs_sparse
[ -x "$sparse" ] && [ -x "$top_builddir/tests/engine/engine_p2p" ] || exit 77

# Only the pairs that talk get a queue pair: 0-1 and 2-3 of 4 ranks, each
# side exactly one QP toward its partner before its "talked" marker (the
# job's start made none; the final barrier, which waits for every marker,
# makes more).
ok "verbs_sparse -n 4 (debug log)" env HCMPI_LOG=debug \
  "$run" -n 4 --timeout 60 "$sparse" "$FAKE_VERBS_DIR"
made=$(awk '
  /verbs_sparse: rank [0-9]+ talked/ { done[$3] = 1 }
  / verbs: rank [0-9]+: queue pair [0-9]+ to rank / {
    r = $5; sub(":", "", r); p = $11; sub(",", "", p)
    if (!(r in done)) print r "->" p }
' "$out" | sort | tr '\n' ' ')
[ "$made" = "0->1 1->0 2->3 3->2 " ] ||
  fail "queue pairs before the markers: '$made', want '0->1 1->0 2->3 3->2 '"
n=$(grep -c "verbs_sparse: rank [0-9] talked" "$out")
[ "$n" -eq 4 ] || fail "$n of 4 ranks wrote their marker"

# A device that grants 32 inline bytes: the QP is asked for 128, refused,
# asked again, and the double refuses every inline send above 32 B, so the
# run passes only if the transport keeps to what was granted.
ok "engine_p2p -n 2 FAKE_VERBS_MAX_INLINE=32" env FAKE_VERBS_MAX_INLINE=32 \
  HCMPI_LOG=debug "$run" -n 2 --timeout 120 "$top_builddir/tests/engine/engine_p2p"
grep -q "queue pair [0-9]* to rank 1, 32 B inline" "$out" ||
  fail "rank 0 did not take the granted 32 B inline limit"
grep -q "inline send above" "$out" && fail "an inline send above the limit"
# No inline at all (a device granting 0).
ok "engine_p2p -n 2 FAKE_VERBS_MAX_INLINE=0" env FAKE_VERBS_MAX_INLINE=0 \
  "$run" -n 2 --timeout 120 "$top_builddir/tests/engine/engine_p2p"
echo "verbs_lazy: all passed"
exit 0
