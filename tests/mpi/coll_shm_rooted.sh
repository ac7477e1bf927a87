#!/bin/sh
# coll_shm_rooted.c: blocking Gather and Scatter of blocks up to 64 KiB in
# all and every Gatherv and Scatterv in the communicator's shared-memory
# segment, checked byte by byte, with no transport message for blocks up
# to 2 KiB (on a crowded node too: spans, medium buffers) nor for
# gathers' larger plain ones (read in place), on 1,
# 2, 3, 5 and 8 ranks; with every wait asleep; with the segments off and over tcp
# (the same results by messages).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
# The root's reads of gather blocks are the processor profile's (none on
# AMD family 26): pinned on, so that every machine runs them; one run
# below turns them off.
export HCMPI_COLL_SHM_ROOTED_READ_MIN=16k
if [ "$MPI_TEST_LAUNCHER" != hcmpirun ] || [ -n "${HCMPI_TRANSPORTS:-}" ]; then
    for n in 1 2 3 5; do
        run_mpi_ok $n coll_shm_rooted plain
    done
    exit 0
fi
for n in 1 2 3 5 8; do
    run_mpi_ok $n coll_shm_rooted
done
HCMPI_SPIN=0 run_mpi_ok 4 coll_shm_rooted
# Blocks of up to 2 KiB through the large buffers on 3, 5 and 8 ranks too
# (the segments count 64 CPUs: not crowded), asleep on 5.
for n in 3 8; do
    HCMPI_COLL_SHM_CPUS=64 run_mpi_ok $n coll_shm_rooted
done
HCMPI_COLL_SHM_CPUS=64 HCMPI_SPIN=0 run_mpi_ok 5 coll_shm_rooted
# A crowded node whatever this machine's CPUs (the segments count 2):
# fixed forms' blocks of up to 2 KiB in spans of small buffers, v-forms'
# in the medium ones; asleep on 5.
for n in 3 5 8; do
    HCMPI_COLL_SHM_CPUS=2 run_mpi_ok $n coll_shm_rooted
done
HCMPI_COLL_SHM_CPUS=2 HCMPI_SPIN=0 run_mpi_ok 5 coll_shm_rooted
# The ranks count CPUs differently (one of them 64): the segment's layout
# and paths follow rank 0's count on every rank, crowded or not.
cpus_wrap=$(mktemp)
for odd in 0 1; do
    printf '#!/bin/sh\n[ "$PMI_RANK" != %s ] || export HCMPI_COLL_SHM_CPUS=64\nexec "$@"\n' \
        $odd >"$cpus_wrap"
    chmod +x "$cpus_wrap"
    MPI_TEST_WRAP="$cpus_wrap" HCMPI_COLL_SHM_CPUS=2 run_mpi_ok 4 coll_shm_rooted
done
rm -f "$cpus_wrap"
# Reads refused (no CMA) on every rank, and on rank 1 alone (its reads of
# blocks fail, and those follow as messages between that pair).
HCMPI_SHM_CMA=0 run_mpi_ok 3 coll_shm_rooted noreads
HCMPI_COLL_SHM_ROOTED_READ_MIN=0 run_mpi_ok 2 coll_shm_rooted noreads
for n in 2 3 5; do
    run_mpi_ok_no_cma_on_rank1 $n coll_shm_rooted noreads
done
HCMPI_COLL_SHM=0 run_mpi_ok 3 coll_shm_rooted plain
HCMPI_TRANSPORTS=tcp run_mpi_ok 3 coll_shm_rooted plain
echo "coll_shm_rooted: all cases passed"
