#!/bin/sh
# coll_stream.c: Ibcast and Bcast_init, and every form of Gather(v) and
# Scatter(v), of a large strided datatype move it in packed fragments, no
# packed copy of the whole buffer (the rendezvous counters say so), checked
# element by element on 1, 2, 3 and 4 ranks, over tcp, and with the gather
# tree (which packs) on 3 ranks (data only).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
mode=
if [ "$MPI_TEST_LAUNCHER" != hcmpirun ] || [ -n "${HCMPI_TRANSPORTS:-}" ]; then
    mode=plain
fi
for n in 1 2 3 4; do
    run_mpi_ok $n coll_stream $mode
done
HCMPI_TRANSPORTS=tcp run_mpi_ok 3 coll_stream plain
HCMPI_COLL_GATHER_LINEAR_MAX=2 run_mpi_ok 3 coll_stream plain
