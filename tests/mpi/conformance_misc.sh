#!/bin/sh
# tests/mpi/conformance_misc.c: MPI_Alloc_mem/MPI_Free_mem, MPI_Group_incl
# of zero ranks, communicator info keys that are ignored.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
# The impossible MPI_Alloc_mem must fail, not abort a sanitizer build.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1"
export ASAN_OPTIONS
run_mpi_ok 1 conformance_misc
run_mpi_ok 2 conformance_misc
