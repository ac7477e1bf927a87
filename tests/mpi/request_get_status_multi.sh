#!/bin/sh
# tests/mpi/request_get_status_multi.c on 2 ranks: MPI_Request_get_status_
# all / _any / _some report complete requests without freeing them.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 request_get_status_multi
