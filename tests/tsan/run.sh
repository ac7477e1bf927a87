#!/bin/sh
# make tsan-check: a separate build with ThreadSanitizer (gcc or clang,
# -fsanitize=thread) in $TSAN_BUILD (default $builddir/tsan-build), then
# tests/mpi/thread_multiple (4 threads per rank: point-to-point, Probe and
# collectives on per-thread communicators; 2 and 4 ranks, and 2 over tcp)
# and tests/engine/engine_threads (2 ranks), tests/mpi/mpit_threads (MPI_T
# beside THREAD_MULTIPLE traffic, 2 ranks), tests/io/io_nonblocking and
# tests/io/io_coll_overlap (2 ranks), tests/mpi/comm_dup_crossed (3 ranks)
# and tests/mpi/port_open_threads (2 ranks) under it.  Every TSan
# report fails the run; the reports stay in $TSAN_BUILD/tsan-logs/.
# Exits 77 when the compiler cannot build or run a -fsanitize=thread
# program.
#   srcdir=... builddir=... [TSAN_CC=cc] [TSAN_JOBS=2] tests/tsan/run.sh
set -u
: "${srcdir:=.}" "${builddir:=.}" "${TSAN_CC:=cc}" "${TSAN_JOBS:=2}"
srcdir=$(cd "$srcdir" && pwd)
builddir=$(cd "$builddir" && pwd)
: "${TSAN_BUILD:=$builddir/tsan-build}"
flags="-g -O1 -fsanitize=thread -fno-omit-frame-pointer"

probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <pthread.h>\nstatic void *f(void *a) { return a; }\nint main(void) { pthread_t t; pthread_create(&t, 0, f, 0); return pthread_join(t, 0); }\n' >"$probe/p.c"
if ! "$TSAN_CC" $flags -pthread "$probe/p.c" -o "$probe/p" 2>/dev/null || ! "$probe/p"; then
    echo "SKIP: $TSAN_CC cannot build or run a -fsanitize=thread program"
    exit 77
fi

mkdir -p "$TSAN_BUILD"
cd "$TSAN_BUILD" || exit 1
if [ ! -f Makefile ]; then
    "$srcdir/configure" -q --disable-lto CC="$TSAN_CC" CFLAGS="$flags" LDFLAGS="-fsanitize=thread" ||
        { echo "FAIL: configure"; exit 1; }
fi
make -j"$TSAN_JOBS" >build.log 2>&1 &&
    make -j"$TSAN_JOBS" tests/mpi/thread_multiple tests/engine/engine_threads \
        tests/mpi/mpit_threads tests/io/io_nonblocking tests/io/io_coll_overlap \
        tests/mpi/request_threads \
        tests/mpi/comm_dup_crossed tests/mpi/port_open_threads >>build.log 2>&1 ||
    { tail -30 build.log; echo "FAIL: build (see $TSAN_BUILD/build.log)"; exit 1; }

logs="$TSAN_BUILD/tsan-logs"
rm -rf "$logs"
mkdir -p "$logs"
# log_path gives one file per process; exitcode 66 makes a report fail the rank.
export TSAN_OPTIONS="log_path=$logs/tsan exitcode=66 halt_on_error=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
run=./tools/hcmpirun
failed=0
step() {
    echo "== $*"
    timeout -k 10 900 "$@" || { echo "   exited with status $?"; failed=1; }
}
step "$run" -n 2 --timeout 600 ./tests/mpi/thread_multiple
step "$run" -n 4 --timeout 600 ./tests/mpi/thread_multiple
step env HCMPI_TRANSPORTS=tcp "$run" -n 2 --timeout 600 ./tests/mpi/thread_multiple 100
step "$run" -n 2 --timeout 600 ./tests/engine/engine_threads
step "$run" -n 2 --timeout 600 ./tests/mpi/mpit_threads
# The MPI-IO worker thread completing requests the application waits on.
step "$run" -n 2 --timeout 600 ./tests/io/io_nonblocking
# The file's thread moving collective accesses over its own communicator
# while the application communicates on MPI_COMM_WORLD.
step "$run" -n 2 --timeout 600 ./tests/io/io_coll_overlap
# Request objects made on one thread and freed on another (reqpool.c).
step "$run" -n 2 --timeout 600 ./tests/mpi/request_threads 30
# Threads creating communicators while others wait on them (ctxid.c).
step "$run" -n 3 --timeout 600 ./tests/mpi/comm_dup_crossed
# A port opened (the runtime transport added) while another thread
# sleeps in a wait without the engine lock (progress.c).
step "$run" -n 2 --timeout 600 ./tests/mpi/port_open_threads

reports=$(cat "$logs"/tsan.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer')
if [ "$reports" -gt 0 ]; then
    echo "ThreadSanitizer: $reports report(s); first ones:"
    cat "$logs"/tsan.* | grep -A12 '^WARNING: ThreadSanitizer' | head -80
    echo "FAIL: all reports in $logs"
    exit 1
fi
[ "$failed" -eq 0 ] || { echo "FAIL: a run failed"; exit 1; }
echo "PASS: thread_multiple (2, 4 ranks; 2 over tcp), engine_threads, mpit_threads, request_threads, io_nonblocking and io_coll_overlap (2 ranks), comm_dup_crossed (3 ranks), port_open_threads (2 ranks) clean under ThreadSanitizer"
