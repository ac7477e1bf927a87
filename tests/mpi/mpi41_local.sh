#!/bin/sh
# tests/mpi/mpi41_local.c: MPI-4.1's local calls (status fields, error
# class removal, hardware info, value-index pair types, names of null
# handles) and MPI-4.0's MPI_Status_set_elements_c, on 1 and 2 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2; do
    run_mpi_ok $n mpi41_local
done
