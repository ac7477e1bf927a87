#!/bin/sh
# Profiling interface: tests/pmpi/counter.c (MPI_Send, MPI_Recv, MPI_Isend,
# MPI_Wait, MPI_Allreduce, MPI_Comm_split over PMPI_) must count exactly
# the calls tests/pmpi/pmpi_app.c makes itself, on 4 ranks:
#   1. LD_PRELOAD on the hcmpi-built program;
#   2. the tool first in link order (pmpi_app_linked);
#   3. LD_PRELOAD on the program built with mpicc.mpich, under --relink.
# Calls hcmpi makes internally (collectives, Comm_dup, Sendrecv, Finalize)
# would make the counts larger.
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
TOOL=$top_builddir/tests/pmpi/.libs/libpmpicounter.so
APP=$top_builddir/tests/pmpi/pmpi_app
LINKED=$top_builddir/tests/pmpi/pmpi_app_linked
for f in "$TOOL" "$APP" "$LINKED"; do [ -e "$f" ] || fail "$f not built"; done
TOOL=$(cd "$(dirname "$TOOL")" && pwd -P)/libpmpicounter.so

# compare LOG N: each of the N ranks printed "called" and "counted" lines
# with the same numbers.
compare() {
    for r in $(seq 0 $(($2 - 1))); do
        called=$(grep "^called rank $r:" "$1" | cut -d: -f2)
        counted=$(grep "^counted rank $r:" "$1" | cut -d: -f2)
        [ -n "$called" ] || fail "rank $r printed no 'called' line"
        [ -n "$counted" ] || fail "rank $r: the tool reported nothing (not interposed?)"
        [ "$called" = "$counted" ] || fail "rank $r: called$called, counted$counted"
    done
}

run_case() { # name, then the launcher command
    name=$1
    shift
    echo "+ $*"
    timeout -k 10 150 "$@" >"$T/$name.log" 2>&1 || { cat "$T/$name.log"; fail "$name run failed"; }
    cat "$T/$name.log"
    compare "$T/$name.log" 4
    echo "ok: $name"
}

run_case preload "$HCMPIRUN" -n 4 --timeout 120 --env LD_PRELOAD="$TOOL" "$APP"
readelf -d "$LINKED" | awk '/NEEDED/ && /libpmpicounter/ { t = NR } /NEEDED/ && /libhcmpi/ { h = NR }
    END { exit !(t && h && t < h) }' || fail "pmpi_app_linked does not need the tool before libhcmpi"
run_case link_order "$HCMPIRUN" -n 4 --timeout 120 "$LINKED"
if command -v mpicc.mpich >/dev/null 2>&1; then
    mpich_cc "$T/pmpi_app" "$top_srcdir/tests/pmpi/pmpi_app.c"
    run_case relink_preload "$HCMPIRUN" --relink -n 4 --timeout 120 \
        --env LD_PRELOAD="$TOOL" "$T/pmpi_app"
else
    echo "no mpicc.mpich: part 3 not run"
fi
