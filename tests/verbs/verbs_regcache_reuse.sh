#!/bin/sh
# The pinned registration cache stays correct when rendezvous buffers are
# freed, unmapped or remapped (tests/verbs/verbs_regcache_reuse.c over
# tests/fake-verbs, a TEST DOUBLE of libibverbs.so.1 that fails an RDMA
# READ/WRITE over a pinned region whose pages were replaced, see lib.sh):
# every byte arrives, the cache is hit (the second send of each buffer)
# and invalidated (the unmapped and remapped ones) on both ranks, and the
# double sees no stale region.  Then the same program with the memory
# hooks inert (HCMPI_MEMHOOKS=0: the cache is on but hears of no release)
# must fail where the double sees the stale region: the receiver's
# (local) after munmap, the sender's (remote) after mremap.  Skips (77)
# where /proc/self/pagemap hides frame numbers (not root).
set -u
. "${top_srcdir:-.}/tests/verbs/lib.sh"
prog=$top_builddir/tests/verbs/verbs_regcache_reuse
[ -x "$prog" ] || exit 77
# HCMPI_VERBS_REGCACHE=1: pinned regions cached even where the allocator
# cannot be held (ASan's, in the sanitizer build: its quarantine keeps
# this short run's freed blocks from being reused).
FAKE_VERBS_ODP=0
FAKE_VERBS_CHECK_PINNED=1
HCMPI_VERBS_REGCACHE=1
export FAKE_VERBS_ODP FAKE_VERBS_CHECK_PINNED HCMPI_VERBS_REGCACHE
# stat RANK NAME: the figure before NAME in that rank's registration line.
stat() {
  sed -n "s/.*rank $1: registrations: \([0-9][0-9]*\) $2.*/\1/p
    s/.*rank $1: registrations: .*[^0-9]\([0-9][0-9]*\) $2.*/\1/p" "$out" |
    head -1
}

echo "== verbs_regcache_reuse -n 2 (memory hooks on)"
HCMPI_LOG=debug "$run" -n 2 --timeout 120 "$prog" >"$out" 2>&1
rc=$?
if grep -q "pagemap shows no frame numbers" "$out"; then
  echo "/proc/self/pagemap hides frame numbers (not root): skip"
  exit 77
fi
[ "$rc" = 0 ] || fail "exited $rc"
[ "$(grep -c '^PASS rank' "$out")" = 2 ] || fail "not every rank passed"
grep -q "stale pinned MR" "$out" && fail "the double saw a stale region"
grep -q "rank 0: registration cache on (pinned" "$out" || fail "cache not on"
for r in 0 1; do
  [ "$(stat $r hits)" -gt 0 ] || fail "rank $r: no cache hit"
  [ "$(stat $r invalidated)" -gt 0 ] || fail "rank $r: nothing invalidated"
done
echo "ok: hits $(stat 0 hits)/$(stat 1 hits), invalidated" \
  "$(stat 0 invalidated)/$(stat 1 invalidated) (rank 0/1)"

for c in "munmap local" "mremap remote"; do
  set -- $c
  echo "== verbs_regcache_reuse -n 2 $1 (HCMPI_MEMHOOKS=0)"
  HCMPI_MEMHOOKS=0 "$run" -n 2 --timeout 120 "$prog" "$1" >"$out" 2>&1 &&
    fail "$1: passed although the cache heard of no release"
  grep -q "fake-verbs: stale pinned MR ($2 key" "$out" ||
    fail "$1: the double did not see the $2 region go stale"
  grep -q "^PASS rank 0" "$out" && fail "$1: rank 0 passed"
  echo "ok: $(grep -m1 "stale pinned MR" "$out" | cut -c1-60)..."
done
echo "verbs_regcache_reuse: all passed"
exit 0
