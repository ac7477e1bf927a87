#!/bin/sh
# hcmpi_info prints every section it promises, and every variable of the
# table in src/util/envtable.c, with the current value of one that is set.
# Run from the build directory (make check does).
top_srcdir=${top_srcdir:-.}
INFO=./tools/hcmpi_info
[ -x "$INFO" ] || { echo "SKIP: $INFO not built"; exit 77; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

HCMPI_EAGER_LIMIT=4096 "$INFO" >"$out" 2>&1 || fail "hcmpi_info exited $?"
for s in version configure transports devices bootstrap environment; do
  grep -q "^\[$s\]" "$out" || fail "no [$s] section"
done
grep -q "hcmpi  *[0-9]" "$out" || fail "no version number"
for t in self shm tcp; do
  grep -q "^  $t  *compiled in" "$out" || fail "transport $t not listed"
done
grep -q "^  acl " "$out" || fail "no acl line"
grep -q "^  cuda " "$out" || fail "no cuda line"
grep -q "would use  *singleton" "$out" || fail "bootstrap outside a launcher is not singleton"
grep -q "HCMPI_EAGER_LIMIT  *16384  *4096 " "$out" ||
  fail "HCMPI_EAGER_LIMIT default 16384 / current 4096 not shown"
grep -q "^    shm eager max  *[0-9]*k (HCMPI_EAGER_LIMIT set wins)$" "$out" ||
  fail "the shm eager max does not say a set HCMPI_EAGER_LIMIT wins"
# The processor profile's eager limit between ranks of a node.
HCMPI_CPU_PROFILE=intel "$INFO" 2>&1 | grep -q "^    shm eager max  *4k$" ||
  fail "the intel profile's shm eager max is not 4k"
names=$(grep -o '{"HCMPI_[A-Z0-9_]*"' "$top_srcdir/src/util/envtable.c" | tr -d '{"')
[ -n "$names" ] || fail "no names found in envtable.c"
for n in $names; do
  grep -q "^  $n " "$out" || fail "$n missing from the output"
done
# The ACL double reports its device count through the query.
if [ -f tests/fake-cann/.libs/libascendcl.so ]; then
  HCMPI_ACL_LIB=$PWD/tests/fake-cann/.libs/libascendcl.so "$INFO" >"$out" 2>&1
  grep -q "^  acl   library .*libascendcl.so, version .*, [0-9][0-9]* device(s)" "$out" ||
    { cat "$out"; fail "ACL double not reported with a device count"; }
fi
# --mpit: every variable of the table is a control variable, and the
# performance variables, categories and the event are listed.
"$INFO" --mpit >"$out" 2>&1 || fail "hcmpi_info --mpit exited $?"
for s in "control variables" "performance variables" categories events; do
  grep -q "^\[mpit $s\] [1-9]" "$out" || fail "no [mpit $s] section"
done
for n in $names; do
  grep -q "^  $n " "$out" || fail "$n is not an MPI_T control variable"
done
for v in eager_sent_messages rndv_received_bytes unexpected_queue_hwm \
  posted_queue_length wait_sleep_time self_sent_messages hcmpi_engine \
  unexpected_message; do
  grep -q "^  $v " "$out" || fail "--mpit does not list $v"
done
"$INFO" --bogus >/dev/null 2>&1 && fail "bad option accepted"
[ "$failures" -eq 0 ] || { cat "$out"; exit 1; }
echo "PASS: hcmpi_info sections and all $(echo $names | wc -w) variables, also as MPI_T cvars"
