#!/bin/sh
# Runs before the MPI tests: records the hcmpi-* files already in /dev/shm
# so shm_clean.sh can tell what the suite left behind.
list="${top_builddir:-.}/tests/mpi/shm_snapshot.list"
mkdir -p "$(dirname "$list")"
ls /dev/shm 2>/dev/null | grep '^hcmpi-' | sort >"$list"
echo "$(wc -l <"$list") hcmpi-* files in /dev/shm before the suite"
