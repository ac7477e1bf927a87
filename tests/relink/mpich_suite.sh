#!/bin/sh
# The real ABI test: every tests/mpi program and example compiled with
# mpicc.mpich against MPICH's own mpi.h and libmpich.so.12, then the
# tests/mpi scenario scripts (all but the few named below) run on hcmpi
# through hcmpirun --relink.  Each must pass as it does when built with
# hcmpicc.  The scripts are reused
# unchanged: top_builddir points at a scratch tree whose tools/hcmpirun
# adds --relink, and MPI_TEST_BINDIR at the MPICH-built programs.
#   tests/relink/mpich_suite.sh [scenario ...]   (default: those scenarios)
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
command -v mpicc.mpich >/dev/null 2>&1 || skip "mpicc.mpich not installed"
work=$T/tree
mkdir -p "$work/tests/mpi" "$work/examples" "$work/tools"
# Warnings do not stop the build: this tests the ABI, and MPICH's header
# draws other warnings than ours.  They go to a file, shown when a compile
# fails, so that a scenario's failure heads the log.
flags="-std=gnu11 -O1 -pthread -Wall"
# Tests of calls newer than the installed MPICH say "mt-needs: MPI-4.1";
# where its mpi.h says 4.0 they are not built and their scenarios skip.
level=$(printf '#include <mpi.h>\nMPI_VERSION MPI_SUBVERSION\n' |
    mpicc.mpich -E -P -x c - 2>/dev/null | tail -1)
newer=""
# Example sources without a main() are helpers linked into every example.
helpers=
for c in "$top_srcdir"/examples/*.c; do
    grep -q "^int main" "$c" || helpers="$helpers $c"
done
for c in "$top_srcdir"/tests/mpi/*.c "$top_srcdir"/examples/*.c; do
    rel=${c#"$top_srcdir"/}
    grep -q "^int main" "$c" || continue
    case "$rel" in
    examples/*) extra=$helpers ;;
    *) grep -q mpitest.h "$c" || continue; extra= ;;
    esac
    if [ "$level" = "4 0" ] && grep -q 'mt-needs: MPI-4.1' "$c"; then
        newer="$newer $(basename "$c" .c)"
        continue
    fi
    mpicc.mpich $flags -I"$top_srcdir/tests/mpi" -I"$top_srcdir/examples" "$c" $extra \
        -o "$work/${rel%.c}" -ldl -lm >>"$T/mpicc.log" 2>&1 ||
        { cat "$T/mpicc.log"; fail "mpicc.mpich $rel"; }
    readelf -d "$work/${rel%.c}" | grep -q "NEEDED.*\[libmpich\.so\.12\]" ||
        fail "$rel is not linked against libmpich.so.12"
done
printf '#!/bin/sh\nexec "%s" --relink "$@"\n' "$HCMPIRUN" >"$work/tools/hcmpirun"
chmod +x "$work/tools/hcmpirun"
# Scenarios that ask the build for a tool get hcmpi's own.
printf '#!/bin/sh\nexec "%s" "$@"\n' "$top_builddir/tools/hcmpi_info" >"$work/tools/hcmpi_info"
chmod +x "$work/tools/hcmpi_info"

if [ $# -eq 0 ]; then
    # mpiexec_mpich.sh runs Hydra itself; shm_* watch the real build tree.
    # Under the sanitizers hcmpirun --relink preloads the ASan runtime,
    # whose allocator the MPICH-built nomem_recv would replace (its own
    # malloc, calloc and realloc; built by hcmpicc there it leaves them out
    # and skips).
    # The shared-memory collectives' long scenarios (coll_shm, _lanes,
    # _rooted, _move: a third of the suite's time) drive the engine's
    # segment steps through the same few calls that coll_full, coll_nbc,
    # coll_persistent and coll_shm_nbc already pass through the MPICH ABI
    # here; rerunning them relinked tests no conversion the others miss.
    set -- $(cd "$top_srcdir/tests/mpi" && ls *.sh | grep -v -e '^lib.sh$' \
        -e '^validate-mpich.sh$' -e '^mpiexec_mpich.sh$' -e '^shm_' \
        -e '^coll_shm\(_lanes\|_rooted\|_move\)\?\.sh$')
    # Under the sanitizers (CI's second pass) a sample, one or two
    # scenarios of each family: libmpich.so.12 is the same core as
    # libhcmpi.so (one set of objects, another soname), and the programs
    # built here are not instrumented, so a relinked run executes no
    # library code that the pass's own run of every scenario does not; the
    # first pass runs them all relinked, which is where a difference in
    # MPICH's header would show.  The sample keeps the sanitizer runtime's
    # preload under --relink tested (about 3 of the pass's minutes saved).
    if [ "${HCMPI_TEST_SANITIZED:-0}" = 1 ]; then
        set -- isendrecv pingpong_sizes persistent probe truncation \
            wildcard_order bsend grequest comm_split_dup intercomm_ops \
            coll_full coll_nbc coll_persistent coll_neighbor dtype_misc \
            dtype_large large_count_types rma_ops rma_atomic_ops \
            attr_callbacks error_classes bad_input_table partitioned \
            sessions topo mpit_api type_f90 example_pingpong
    fi
fi
pass=0 failed=0 skipped=0
for s in "$@"; do
    s=${s%.sh}
    case " $newer " in *" $s "*)
        skipped=$((skipped + 1)); echo "SKIP: $s (needs MPI-4.1)"; continue ;;
    esac
    # A program a scenario starts with no launcher (the singleton) finds
    # hcmpi's libmpich.so.12 first as well, as --relink arranges for ranks.
    LD_LIBRARY_PATH="$ABI_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        MPI_TEST_LAUNCHER=hcmpirun MPI_TEST_BINDIR="$work" top_builddir="$work" \
        top_srcdir="$top_srcdir" sh "$top_srcdir/tests/mpi/$s.sh" >"$T/$s.log" 2>&1
    rc=$?
    case $rc in
    0) pass=$((pass + 1)); echo "PASS: $s" ;;
    77) skipped=$((skipped + 1)); echo "SKIP: $s"; tail -3 "$T/$s.log" ;;
    *) failed=$((failed + 1)); echo "FAIL: $s (status $rc)"; tail -60 "$T/$s.log" ;;
    esac
done
echo "$pass passed, $failed failed, $skipped skipped (MPICH-built, run on hcmpi)"
[ $failed -eq 0 ]
