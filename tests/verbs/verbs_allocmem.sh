#!/bin/sh
# MPI_Alloc_mem's memory registered with verbs ahead of use, over
# tests/fake-verbs (a TEST DOUBLE of libibverbs.so.1, see lib.sh): the
# rendezvous from and into it registers nothing more (verbs_allocmem.c),
# with pinned regions and with on-demand paging.
set -u
. "${top_srcdir:-.}/tests/verbs/lib.sh"
prog=$top_builddir/tests/verbs/verbs_allocmem
[ -x "$prog" ] || exit 77
for odp in 0 1; do
  ok "verbs_allocmem -n 2 FAKE_VERBS_ODP=$odp" env FAKE_VERBS_ODP=$odp \
    "$run" -n 2 --timeout 120 "$prog"
  [ "$(grep -c '^PASS rank' "$out")" -eq 2 ] || fail "not every rank passed"
done
