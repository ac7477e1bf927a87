#!/bin/sh
# Runs after every other test: no hcmpi-* file may remain in /dev/shm that
# was not there before the suite (shm_snapshot.list), unless a live process
# still has it open or mapped (another job running on this machine).
list="${top_builddir:-.}/tests/mpi/shm_snapshot.list"
[ -d /dev/shm ] || { echo "SKIP: no /dev/shm"; exit 77; }
[ -f "$list" ] || : >"$list"

# The suite's jobs use the default anonymous memfd segment, which has no
# name to leave behind; so that this check can catch a leak, two jobs here
# use a named /dev/shm segment (HCMPI_SHM_MEMFD=0): one that ends well and
# one whose rank 3 is SIGKILLed mid-transfer.  The debug log gives the name
# each created; neither may exist afterwards.
run="${top_builddir:-.}/tools/hcmpirun"
named_job() { # WHAT N PROG ARGS...
    what=$1
    shift
    [ -x "$run" ] && [ -x "$2" ] || { echo "named $what: not built, skipped"; return; }
    log=$(HCMPI_SHM_MEMFD=0 HCMPI_LOG=debug timeout -k 5 60 "$run" -n "$@" 2>&1)
    # The transport's segment, and one per communicator that ran a
    # shared-memory collective.
    segs=$(echo "$log" | sed -n 's|^hcmpi\[[0-9]*\] debug shm: segment \(/hcmpi-[0-9a-f-]*\):.*|\1|p')
    [ -n "$segs" ] || { echo "$log"; echo "FAIL: named $what: no named segment was created" >&2; exit 1; }
    for seg in $segs; do
        [ ! -e "/dev/shm$seg" ] || { echo "FAIL: named $what: /dev/shm$seg left" >&2; exit 1; }
        echo "named $what: /dev/shm$seg created and gone"
    done
}
bin="${top_builddir:-.}/tests/mpi"
named_job "job" 4 "$bin/collectives_basic"
named_job "job with a rank SIGKILLed" 4 "$bin/leak_victim" mid 3
# Rank 0 killed as soon as it made its named segment, before any rank could
# unlink it: hcmpirun sweeps its job's tag (HCMPI_SHM_TAG) when the job ends.
if [ -x "$run" ] && [ -x "$bin/collectives_basic" ]; then
    log=$(HCMPI_SHM_MEMFD=0 HCMPI_TEST_SHMSEG_DIE=1 HCMPI_LOG=debug \
        timeout -k 5 60 "$run" -n 2 "$bin/collectives_basic" 2>&1) &&
        { echo "$log"; echo "FAIL: named, creator killed: the job did not fail" >&2; exit 1; }
    seg=$(echo "$log" | sed -n 's|^hcmpi\[[0-9]*\] debug shm: dying on purpose after making \(/hcmpi-[0-9a-f]*-[0-9a-f]*\)$|\1|p')
    [ -n "$seg" ] || { echo "$log"; echo "FAIL: named, creator killed: no tagged segment was made" >&2; exit 1; }
    [ ! -e "/dev/shm$seg" ] || { echo "FAIL: named, creator killed: /dev/shm$seg left" >&2; exit 1; }
    echo "named, creator killed before unlinking: /dev/shm$seg created and swept"
fi
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
