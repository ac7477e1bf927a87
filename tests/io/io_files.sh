#!/bin/sh
# Runs tests/io/io_files.c on 1 and 3 ranks; see that file for what it
# asserts.  As root, the full-disk case runs on a 1 MiB tmpfs mounted here
# for the test; otherwise that one case is left out (said in the log).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
small=""
if [ "$(id -u)" = 0 ]; then
    small=$(mktemp -d "${TMPDIR:-/tmp}/hcmpi_io_small.XXXXXX")
    if mount -t tmpfs -o size=1m hcmpi_io_small "$small" 2>/dev/null; then
        trap 'umount "$small"; rmdir "$small"' EXIT
    else
        rmdir "$small"
        small=""
    fi
fi
[ -n "$small" ] || echo "io_files: no small tmpfs (needs root and mount): full-disk case left out"
IO_SMALL_FS=$small
[ -n "$small" ] && export IO_SMALL_FS
for n in 1 3; do
    run_mpi_ok $n tests/io/io_files
done
