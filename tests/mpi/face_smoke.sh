#!/bin/sh
# Runs tests/mpi/face_smoke.c on 2, 3 and 4 ranks; see that file for what it
# asserts.  (It includes no mpitest.h, so validate-mpich.sh does not build
# it and the scenario skips there.)
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 2 3 4; do
    run_mpi_ok $n face_smoke
done
