#!/bin/sh
# tests/mpi/topo_cart.c and topo_graph.c: Cartesian grids (2-D and 3-D
# periodic halo exchanges checked cell by cell, coords/rank round trips,
# Cart_sub, Dims_create), graphs and distributed graphs (neighbour lists,
# weights, both creation forms), Topo_test, topologies surviving
# Comm_dup, and the error classes of bad input, on 1 to 8 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 4 6 8; do
    run_mpi_ok $n topo_cart
done
for n in 1 2 3 5 8; do
    run_mpi_ok $n topo_graph
done
