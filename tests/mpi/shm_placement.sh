#!/bin/sh
# Runs tests/mpi/shm_placement.c on 2 ranks under the amd profile, the pair
# never judged contended: placement forced far (rendezvous from
# HCMPI_SHM_FAR_READ_MIN read with CMA: the profile's 1 MiB, and 16 KiB,
# i.e. every one), forced far with the reads off or CMA off (all streamed
# through cells filled with non-temporal stores), forced near (all
# streamed through the cells), and the
# start-up ping-pong's own verdict, which each rank logs and which moves
# the same bytes either way.  At debug level, a forced far run that reads
# 17 rendezvous of four size classes logs one line per class, not 17.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
export HCMPI_CPU_PROFILE=amd HCMPI_SHM_STREAM_RUNQ_MAX=100
unset HCMPI_SHM_CMA_MIN HCMPI_SHM_FAR_READ_MIN HCMPI_SHM_LONE_READ_MIN HCMPI_EAGER_LIMIT
HCMPI_SHM_PLACEMENT=far run_mpi_ok 2 shm_placement far 1048576
HCMPI_SHM_PLACEMENT=far HCMPI_SHM_FAR_READ_MIN=16k run_mpi_ok 2 shm_placement far 16384
HCMPI_SHM_PLACEMENT=near run_mpi_ok 2 shm_placement near 0
# Far with the reads off: every rendezvous streams through cells the sender
# fills past its cache (HCMPI_SHM_FAR_CELL_STREAM_MIN, here every pooled
# send's); with CMA off the rendezvous' DATA packets take the same cells.
HCMPI_SHM_PLACEMENT=far HCMPI_SHM_FAR_READ_MIN=4m HCMPI_SHM_FAR_CELL_STREAM_MIN=1 \
    run_mpi_ok 2 shm_placement far 4194304
HCMPI_SHM_PLACEMENT=far HCMPI_SHM_CMA=0 HCMPI_SHM_FAR_CELL_STREAM_MIN=1 \
    run_mpi_ok 2 shm_placement near 0
# Only where the shm transport runs (tests/tcp/mpi_suite_tcp.sh runs this
# script with every peer over tcp).
case ",${HCMPI_TRANSPORTS:-shm}," in
*,shm,* | *,all,*) ;;
*) echo "placement probe: no shm transport, not asked"; exit 0 ;;
esac
log=$(mktemp)
trap 'rm -f "$log"' EXIT
HCMPI_SHM_PLACEMENT=auto HCMPI_LOG=debug run_mpi 2 shm_placement auto >"$log" 2>&1 ||
    { cat "$log"; fail "placement probe: job failed"; }
verdicts=$(grep -c 'shm: placement: \(near\|far\)' "$log")
[ "$verdicts" = 2 ] || { cat "$log"; fail "placement probe: $verdicts verdicts logged, want 2"; }
grep 'shm: placement:\|^auto:' "$log"
# The single-copy gets' debug lines: the first of each size class only
# (16385 B, 64 KiB, 1 MiB and the window's 256 KiB), while MPI_T counts all.
HCMPI_SHM_PLACEMENT=far HCMPI_SHM_FAR_READ_MIN=16k HCMPI_LOG=debug \
    run_mpi 2 shm_placement far 16384 >"$log" 2>&1 ||
    { cat "$log"; fail "debug log of gets: job failed"; }
grep -q '^far: 17 rendezvous, 17 read with CMA' "$log" ||
    { cat "$log"; fail "debug log of gets: not 17 of 17 read"; }
lines=$(grep -c 'single-copy get of' "$log")
[ "$lines" = 4 ] || { cat "$log"; fail "debug log of gets: $lines lines, want 4 (one per size class)"; }
for size in 16385 65536 262144 1048576; do
    grep -q "single-copy get of $size B from rank 0" "$log" ||
        { cat "$log"; fail "debug log of gets: no line for $size B"; }
done
