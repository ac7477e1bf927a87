#!/bin/sh
# split_pset.c: MPI_COMM_TYPE_RESOURCE_GUIDED with mpi_pset_name on 1, 2, 3
# and 4 ranks of one node, then on 4 ranks made into two nodes of two by
# HCMPI_NODE_ID (hcmpi://node follows the node).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 4; do
    run_mpi_ok $n split_pset one-node
done
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || exit 0
node_wrap=$(mktemp)
trap 'rm -f "$node_wrap"' EXIT
printf '#!/bin/sh\nHCMPI_NODE_ID=split-pset-node-$((PMI_RANK / 2)) exec "$@"\n' >"$node_wrap"
chmod +x "$node_wrap"
MPI_TEST_WRAP=$node_wrap
run_mpi_ok 4 split_pset two-nodes
