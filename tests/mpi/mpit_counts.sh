#!/bin/sh
# Runs tests/mpi/mpit_counts.c on 2 ranks: MPI_T performance variables move
# by exactly the messages and bytes sent, the eager-limit control variable
# written at run time sends the next messages by rendezvous, and an
# unexpected message raises the unexpected_message event.  Over tcp through
# tests/tcp/mpi_suite_tcp.sh (HCMPI_TRANSPORTS=tcp) and over verbs through
# tests/verbs/mpi_suite_verbs.sh.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 mpit_counts
