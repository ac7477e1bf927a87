#!/bin/sh
# make fuzz: builds tests/fuzz/fuzz_*.c with clang -fsanitize=fuzzer,address
# against the engine's sources and runs each for FUZZ_SECONDS (default 20).
#   srcdir=... builddir=... FUZZ_SECONDS=N CLANG=clang tests/fuzz/run.sh
# Exits 77 without clang or libFuzzer, 1 when a target crashed (its input is
# kept in $builddir/fuzz/).
set -u
: "${srcdir:=.}" "${builddir:=.}" "${FUZZ_SECONDS:=20}" "${CLANG:=clang}"
command -v "$CLANG" >/dev/null 2>&1 || { echo "SKIP: no $CLANG"; exit 77; }
out="$builddir/fuzz"
mkdir -p "$out/obj"
flags="-g -O1 -std=gnu11 -pthread -DHAVE_CONFIG_H -D_GNU_SOURCE -fsanitize=address,undefined -fno-sanitize-recover=all"
inc="-I$builddir -I$srcdir/include -I$srcdir/src"
# The engine, minus the MPI face: its sources as the Makefile lists them.
objs=""
for src in $HC_FUZZ_SOURCES; do
    case "$src" in *.c) ;; *) continue ;; esac
    o="$out/obj/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')"
    if [ ! -f "$o" ] || [ "$srcdir/$src" -nt "$o" ]; then
        "$CLANG" $flags -fsanitize=fuzzer-no-link $inc -c "$srcdir/$src" -o "$o" || exit 1
    fi
    objs="$objs $o"
done
status=0
for t in "$srcdir"/tests/fuzz/fuzz_*.c; do
    name=$(basename "$t" .c)
    "$CLANG" $flags -fsanitize=fuzzer $inc "$t" $objs -o "$out/$name" \
        -lpthread -ldl -lrt -lm || { echo "SKIP: $CLANG cannot build libFuzzer targets"; exit 77; }
    mkdir -p "$out/corpus-$name"
    echo "== $name for ${FUZZ_SECONDS}s"
    if (cd "$out" && ASAN_OPTIONS=detect_leaks=1 "./$name" \
        -max_total_time="$FUZZ_SECONDS" -max_len=4096 -print_final_stats=1 \
        "corpus-$name" >"$name.log" 2>&1); then
        tail -4 "$out/$name.log"
    else
        tail -40 "$out/$name.log"
        status=1
    fi
done
exit $status
