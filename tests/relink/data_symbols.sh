#!/bin/sh
# data_symbols.c built with mpicc.mpich (copy relocations for all eleven
# data objects of MPICH's mpi.h) runs on hcmpi under hcmpirun --relink;
# the same source built against hcmpi's own mpi.h runs too.
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
native=$top_builddir/tests/relink/data_symbols
[ -x "$native" ] || fail "$native not built"
run_check hcmpi-built "data_symbols: 2 ranks, 0 failures" \
    timeout 120 "$HCMPIRUN" -n 2 --timeout 100 "$native"

mpich_cc "$T/ds" "$top_srcdir/tests/relink/data_symbols.c"
if [ "$(uname -m)" = x86_64 ]; then
    for s in MPI_F_STATUS_IGNORE MPI_F_STATUSES_IGNORE MPI_F08_STATUS_IGNORE \
        MPI_F08_STATUSES_IGNORE MPI_UNWEIGHTED MPI_WEIGHTS_EMPTY \
        MPI_T_PVAR_ALL_HANDLES MPIR_F08_MPI_STATUS_IGNORE_OBJ \
        MPIR_F08_MPI_STATUSES_IGNORE_OBJ MPIR_F08_MPI_IN_PLACE MPIR_F08_MPI_BOTTOM; do
        readelf -rW "$T/ds" | grep -q "R_X86_64_COPY .* $s + 0" ||
            fail "the MPICH-built program has no copy relocation for $s"
    done
fi
run_check MPICH-built "data_symbols: 2 ranks, 0 failures" relink_run 2 "$T/ds"
