# Common code for the tests/mpi/*.sh scenario scripts (sourced, not run).
#
# run_mpi N PROG [ARGS...]   runs PROG on N ranks under the launcher with a
#                            timeout; PROG is a name in tests/mpi/ or
#                            examples/NAME.  Returns the launcher's status;
#                            output goes to stdout/stderr (the .log file).
# skip MSG                   exits 77 (Automake SKIP).
#
# Environment:
#   top_builddir, top_srcdir  set by the Makefile (AM_TESTS_ENVIRONMENT).
#   MPI_TEST_LAUNCHER   hcmpirun (default) or mpich (mpiexec.mpich).
#   MPI_TEST_BINDIR     where tests/mpi/ and examples/ programs live
#                       (default: $top_builddir).
#   MPI_TEST_TIMEOUT    seconds per launch (default 120).

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
: "${MPI_TEST_LAUNCHER:=hcmpirun}"
: "${MPI_TEST_BINDIR:=$top_builddir}"
: "${MPI_TEST_TIMEOUT:=120}"

skip() {
    echo "SKIP: $*"
    exit 77
}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

mpi_prog_path() {
    case "$1" in
    */*) echo "$MPI_TEST_BINDIR/$1" ;;
    *) echo "$MPI_TEST_BINDIR/tests/mpi/$1" ;;
    esac
}

mpi_launcher_cmd() {
    case "$MPI_TEST_LAUNCHER" in
    hcmpirun)
        HCMPIRUN="$top_builddir/tools/hcmpirun"
        [ -x "$HCMPIRUN" ] || skip "launcher $HCMPIRUN not built"
        ;;
    mpich)
        command -v mpiexec.mpich >/dev/null 2>&1 || skip "mpiexec.mpich not installed"
        ;;
    *) fail "unknown MPI_TEST_LAUNCHER=$MPI_TEST_LAUNCHER" ;;
    esac
}

# The launcher's own --timeout ends the job cleanly; the outer timeout is a
# backstop in case the launcher itself hangs.
run_mpi() {
    n=$1
    prog=$(mpi_prog_path "$2")
    shift 2
    [ -x "$prog" ] || skip "$prog not built"
    mpi_launcher_cmd
    echo "+ [$MPI_TEST_LAUNCHER] -n $n ${MPI_TEST_WRAP:+(wrapped) }$prog $*"
    case "$MPI_TEST_LAUNCHER" in
    hcmpirun)
        timeout -k 10 $((MPI_TEST_TIMEOUT + 30)) \
            "$HCMPIRUN" -n "$n" --timeout "$MPI_TEST_TIMEOUT" ${MPI_TEST_WRAP:+"$MPI_TEST_WRAP"} \
            "$prog" "$@"
        ;;
    mpich)
        timeout -k 10 "$MPI_TEST_TIMEOUT" mpiexec.mpich -n "$n" "$prog" "$@"
        ;;
    esac
}

# run_mpi_ok N PROG [ARGS...]: run_mpi and fail the script on a non-zero exit.
run_mpi_ok() {
    run_mpi "$@"
    rc=$?
    [ $rc -eq 77 ] && exit 77
    [ $rc -eq 0 ] || fail "$2 on $1 ranks exited with status $rc"
}

# one_cpu_wrapper FILE: writes FILE, a wrapper for MPI_TEST_WRAP that
# runs every rank on the first CPU this shell may use (taskset); 1 when
# there is no taskset.
one_cpu_wrapper() {
    command -v taskset >/dev/null 2>&1 || return 1
    cpu=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
    [ -n "$cpu" ] || return 1
    printf '#!/bin/sh\nexec taskset -c %s "$@"\n' "$cpu" >"$1"
    chmod +x "$1"
}

# run_mpi_ok_no_cma_on_rank1 N PROG [ARGS...]: run_mpi_ok under hcmpirun
# with HCMPI_SHM_CMA=0 for rank 1 alone, whose reads of the other ranks'
# memory then fail (the others' still work).
run_mpi_ok_no_cma_on_rank1() {
    no_cma_wrap=$(mktemp)
    printf '#!/bin/sh\n[ "$PMI_RANK" != 1 ] || export HCMPI_SHM_CMA=0\nexec "$@"\n' >"$no_cma_wrap"
    chmod +x "$no_cma_wrap"
    MPI_TEST_WRAP=$no_cma_wrap
    run_mpi_ok "$@"
    MPI_TEST_WRAP=
    rm -f "$no_cma_wrap"
}
