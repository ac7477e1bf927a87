#!/bin/sh
# Standard ABI against MPICH ABI: bench/latency.c built with hcmpicc
# (libhcmpi) and with hcmpicc -abi (mpi_abi.h, libmpi_abi over libhcmpi),
# run interleaved ROUNDS times on 2 ranks at SIZE bytes; prints each
# build's median of the per-round medians, its best round, and the ratios.
#   BUILD=<build dir> sh bench/abi_compare.sh [ROUNDS] [SIZE]
: "${BUILD:=build}"
rounds=${1:-40}
size=${2:-8}
src=$(dirname "$0")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$BUILD/tools/hcmpicc-build" -O2 -o "$tmp/lat_mpich" "$src/latency.c" \
    "$src/common.c" -lm || exit 1
"$BUILD/tools/hcmpicc-build" -abi -O2 -o "$tmp/lat_abi" "$src/latency.c" \
    "$src/common.c" -lm || exit 1
i=0
while [ $i -lt "$rounds" ]; do
    for k in mpich abi; do
        "$BUILD/tools/hcmpirun" -n 2 "$tmp/lat_$k" -s "$size" -r 21 -i 5000 |
            sed -n "s/.*median_us=\([0-9.]*\) min_us=\([0-9.]*\).*/$k \1 \2/p"
    done
    i=$((i + 1))
done >"$tmp/lat.txt"
python3 - "$tmp/lat.txt" "$size" <<'PY'
import statistics, sys
med, best = {'mpich': [], 'abi': []}, {'mpich': [], 'abi': []}
for line in open(sys.argv[1]):
    k, m, n = line.split()
    med[k].append(float(m))
    best[k].append(float(n))
for k in ('mpich', 'abi'):
    print('%-5s %s B: median of %d round medians %.3f us, best round median '
          '%.3f us, min %.3f us' % (k, sys.argv[2], len(med[k]),
                                    statistics.median(med[k]), min(med[k]),
                                    min(best[k])))
print('abi/mpich: median %.3f, best round %.3f, min %.3f' % (
    statistics.median(med['abi']) / statistics.median(med['mpich']),
    min(med['abi']) / min(med['mpich']), min(best['abi']) / min(best['mpich'])))
PY
