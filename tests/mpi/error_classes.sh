#!/bin/sh
# tests/mpi/error_classes.c: MPI_Add_error_class/_code/_string, the classes
# and strings of what they add, MPI_LASTUSEDCODE, MPIX_Delete_error_*.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 1 error_classes
run_mpi_ok 2 error_classes
