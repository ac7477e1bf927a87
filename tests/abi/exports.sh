#!/bin/sh
# Every MPI_, PMPI_ and MPIX_ function that Debian's libmpich.so.12 exports
# is exported by libhcmpi.so and by hcmpi's libmpich.so.12 copy, so that a
# binary built against MPICH finds each function it calls (else it dies at
# that call with "symbol lookup error").  Nothing is left out any more
# (EXCLUDED matches no name; keep it for a family still being written).
# Prints every missing name, then fails.
# Skips (77) without nm or without Debian's library
# (HCMPI_EXPORTS_REF names another reference library).
set -u
: "${top_builddir:=.}"
ref=${HCMPI_EXPORTS_REF:-/usr/lib/x86_64-linux-gnu/libmpich.so.12}
command -v nm >/dev/null 2>&1 || { echo "SKIP: nm not found"; exit 77; }
[ -r "$ref" ] || { echo "SKIP: $ref not found"; exit 77; }

# Matched against the name without its P (PMPI_X is judged as MPI_X).
EXCLUDED='^$'

# The defined functions of a library named P?MPIX?_*, one a line, sorted.
functions() {
  nm -D --defined-only "$1" | awk '$2 ~ /^[TWi]$/ { print $3 }' |
    sed 's/@.*//' | grep -E '^P?MPIX?_' | sort -u
}

want=$(mktemp "${TMPDIR:-/tmp}/hcmpi-exports.XXXXXX") || exit 99
trap 'rm -f "$want" "$want.ex"' EXIT
printf '%s\n' "$EXCLUDED" >"$want.ex"
functions "$ref" | while read -r name; do
  printf '%s\n' "${name#P}" | grep -Eq -f "$want.ex" || echo "$name"
done >"$want"
[ -s "$want" ] || { echo "FAIL: no function read from $ref"; exit 1; }

status=0
for lib in "$top_builddir/.libs/libhcmpi.so" \
  "$top_builddir/mpich-abi/.libs/libmpich.so.12"; do
  [ -r "$lib" ] || { echo "FAIL: $lib not built"; status=1; continue; }
  missing=$(functions "$lib" | comm -13 - "$want")
  if [ -n "$missing" ]; then
    echo "$lib lacks $(echo "$missing" | wc -l) of the $(wc -l <"$want") functions:"
    echo "$missing"
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "all $(wc -l <"$want") functions exported"
exit "$status"
