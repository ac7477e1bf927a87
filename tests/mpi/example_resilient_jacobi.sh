#!/bin/sh
# examples/resilient_jacobi on 6 ranks under hcmpirun --no-kill-on-failure:
# a run without failure gives the reference residual; then one rank is
# SIGKILLed (a neighbour mid-run over shm, the agreement coordinator during
# a checkpoint exchange over shm, the last rank one iteration before the
# end over tcp) and the survivors must revoke, shrink, take over its block
# from the buddy checkpoint and print the same residual, bit for bit.
# Then two ranks die in one run (over shm, then tcp): the second after the
# survivors of the first have recovered, so it hits a shrunken communicator.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "needs hcmpirun --no-kill-on-failure"
prog=$(mpi_prog_path examples/resilient_jacobi)
[ -x "$prog" ] || skip "$prog not built"
mpi_launcher_cmd
out=$(mktemp)
trap 'rm -f "$out"' EXIT

run_jacobi() { # TRANSPORTS [--kill R@I]
    t=$1
    shift
    echo "+ hcmpirun --no-kill-on-failure -n 6 resilient_jacobi $* (HCMPI_TRANSPORTS=$t)"
    HCMPI_LOG=error HCMPI_TRANSPORTS=$t timeout -k 5 120 "$HCMPIRUN" \
        --no-kill-on-failure -n 6 --timeout 90 "$prog" "$@" >"$out" 2>&1
    rc=$?
    cat "$out"
    [ $rc -ne 124 ] || fail "$*: job hung until the timeout"
    grep -q "abort" "$out" && fail "$*: a rank aborted"
}

run_jacobi shm,self
ref=$(sed -n 's/^residual \([^ ]*\) after 300 iterations on 6 ranks$/\1/p' "$out")
[ -n "$ref" ] || fail "no residual from the run without failure"
check_jacobi() { # WHAT SURVIVORS: same residual, all recovered, deaths reported
    got=$(sed -n "s/^residual \([^ ]*\) after 300 iterations on $2 ranks\$/\1/p" "$out")
    [ "$got" = "$ref" ] || fail "$1: residual '$got', want $ref"
    n=$(grep -c "recovered on $2 ranks" "$out")
    [ "$n" -eq "$2" ] || fail "$1: $n of $2 survivors recovered on $2 ranks"
    n=$(grep -c "killed by signal 9" "$out")
    [ "$n" -eq $((6 - $2)) ] || fail "$1: $n deaths reported, want $((6 - $2))"
}
for kill in "shm,self 2@45" "shm,self 0@40" "tcp 5@299"; do
    set -- $kill
    run_jacobi "$1" --kill "$2"
    check_jacobi "kill $2 over $1" 5
done
for t in shm,self tcp; do
    run_jacobi $t --kill 1@70 --kill 4@150
    check_jacobi "kills 1@70 and 4@150 over $t" 4
done
echo "resilient_jacobi: the residual survived each kill: $ref"
