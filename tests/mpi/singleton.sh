#!/bin/sh
# tests/mpi/singleton.c, then tests/mpi/attributes.c, started alone: no
# launcher, every PMI/PMIx/Slurm variable removed, so MPI_Init must fall
# back to a world of one rank (attributes.c then checks the singleton's
# MPI_UNIVERSE_SIZE 1 and unset MPI_APPNUM).  Each program's exit status
# and OK line are the verdict.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
# MPICH 4.0.2 starts a singleton by running `mpiexec -pmi_args ...`, which
# its own Hydra then refuses to parse: nothing to validate against there.
[ "$MPI_TEST_LAUNCHER" = mpich ] && skip "MPICH's singleton start needs an mpiexec it cannot find"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for name in singleton attributes; do
    prog=$(mpi_prog_path $name)
    [ -x "$prog" ] || skip "$prog not built"
    echo "+ $prog (no launcher)"
    timeout -k 5 "$MPI_TEST_TIMEOUT" env -u PMI_FD -u PMI_PORT -u PMI_ID -u PMI_RANK \
        -u PMI_SIZE -u PMI_JOBID -u PMIX_NAMESPACE -u PMIX_RANK -u PMIX_SERVER_URI2 \
        -u PMIX_SERVER_URI21 -u PMIX_SERVER_URI3 -u PMIX_SERVER_URI4 -u PMIX_SERVER_URI41 \
        -u SLURM_MPI_TYPE -u HCMPI_BOOTSTRAP "$prog" >"$out" 2>&1 </dev/null
    rc=$?
    cat "$out"
    [ $rc -eq 0 ] || fail "$name alone exited with status $rc"
    grep -q "^$name: .*OK" "$out" || fail "no OK line from $name alone"
done
echo "singleton: both programs passed without a launcher"
