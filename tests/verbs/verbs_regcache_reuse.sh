#!/bin/sh
# The pinned registration cache stays correct when rendezvous buffers are
# freed, unmapped or remapped (tests/verbs/verbs_regcache_reuse.c over
# tests/fake-verbs, a TEST DOUBLE of libibverbs.so.1 that fails an RDMA
# READ/WRITE over a pinned region whose pages were replaced, see lib.sh):
# every byte arrives, the cache is hit (the second send of each buffer)
# and invalidated (the unmapped and remapped ones) on both ranks, and the
# double sees no stale region (where malloc is not glibc's, a sanitizer
# build, the cache keeps no pinned region by default: then the munmap and
# mremap cases again with it forced on).  Then the same program with the memory
# hooks inert (HCMPI_MEMHOOKS=0: the cache is on but hears of no release)
# must fail where the double sees the stale region: the receiver's
# (local) after munmap, the sender's (remote) after mremap.  Skips (77)
# where /proc/self/pagemap hides frame numbers (not root).
set -u
. "${top_srcdir:-.}/tests/verbs/lib.sh"
prog=$top_builddir/tests/verbs/verbs_regcache_reuse
[ -x "$prog" ] || exit 77
FAKE_VERBS_ODP=0
FAKE_VERBS_CHECK_PINNED=1
export FAKE_VERBS_ODP FAKE_VERBS_CHECK_PINNED
# stat RANK NAME: the figure before NAME in that rank's registration line.
stat() {
  sed -n "s/.*rank $1: registrations: \([0-9][0-9]*\) $2.*/\1/p
    s/.*rank $1: registrations: .*[^0-9]\([0-9][0-9]*\) $2.*/\1/p" "$out" |
    head -1
}
# clean NAME ENV...: a run of the cases in $cases (all when empty) in
# which every byte arrived and the double saw no stale region; 1 when the
# pinned cache was off, else it must have been hit and invalidated on
# both ranks.
clean() {
  name=$1
  shift
  echo "== verbs_regcache_reuse -n 2 $name"
  env HCMPI_LOG=debug "$@" "$run" -n 2 --timeout 120 "$prog" $cases >"$out" 2>&1
  rc=$?
  if grep -q "pagemap shows no frame numbers" "$out"; then
    echo "/proc/self/pagemap hides frame numbers (not root): skip"
    exit 77
  fi
  [ "$rc" = 0 ] || fail "exited $rc"
  [ "$(grep -c '^PASS rank' "$out")" = 2 ] || fail "not every rank passed"
  grep -q "stale pinned MR" "$out" && fail "the double saw a stale region"
  grep -q "rank 0: registration cache on (pinned" "$out" || return 1
  for r in 0 1; do
    [ "$(stat $r hits)" -gt 0 ] || fail "rank $r: no cache hit"
    [ "$(stat $r invalidated)" -gt 0 ] || fail "rank $r: nothing invalidated"
  done
  echo "ok: hits $(stat 0 hits)/$(stat 1 hits), invalidated" \
    "$(stat 0 invalidated)/$(stat 1 invalidated) (rank 0/1)"
}

cases=
if ! clean "(memory hooks on)"; then
  # A malloc that is not glibc's (ASan's, TSan's in a sanitizer build)
  # recycles blocks behind the hooks, so auto keeps pinned regions out of
  # the cache; buffers from mmap are still sound with the cache forced on.
  grep -q "rank 0: registration cache off (pinned regions need" "$out" ||
    fail "pinned cache neither on nor off for the allocator"
  echo "malloc is not glibc's (sanitizer build?): pinned cache off"
  cases="munmap mremap"
  clean "$cases (HCMPI_VERBS_REGCACHE=1)" HCMPI_VERBS_REGCACHE=1 ||
    fail "HCMPI_VERBS_REGCACHE=1: cache not on"
fi

for c in "munmap local" "mremap remote"; do
  set -- $c
  echo "== verbs_regcache_reuse -n 2 $1 (HCMPI_MEMHOOKS=0)"
  HCMPI_MEMHOOKS=0 HCMPI_VERBS_REGCACHE=1 "$run" -n 2 --timeout 120 \
    "$prog" "$1" >"$out" 2>&1 &&
    fail "$1: passed although the cache heard of no release"
  grep -q "fake-verbs: stale pinned MR ($2 key" "$out" ||
    fail "$1: the double did not see the $2 region go stale"
  grep -q "^PASS rank 0" "$out" && fail "$1: rank 0 passed"
  echo "ok: $(grep -m1 "stale pinned MR" "$out" | cut -c1-60)..."
done
echo "verbs_regcache_reuse: all passed"
exit 0
