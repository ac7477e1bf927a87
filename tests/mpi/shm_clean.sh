#!/bin/sh
# Runs after every other test: no hcmpi-* file may remain in /dev/shm that
# was not there before the suite (shm_snapshot.list), unless a live process
# still has it open or mapped (another job running on this machine).
list="${top_builddir:-.}/tests/mpi/shm_snapshot.list"
[ -d /dev/shm ] || { echo "SKIP: no /dev/shm"; exit 77; }
[ -f "$list" ] || : >"$list"
leaked=0
# Give launchers that are just exiting a moment to unlink.
for try in 1 2 3; do
    leaked=0
    for f in $(ls /dev/shm 2>/dev/null | grep '^hcmpi-'); do
        grep -qx "$f" "$list" && continue
        if grep -qs "/dev/shm/$f" /proc/[0-9]*/maps 2>/dev/null ||
            ls -l /proc/[0-9]*/fd 2>/dev/null | grep -q "/dev/shm/$f"; then
            continue
        fi
        [ $try -eq 3 ] && echo "leaked: /dev/shm/$f" >&2
        leaked=$((leaked + 1))
    done
    [ $leaked -eq 0 ] && break
    sleep 1
done
[ $leaked -eq 0 ] || { echo "FAIL: $leaked hcmpi-* file(s) left in /dev/shm" >&2; exit 1; }
echo "shm_clean: no hcmpi-* file left in /dev/shm"
