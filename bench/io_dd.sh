#!/bin/sh
# The file system's own rate for bench/fileio.c's independent cases
# (io_write, io_read), measured with dd in the same shape and interleaved
# with hcmpi's fileio in every round, so both see the same load:
#   dd1   one dd moving RANKS x SIZE bytes (bs=SIZE count=RANKS);
#   ddN   RANKS dd at once, each SIZE bytes at offset rank x SIZE;
#   hcmpi fileio -c write / -c read on RANKS ranks (median of its reps).
# Like fileio: no fsync / fdatasync (the page cache, as fileio measures),
# writes overwrite an existing file (conv=notrunc), reads come from the
# page cache.  MB = 10^6 bytes, all writers together, open to close.
# Prints every round and the median of each column.  Run from the build
# tree:  sh ../bench/io_dd.sh [RANKS [SIZE_MIB [ROUNDS]]]
RANKS=${1:-4}
MIB=${2:-64}
ROUNDS=${3:-7}
SRC=$(cd "$(dirname "$0")" && pwd)
DIR=${TMPDIR:-/tmp}
F=$DIR/io_dd.$$
BIN=$DIR/io_dd_fileio.$$
BYTES=$((RANKS * MIB * 1048576))
./tools/hcmpicc-build -O2 -I "$SRC" "$SRC/fileio.c" "$SRC/common.c" -o "$BIN" ||
  exit 1
trap 'rm -f "$F" "$BIN"' EXIT

now_ns() { date +%s%N; }
rate() { awk -v b="$BYTES" -v t0="$1" -v t1="$2" \
  'BEGIN { printf "%.0f", b / ((t1 - t0) / 1e9) / 1e6 }'; }

dd_write_one() {
  t0=$(now_ns)
  dd if=/dev/zero of="$F" bs="${MIB}M" count="$RANKS" conv=notrunc \
    status=none
  rate "$t0" "$(now_ns)"
}
dd_write_par() {
  t0=$(now_ns)
  r=0
  while [ $r -lt "$RANKS" ]; do
    dd if=/dev/zero of="$F" bs="${MIB}M" count=1 seek=$r conv=notrunc \
      status=none &
    r=$((r + 1))
  done
  wait
  rate "$t0" "$(now_ns)"
}
dd_read_one() {
  t0=$(now_ns)
  dd if="$F" of=/dev/null bs="${MIB}M" count="$RANKS" status=none
  rate "$t0" "$(now_ns)"
}
dd_read_par() {
  t0=$(now_ns)
  r=0
  while [ $r -lt "$RANKS" ]; do
    dd if="$F" of=/dev/null bs="${MIB}M" count=1 skip=$r status=none &
    r=$((r + 1))
  done
  wait
  rate "$t0" "$(now_ns)"
}
fileio() {
  ./tools/hcmpirun -n "$RANKS" "$BIN" -c "$1" -s "${MIB}M" -r 3 -w 1 |
    sed -n 's/^bench=.* median_MBps=\([0-9.]*\).*/\1/p' | cut -d. -f1
}

dd if=/dev/zero of="$F" bs="${MIB}M" count="$RANKS" status=none
echo "# io_dd: $RANKS x $MIB MiB in $DIR, $ROUNDS rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "round write_dd1 write_ddN write_hcmpi read_dd1 read_ddN read_hcmpi"
OUT=$DIR/io_dd_rounds.$$
: >"$OUT"
i=1
while [ $i -le "$ROUNDS" ]; do
  line="$i $(dd_write_one) $(dd_write_par) $(fileio write)"
  line="$line $(dd_read_one) $(dd_read_par) $(fileio read)"
  echo "$line" | tee -a "$OUT"
  i=$((i + 1))
done
awk '{ for (c = 2; c <= NF; c++) v[c, NR] = $c; n = NR; nf = NF }
  END {
    printf "median";
    for (c = 2; c <= nf; c++) {
      m = 0; for (r = 1; r <= n; r++) a[r] = v[c, r];
      for (x = 1; x <= n; x++) for (y = x + 1; y <= n; y++)
        if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
      printf " %s", (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2;
    }
    printf "\n";
  }' "$OUT"
rm -f "$OUT"
echo "# load at end $(cut -d' ' -f1-3 /proc/loadavg)"
