#!/bin/sh
# ULFM under the launchers other than hcmpirun, each asked to keep the job
# after a death; ulfm.c's agree mode must pass on the 3 survivors of 4.
#  - MPICH's Hydra (mpiexec.mpich -disable-auto-cleanup): it keeps the
#    others only when a rank exits (rank 1 exits with status 9,
#    ULFM_DEATH=exit; a death by signal still ends the job) and sends each
#    SIGUSR1, whose default action would end them; each survivor must
#    also have read Hydra's list of dead ranks (PMI_dead_processes).
#  - Open MPI's mpirun --enable-recovery (PMIx): rank 1 is SIGKILLed.
# Each part skips where its launcher is not installed.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
prog=$(mpi_prog_path ulfm)
[ -x "$prog" ] || skip "$prog not built"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
ran=0

# Sanitizer builds: libpmix's own allocations are not our leaks.
LSAN_OPTIONS="suppressions=${top_srcdir:-.}/tests/launchers/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS

check_survivors() { # WHAT
    [ $rc -ne 124 ] || fail "$1: the job hung until the timeout"
    grep -q "FAIL rank" "$out" && fail "$1: a check failed"
    n=$(grep -c "PASS agree" "$out")
    [ "$n" -eq 3 ] || fail "$1: $n of 3 survivors passed"
}

if command -v mpiexec.mpich >/dev/null 2>&1; then
    echo "+ mpiexec.mpich -disable-auto-cleanup -n 4 ulfm agree (ULFM_DEATH=exit)"
    timeout -k 5 120 mpiexec.mpich -disable-auto-cleanup -n 4 \
        -genv ULFM_DEATH exit -genv HCMPI_LOG debug "$prog" agree >"$out" 2>&1
    rc=$?
    grep -v "hcmpi\[" "$out"
    check_survivors Hydra
    n=$(grep -c "the launcher says rank 1 died" "$out")
    [ "$n" -ge 1 ] || fail "no survivor read Hydra's list of dead ranks"
    echo "Hydra: 3 survivors passed; $n read its notice"
    ran=1
fi

if command -v mpirun.openmpi >/dev/null 2>&1; then
    echo "+ mpirun.openmpi --enable-recovery -n 4 ulfm agree"
    timeout -k 5 120 mpirun.openmpi --allow-run-as-root --oversubscribe \
        --enable-recovery -x LSAN_OPTIONS -n 4 "$prog" agree >"$out" 2>&1 </dev/null
    rc=$?
    cat "$out"
    check_survivors "Open MPI"
    echo "Open MPI: 3 survivors passed"
    ran=1
fi
[ $ran -eq 1 ] || skip "neither mpiexec.mpich nor mpirun.openmpi"
