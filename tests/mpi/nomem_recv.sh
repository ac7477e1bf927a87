#!/bin/sh
# nomem_recv.c: messages that reach a rank whose allocations fail are
# delivered or fail their receive with MPI_ERR_NO_MEM, never lost to a
# receive that waits for ever; once with only the payloads refused, once
# with every allocation refused.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
# MPICH 4.0 does not give this guarantee: it hangs (payloads refused) or
# aborts (everything refused), so validate-mpich.sh cannot judge the test.
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "hcmpi's guarantee; MPICH loses such messages"
dir=$(mktemp -d)
out=$(mktemp)
trap 'rm -rf "$dir" "$out"' EXIT
MPI_TEST_TIMEOUT=60
for mode in payload all; do
    rm -f "$dir/armed"
    run_mpi 2 nomem_recv "$mode" "$dir" >"$out" 2>&1
    rc=$?
    cat "$out"
    [ $rc -eq 77 ] && exit 77
    [ $rc -ne 124 ] || fail "$mode: a receive hung"
    [ $rc -eq 0 ] || fail "$mode: job exited $rc"
    [ "$(grep -c "PASS $mode" "$out")" -eq 2 ] || fail "$mode: not both ranks passed"
done
echo "nomem_recv: no message lost"
