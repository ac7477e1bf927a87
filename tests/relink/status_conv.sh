#!/bin/sh
# status_conv.c (MPI_Status_c2f/f2c and the F08 forms) built against
# hcmpi's mpi.h, and the same source built with mpicc.mpich (the c2f/f2c
# part: Debian's libmpich.so.12 exports those two) run under
# hcmpirun --relink: both report no failures.
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
run_check hcmpi-built "status_conv: 0 failures" \
    timeout 120 "$HCMPIRUN" -n 1 --timeout 100 "$top_builddir/tests/relink/status_conv"
for so in "$ABI_DIR/libmpi.so.12" "$ABI_DIR/libmpich.so.12"; do
    for s in MPI_Status_c2f MPI_Status_f2c PMPI_Status_c2f PMPI_Status_f2c; do
        nm -D --defined-only "$so" | awk '{print $3}' | grep -qx "$s" ||
            fail "$so does not export $s"
    done
done
mpich_cc "$T/sc" "$top_srcdir/tests/relink/status_conv.c"
run_check MPICH-built "status_conv: 0 failures" relink_run 1 "$T/sc"
