#!/bin/sh
# docs/functions.md names exactly the MPI functions libhcmpi.so exports, so
# the table of what hcmpi implements cannot drift from the code.  Skips (77)
# without python3 or nm.
: "${top_srcdir:=.}"
: "${top_builddir:=.}"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 missing"; exit 77; }
command -v nm >/dev/null 2>&1 || { echo "SKIP: nm missing"; exit 77; }
lib="$top_builddir/.libs/libhcmpi.so"
[ -f "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }
if python3 "$top_srcdir/scripts/function_table.py" "$lib" --check "$top_srcdir/docs/functions.md"; then
  echo "PASS: docs/functions.md matches the exports of $lib"
else
  echo "FAIL: docs/functions.md does not match the exports of $lib"
  exit 1
fi
