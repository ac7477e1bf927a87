#!/bin/sh
# coll_shm_nbc.c: the I-forms of Barrier, Bcast, Reduce and Allreduce run
# the shared-memory algorithms as schedule steps, several at once, behind
# and beside blocking and persistent collectives, checked against a serial
# reference and against the transport message counters; on 1, 2, 3 and 5
# ranks, with 4 KiB slots (long pipelines), with every wait sleeping
# (HCMPI_SPIN=0: the segment's bell must wake a sleeping I-form), and with
# the segments off (HCMPI_COLL_SHM=0: the same results by messages).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
if [ "$MPI_TEST_LAUNCHER" != hcmpirun ] || [ -n "${HCMPI_TRANSPORTS:-}" ]; then
    for n in 1 2 3 5; do
        run_mpi_ok $n coll_shm_nbc plain
    done
    exit 0
fi
for n in 1 2 3 5; do
    run_mpi_ok $n coll_shm_nbc
done
HCMPI_COLL_SHM_CHUNK=4096 run_mpi_ok 3 coll_shm_nbc
HCMPI_SPIN=0 run_mpi_ok 4 coll_shm_nbc
HCMPI_COLL_SHM=0 run_mpi_ok 3 coll_shm_nbc p2p
HCMPI_TRANSPORTS=tcp run_mpi_ok 3 coll_shm_nbc plain
prog=$(mpi_prog_path coll_shm_nbc)
mpi_launcher_cmd
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "+ hcmpirun --no-kill-on-failure -n 4 coll_shm_nbc kill"
timeout -k 5 90 "$HCMPIRUN" --no-kill-on-failure -n 4 --timeout 60 "$prog" kill >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -ne 124 ] || fail "kill: job hung until the timeout"
[ $rc -ne 0 ] || fail "kill: job exited 0 although rank 1 died"
grep -q "FAIL rank" "$out" && fail "kill: a check failed"
passed=$(grep -c "PASS kill" "$out")
[ "$passed" -eq 3 ] || fail "kill: $passed of 3 survivors passed"
echo "coll_shm_nbc: all cases passed"
