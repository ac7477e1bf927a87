#!/bin/sh
# Rendezvous memory registration over tests/fake-verbs (a TEST DOUBLE of
# libibverbs.so.1, see lib.sh): the registration cache (pinned regions,
# kept valid by the memory hooks, and on-demand paging; off with
# HCMPI_VERBS_REGCACHE=0), the bounce buffer when the destination cannot be
# registered, and the engine's pipelined fallback when the source cannot.
# pingpong_sizes checks every byte of 0 B .. 16 MiB both ways.
set -u
. "${top_srcdir:-.}/tests/verbs/lib.sh"
pp=$top_builddir/tests/mpi/pingpong_sizes
[ -x "$pp" ] || exit 77
# stat NAME: the figure before NAME in rank 0's registration line.
stat() {
  sed -n "s/.*rank 0: registrations: \([0-9][0-9]*\) $1.*/\1/p
    s/.*rank 0: registrations: .*[^0-9]\([0-9][0-9]*\) $1.*/\1/p" "$out" |
    head -1
}
pingpong() { # NAME ENV...: pingpong_sizes -n 2 at debug level
  name=$1
  shift
  ok "pingpong_sizes -n 2 $name" env HCMPI_LOG=debug "$@" \
    "$run" -n 2 --timeout 120 "$pp"
  grep -q "rank 0: registrations:" "$out" || fail "$name: no registration line"
}

# A device without on-demand paging: pinned regions are kept and reused
# (the same buffers, round after round; the double checks on every RDMA
# that a region still has the pages it registered) where glibc's malloc
# can be held; under ASan's allocator (the sanitizer build) auto keeps
# them off.
pingpong "(pinned)" FAKE_VERBS_ODP=0
if grep -q "rank 0: registration cache on (pinned, invalidated" "$out"; then
  [ "$(stat hits)" -gt "$(stat misses)" ] ||
    fail "pinned cache: $(stat hits) hits, $(stat misses) misses"
else
  grep -q "rank 0: registration cache off (pinned regions need" "$out" ||
    fail "pinned cache neither on nor off for the allocator"
  echo "the allocator cannot be held (sanitizer build?): pinned cache off"
  [ "$(stat hits)" = 0 ] || fail "regions reused when off: $(stat hits) hits"
fi
# Turned off: every rendezvous registers afresh.
pingpong "HCMPI_VERBS_REGCACHE=0" FAKE_VERBS_ODP=0 HCMPI_VERBS_REGCACHE=0
grep -q "rank 0: registration cache off$" "$out" || fail "cache not off"
[ "$(stat hits)" = 0 ] || fail "regions reused when off: $(stat hits) hits"
[ "$(stat misses)" = "$(stat released)" ] || fail "not every region released"
# With it, regions are kept and reused (the same buffers, round after round).
pingpong "(on-demand paging)" FAKE_VERBS_ODP=1
grep -q "rank 0: registration cache on" "$out" || fail "cache not on"
[ "$(stat hits)" -gt "$(stat misses)" ] ||
  fail "cache: $(stat hits) hits, $(stat misses) misses"
# The destination of messages above 4 MiB cannot be registered: those
# reads land in the bounce buffer (16 of them: 8 and 16 MiB, four ways).
pingpong "FAKE_VERBS_REG_FAIL_ABOVE=4M" FAKE_VERBS_REG_FAIL_ABOVE=4194304
[ "$(stat "gets bounced")" -gt 0 ] || fail "no get went through the bounce buffer"
# The source above 64 KiB cannot be registered: the engine pipelines.
pingpong "FAKE_VERBS_REG_REMOTE_FAIL_ABOVE=64K" \
  FAKE_VERBS_REG_REMOTE_FAIL_ABOVE=65536
[ "$(stat refused)" -gt 0 ] || fail "no registration refused"
[ "$(stat "gets bounced")" = 0 ] || fail "bounced although the source failed"
leftover=$(ls "$FAKE_VERBS_DIR" | grep -v '^qp-' | head -1)
[ -z "$leftover" ] || fail "registration record left behind: $leftover"
echo "verbs_regcache: all passed"
exit 0
