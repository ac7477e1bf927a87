#!/bin/sh
# ULFM under MPICH's Hydra (mpiexec.mpich -disable-auto-cleanup): when a
# rank exits, Hydra keeps the others and sends each SIGUSR1, whose default
# action would end them.  ulfm.c's agree mode (rank 1 exits with status 9,
# ULFM_DEATH=exit) must pass on the 3 survivors, and each must have read
# the launcher's list of dead ranks (PMI_dead_processes).  Hydra still
# ends the whole job after a death by signal: no kill -9 here.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
command -v mpiexec.mpich >/dev/null 2>&1 || skip "no mpiexec.mpich"
prog=$(mpi_prog_path ulfm)
[ -x "$prog" ] || skip "$prog not built"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "+ mpiexec.mpich -disable-auto-cleanup -n 4 ulfm agree (ULFM_DEATH=exit)"
timeout -k 5 120 mpiexec.mpich -disable-auto-cleanup -n 4 \
    -genv ULFM_DEATH exit -genv HCMPI_LOG debug "$prog" agree >"$out" 2>&1
rc=$?
grep -v "hcmpi\[" "$out"
[ $rc -ne 124 ] || fail "the job hung until the timeout"
grep -q "FAIL rank" "$out" && fail "a check failed"
n=$(grep -c "PASS agree" "$out")
[ "$n" -eq 3 ] || fail "$n of 3 survivors passed"
n=$(grep -c "the launcher says rank 1 died" "$out")
[ "$n" -ge 1 ] || fail "no survivor read Hydra's list of dead ranks"
echo "ulfm_hydra: 3 survivors passed; $n read Hydra's notice"
