#!/bin/sh
# tests/mpi/large_count.c: a 2^31+8-byte message (MPI_Send_c/MPI_Recv_c)
# and a 2^31+8-byte MPI_Bcast_c between two ranks, every byte checked and
# the count read back with MPI_Get_count_c.  Each run holds two such
# buffers (about 4 GiB): it skips when the machine has less than 6 GiB
# available.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo 2>/dev/null)
[ -n "$avail_kb" ] || skip "no MemAvailable in /proc/meminfo"
[ "$avail_kb" -ge $((6 * 1024 * 1024)) ] ||
    skip "$((avail_kb / 1024)) MiB available, 6 GiB needed"
MPI_TEST_TIMEOUT=${MPI_TEST_TIMEOUT_LARGE:-600}
for scenario in p2p bcast; do
    run_mpi_ok 2 large_count $scenario
done
