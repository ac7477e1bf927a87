#!/bin/sh
# tests/mpi/oversubscribed.c: 8 ranks pinned to 2 cores (when taskset is
# available), so ranks must give their cores up instead of spinning each
# other out.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    echo "pinning the job to cores 0,1"
    exec_prefix_run() { taskset -c 0,1 "$@"; }
else
    exec_prefix_run() { "$@"; }
fi
prog=$(mpi_prog_path oversubscribed)
[ -x "$prog" ] || skip "$prog not built"
mpi_launcher_cmd
if [ "$MPI_TEST_LAUNCHER" = hcmpirun ]; then
    exec_prefix_run timeout -k 10 $((MPI_TEST_TIMEOUT + 30)) "$HCMPIRUN" -n 8 --timeout "$MPI_TEST_TIMEOUT" "$prog"
else
    exec_prefix_run timeout -k 10 "$MPI_TEST_TIMEOUT" mpiexec.mpich -n 8 "$prog"
fi
rc=$?
[ $rc -eq 0 ] || fail "oversubscribed exited with status $rc"
