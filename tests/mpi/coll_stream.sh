#!/bin/sh
# coll_stream.c: Ibcast and Bcast_init, and every form of Gather(v) and
# Scatter(v), of a large strided datatype move it in packed fragments, no
# packed copy of the whole buffer (the rendezvous counters say so), checked
# element by element on 1, 2 (both ways a large Bcast may go), 3 and 4
# ranks, over tcp, and with the gather tree (which packs) on 3 ranks (data
# only).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
mode=
if [ "$MPI_TEST_LAUNCHER" != hcmpirun ] || [ -n "${HCMPI_TRANSPORTS:-}" ]; then
    mode=plain
fi
# More ranks: a Bcast_init above the lanes takes a wide lane of the segment
# (HCMPI_COLL_SHM_WIDE_LANES), where its chunks are packed straight into
# the segment too; the counted runs leave it to messages, and one run
# checks the data through the wide lane.
for n in 1 3 4; do
    HCMPI_COLL_SHM_WIDE_LANES=0 run_mpi_ok $n coll_stream $mode
done
run_mpi_ok 3 coll_stream plain
# Two ranks: a Bcast up to HCMPI_COLL_SHM_PAIR_BCAST_MAX (64 KiB by
# default) takes the segment there (its chunks packed
# straight into it), so rank 1, whose only receives are from rank 0,
# would get no message for the counters to see; nor from
# HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN on, where an Ibcast or Bcast_init of
# such a type (which no rank reads from another's buffer) falls back to
# that pipeline.  The counted run leaves such Bcasts to messages, and the
# segment's paths run with the data checks.
HCMPI_COLL_SHM_PAIR_BCAST_MAX=32k HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN=0 \
    run_mpi_ok 2 coll_stream $mode
run_mpi_ok 2 coll_stream plain
HCMPI_TRANSPORTS=tcp run_mpi_ok 3 coll_stream plain
HCMPI_COLL_GATHER_LINEAR_MAX=2 run_mpi_ok 3 coll_stream plain
