#!/bin/sh
# The man pages in man/ render without a single groff warning (-ww turns
# every warning category on), and each documents every option its tool's
# --help lists.  Skips (77) without groff.
: "${top_srcdir:=.}"
: "${top_builddir:=.}"
command -v groff >/dev/null 2>&1 || { echo "SKIP: groff not installed"; exit 77; }
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for page in hcmpicc hcmpirun hcmpi_info hcmpi-trace; do
  f="$top_srcdir/man/$page.1"
  [ -f "$f" ] || { fail "$f missing"; continue; }
  warn=$(groff -man -Tutf8 -ww -z "$f" 2>&1)
  if [ -n "$warn" ]; then fail "$page.1 has groff warnings:"; echo "$warn"; else echo "PASS: $page.1 renders cleanly"; fi
done

# Every option --help names must appear in the page (rendered, so that roff
# escapes such as \- do not hide it).
options_covered() { # page, help text
  text=$(groff -man -Tutf8 -P-cbu "$top_srcdir/man/$1.1" 2>/dev/null)
  missing=""
  for o in $(printf '%s\n' "$2" | grep -oE '(^|[][ ,|])--?[a-zA-Z][a-zA-Z_-]*' |
             sed 's/^[][ ,|]//' | sort -u); do
    printf '%s\n' "$text" | grep -qe "$o" || missing="$missing $o"
  done
  if [ -n "$missing" ]; then fail "$1.1 lacks:$missing"; else echo "PASS: $1.1 covers --help"; fi
}
if [ -x "$top_builddir/tools/hcmpirun" ]; then
  options_covered hcmpirun "$("$top_builddir/tools/hcmpirun" --help)"
fi
if [ -x "$top_builddir/tools/hcmpi_info" ]; then
  options_covered hcmpi_info "$("$top_builddir/tools/hcmpi_info" --help)"
fi
if command -v python3 >/dev/null 2>&1; then
  options_covered hcmpi-trace "$(python3 "$top_srcdir/tools/hcmpi-trace" --help)"
fi
options_covered hcmpicc "$(sed -n '2,5p' "$top_srcdir/tools/hcmpicc.in")"

[ $failures -eq 0 ] || exit 1
