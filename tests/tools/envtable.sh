#!/bin/sh
# The environment table cannot drift: every HCMPI_* variable the library,
# the launcher or the wrappers read is in src/util/envtable.c, every entry
# there is read somewhere, and docs/environment.md is what
# `hcmpi_info --env-markdown` generates (fix: make environment-doc).
top_srcdir=${top_srcdir:-.}
INFO=./tools/hcmpi_info
[ -x "$INFO" ] || { echo "SKIP: $INFO not built"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

grep -o '{"HCMPI_[A-Z0-9_]*"' "$top_srcdir/src/util/envtable.c" |
  tr -d '{"' | sort -u >"$t/table"
# What the code reads: hc_env_*("HCMPI_X" / getenv("HCMPI_X" in C, and
# ${HCMPI_X in the wrapper scripts.
{
  grep -rhoE '(hc_env_[a-z]+|getenv)\("HCMPI_[A-Z0-9_]+"' \
    "$top_srcdir/src" "$top_srcdir/tools" --include='*.c' |
    sed 's/.*("//; s/"$//'
  grep -hoE '\$\{HCMPI_[A-Z0-9_]+' "$top_srcdir"/tools/*.in | sed 's/^\${//'
} | sort -u >"$t/read"
missing=$(comm -23 "$t/read" "$t/table")
[ -z "$missing" ] || fail "read but not in the table: $missing"
unused=$(comm -13 "$t/read" "$t/table")
[ -z "$unused" ] || fail "in the table but read nowhere: $unused"
"$INFO" --env-markdown >"$t/env.md" || fail "hcmpi_info --env-markdown failed"
if ! diff -u "$top_srcdir/docs/environment.md" "$t/env.md"; then
  fail "docs/environment.md differs from the table (run: make environment-doc)"
fi
[ "$failures" -eq 0 ] || exit 1
echo "PASS: $(wc -l <"$t/table") variables, table and doc agree"
