#!/bin/sh
# Builds tests/mpi/*.c and examples/*.c with mpicc.mpich and runs every
# scenario script under mpiexec.mpich, to prove the tests themselves are
# right before they judge hcmpi.  MT_MPICH_QUIRKS=1 relaxes the two checks
# where MPICH 4.0.2 departs from what hcmpi promises (see mpitest.h users).
# killed_rank and the launcher-specific words are checked only for hcmpirun.
#   tests/mpi/validate-mpich.sh [scenario ...]
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
command -v mpicc.mpich >/dev/null 2>&1 || { echo "SKIP: no mpicc.mpich"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tests/mpi" "$work/examples"
# -Wno-stringop-overflow: gcc 12 reads MPICH's MPI_STATUSES_IGNORE,
# (MPI_Status *)1, as an array of no room passed to MPI_Waitall.
flags="-std=gnu11 -O1 -pthread -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-stringop-overflow -Werror"
# Tests of calls newer than this MPICH say "mt-needs: MPI-4.1"
# and are skipped, with their scenarios, where its mpi.h says 4.0.
level=$(printf '#include <mpi.h>\nMPI_VERSION MPI_SUBVERSION\n' |
    mpicc.mpich -E -P -x c - 2>/dev/null | tail -1)
newer=""
for c in "$srcdir"/tests/mpi/*.c "$srcdir"/examples/*.c; do
    rel=${c#"$srcdir"/}
    # Helpers linked into the examples that include their headers.
    case "$rel" in examples/devbuf.c | examples/pipeline_enqueue.c) continue ;; esac
    grep -q mpitest.h "$c" || case "$rel" in examples/*) ;; *) continue ;; esac
    if [ "$level" = "4 0" ] && grep -q 'mt-needs: MPI-4.1' "$c"; then
        newer="$newer $(basename "$c" .c)"
        continue
    fi
    # Examples that take --device link the device-buffer helper with them.
    extra=""
    grep -q devbuf.h "$c" && extra="$srcdir/examples/devbuf.c"
    grep -q pipeline_enqueue.h "$c" && extra="$extra $srcdir/examples/pipeline_enqueue.c"
    mpicc.mpich $flags -I"$srcdir/tests/mpi" "$c" $extra -o "$work/${rel%.c}" -ldl -lm ||
        exit 1
done
export MPI_TEST_LAUNCHER=mpich MPI_TEST_BINDIR="$work" MT_MPICH_QUIRKS=1
export top_srcdir="$srcdir" top_builddir="$work"
pass=0 failed=0 skipped=0
if [ $# -eq 0 ]; then
    set -- $(cd "$srcdir/tests/mpi" && ls *.sh | grep -v -e '^lib.sh$' -e '^leak_lib.sh$' -e '^validate-mpich.sh$' \
        -e '^mpiexec_mpich.sh$' -e '^shm_')
fi
for s in "$@"; do
    s=${s%.sh}
    case " $newer " in *" $s "*)
        skipped=$((skipped + 1)); echo "SKIP: $s (needs MPI-4.1)"; continue ;;
    esac
    sh "$srcdir/tests/mpi/$s.sh" >"$work/$s.log" 2>&1
    rc=$?
    case $rc in
    0) pass=$((pass + 1)); echo "PASS: $s" ;;
    77) skipped=$((skipped + 1)); echo "SKIP: $s" ;;
    *) failed=$((failed + 1)); echo "FAIL: $s (status $rc)"; tail -20 "$work/$s.log" ;;
    esac
done
echo "$pass passed, $failed failed, $skipped skipped (MPICH)"
[ $failed -eq 0 ]
