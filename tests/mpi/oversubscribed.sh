#!/bin/sh
# tests/mpi/oversubscribed.c: 8 ranks pinned to 2 cores (when taskset is
# available), so ranks must give their cores up instead of spinning each
# other out.  Under hcmpirun it runs three times: with the default wait
# (waits for messages yield a few hundred times, then sleep), with waits
# that sleep after 16 pure polls, and with waits that sleep at once
# (HCMPI_SPIN=0: every message a sleeper's wake-up, beside the crowded
# node's marks), so both the yielding and the doorbell's wake-ups carry the
# job to its end.
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
    for policy in default "HCMPI_SPIN=16 HCMPI_SPIN_PURE=16" HCMPI_SPIN=0; do
        echo "wait policy: $policy"
        envs=
        [ "$policy" = default ] || for kv in $policy; do envs="$envs --env $kv"; done
        # shellcheck disable=SC2086 # envs is a list of --env K=V words
        exec_prefix_run timeout -k 10 $((MPI_TEST_TIMEOUT + 30)) "$HCMPIRUN" -n 8 --timeout "$MPI_TEST_TIMEOUT" $envs "$prog"
        rc=$?
        [ $rc -eq 0 ] || fail "oversubscribed ($policy) exited with status $rc"
    done
else
    exec_prefix_run timeout -k 10 "$MPI_TEST_TIMEOUT" mpiexec.mpich -n 8 "$prog"
    rc=$?
    [ $rc -eq 0 ] || fail "oversubscribed exited with status $rc"
fi
