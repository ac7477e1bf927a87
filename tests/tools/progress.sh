#!/bin/sh
# hcmpirun --progress: on a terminal (a pty from util-linux's script) the
# status line appears, is erased before each forwarded line and the output
# lines arrive whole; without a terminal nothing extra is written.
# Run from the build directory (make check does).

RUN=./tools/hcmpirun
[ -x "$RUN" ] || { echo "missing $RUN (run from the build directory)"; exit 99; }
command -v script >/dev/null 2>&1 || { echo "SKIP: no script(1)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "PASS: $*"; }

# The bytes written to the pty, and the rows a terminal would show: the text
# after the last carriage return + erase-line of each row.
screen() {
  tr -d '\r' <"$T/tty" | sed 's/\x1b\[K/<EL>/g' >"$T/clean"
  sed 's/\r$//; s/.*\r\x1b\[K//' "$T/tty" >"$T/screen"
}

# The ranks outlive a redraw period so the status is drawn more than once.
PROG="sh -c 'echo line-a \$PMI_RANK; sleep 2; echo line-b \$PMI_RANK'"

# 1. Under a pty: status text, then erased before every forwarded line.
timeout 60 script -qec "$RUN --progress -n 3 $PROG" /dev/null \
  </dev/null >"$T/tty" 2>&1
rc=$?
screen
if [ $rc -eq 0 ] && grep -q 'hcmpirun: 3 ranks: 3 running, 0 finished, 0 failed, 0:00:0[0-9] elapsed' "$T/clean"; then
  pass "status line on a terminal"
else
  fail "status line on a terminal (rc=$rc)"; cat -v "$T/tty"
fi
if grep -q 'hcmpirun: 3 ranks: 0 running, 3 finished, 0 failed' "$T/clean"; then
  pass "status counts finished ranks"
else
  fail "finished count"; cat -v "$T/tty"
fi
# What a terminal shows on each row: the text after the last erase.
n=$(grep -cE '^line-[ab] [0-2]$' "$T/screen")
if [ "$n" -eq 6 ]; then pass "output lines not mixed with the status"; else
  fail "output lines mixed with the status ($n of 6 clean)"; cat -v "$T/tty"; fi
# The last thing written is an erase: the terminal is left clean.
if tail -c 4 "$T/tty" | od -c | grep -q '033   \[   K'; then
  pass "status erased at the end"
else
  fail "status left on screen"; tail -c 80 "$T/tty" | cat -v
fi

# 2. A failing rank: hcmpirun's own message also starts on a clean row.
timeout 60 script -qec "$RUN --progress -n 2 sh -c 'exit 3'" /dev/null \
  </dev/null >"$T/tty" 2>&1
screen
if grep -qE '^hcmpirun: rank [01] \(pid [0-9]+\) exited with code 3 before MPI_Finalize$' "$T/screen"; then
  pass "launcher messages on their own row"
else
  fail "launcher message mixed with the status"; cat -v "$T/tty"
fi

# 3. Without a terminal: byte-for-byte the output of a run without it.
timeout 60 $RUN --progress -n 2 sh -c 'echo out $PMI_RANK; echo err >&2; sleep 1.5' \
  </dev/null >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && [ "$(sort "$T/out")" = "$(printf 'out 0\nout 1')" ] &&
   [ "$(cat "$T/err")" = "$(printf 'err\nerr')" ]; then
  pass "quiet when stderr is not a terminal"
else
  fail "extra output without a terminal (rc=$rc)"; cat -v "$T/out" "$T/err"
fi

[ $failures -eq 0 ] || exit 1
