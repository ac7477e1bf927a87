#!/bin/sh
# Ranks started behind a wrapper shell (hcmpirun -n 3 sh -c "prog; true",
# so the shell stays the launcher's child and the MPI program its child)
# end with the job: SIGTERM of hcmpirun reaches every process a rank
# started (each rank leads its own process group), and kill -9 of hcmpirun
# still ends the MPI programs (they notice the launcher's PMI connection
# close); nothing is left in /dev/shm, with the default memfd segment and
# with a named one.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
. "${top_srcdir:-.}/tests/mpi/leak_lib.sh"
leak_setup

# Every survivor check below also wants the MPI programs themselves gone:
# they carry the token, and so do the wrapper shells.
wrapped="$prog hang $tok; true"
# A helper the wrapper starts beside the MPI program, not an MPI process.
helper="sh -c 'sleep 600; :' $tok"

for memfd in 1 0; do
    export HCMPI_SHM_MEMFD=$memfd

    start_hang "memfd=$memfd: kill -9 of hcmpirun" sh -c "$wrapped"
    kill -9 $lpid
    wait $lpid 2>/dev/null
    lpid=
    check_clean "memfd=$memfd: kill -9 of hcmpirun, ranks behind sh -c"

    start_hang "memfd=$memfd: SIGTERM of hcmpirun" sh -c "$helper & $wrapped"
    kill -TERM $lpid
    wait $lpid
    rc=$?
    lpid=
    cat "$out"
    [ $rc -eq 143 ] || fail "memfd=$memfd: hcmpirun ended by SIGTERM exited $rc, want 143"
    check_clean "memfd=$memfd: SIGTERM of hcmpirun, ranks and helpers behind sh -c"
done
unset HCMPI_SHM_MEMFD
echo "launcher_wrapped: all cases clean"
