#!/bin/sh
# Jobs that fail (a rank killed before init and mid-transfer, MPI_Abort,
# the launcher itself SIGKILLed) leave nothing behind: no new file in
# /dev/shm and no process of the job; with the default memfd segment, then
# with a named /dev/shm one (HCMPI_SHM_MEMFD=0, block at the end).
. "${top_srcdir:-.}/tests/mpi/lib.sh"
. "${top_srcdir:-.}/tests/mpi/leak_lib.sh"
leak_setup

run_case() { # WHAT N ARGS...
    what=$1
    n=$2
    shift 2
    timeout -k 5 60 "$HCMPIRUN" -n "$n" --timeout 40 "$prog" "$@" "$tok" >"$out" 2>&1
    rc=$?
    cat "$out"
    [ $rc -ne 0 ] || fail "$what: job exited 0"
    [ $rc -ne 124 ] || fail "$what: job hung until the timeout"
    check_clean "$what"
}

run_case "rank 0 killed before init" 3 before-init 0
run_case "rank 2 killed before init" 3 before-init 2
run_case "rank 0 killed mid-transfer" 4 mid 0
run_case "rank 3 killed mid-transfer" 4 mid 3
run_case "MPI_Abort by rank 1" 3 abort 1
grep -q "rank 1 aborted with exit code 3" "$out" || fail "abort not reported"

# kill -9 of the launcher: its ranks must go too (PR_SET_PDEATHSIG).
start_hang "hcmpirun killed with SIGKILL" "$prog" hang "$tok"
kill -9 $lpid
wait $lpid 2>/dev/null
lpid=
check_clean "hcmpirun killed with SIGKILL"

# ---- named segments (HCMPI_SHM_MEMFD=0) -----------------------------------
# The cases above use the default anonymous memfd, which cannot leave a file
# behind.  Here the segment is a named POSIX one: while a job runs, every
# rank maps the same /dev/shm/hcmpi-<16 hex digits>, mode 0600, already
# unlinked (every rank mapped it); kill -9 of a rank or of the launcher and
# the failing jobs above then leave no file and no process.
export HCMPI_SHM_MEMFD=0

# The ranks are the launcher's children.
named_rank_pids() {
    ps -o pid= --ppid "$lpid"
}

# Each rank maps the same deleted /dev/shm/hcmpi-* segments, mode 0600:
# the transport's, and MPI_COMM_WORLD's collective segment, which MPI_Init
# makes; no such file is left in /dev/shm.  Compared as sets: the order of
# the mappings in /proc/PID/maps follows each process's own addresses.
named_check_mapping() {
    segs=""
    nranks=0
    for pid in $(named_rank_pids); do
        lines=$(grep ' /dev/shm/hcmpi-' "/proc/$pid/maps")
        [ -n "$lines" ] || fail "named: rank pid $pid maps no /dev/shm/hcmpi-* segment"
        mine=$(echo "$lines" | awk '{ print $6 }' | sort -u | tr '\n' ' ')
        echo "$lines" | while read -r line; do
            name=$(echo "$line" | awk '{ print $6 }')
            echo "$name" | grep -qx '/dev/shm/hcmpi-\([0-9a-f]\{1,8\}-\)\{0,1\}[0-9a-f]\{16\}' ||
                fail "named: segment name $name is not hcmpi-, the job's tag and 64 random bits"
            echo "$line" | grep -q ' (deleted)$' || {
                echo "rank pid $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline")"
                echo "its mapping: $line"
                ls -l "$name"
                cat "$out"
                fail "named: $name still linked after init"
            }
            mode=$(stat -L -c %a "/proc/$pid/map_files/$(echo "$line" | awk '{ print $1 }')")
            [ "$mode" = 600 ] || fail "named: $name has mode $mode, want 600"
        done || exit 1
        [ -z "$segs" ] || [ "$segs" = "$mine" ] || fail "named: ranks map $segs and $mine"
        segs=$mine
        nranks=$((nranks + 1))
    done
    [ $nranks -eq 3 ] || fail "named: found $nranks rank processes, want 3"
    for seg in $segs; do
        [ ! -e "$seg" ] || fail "named: $seg exists in /dev/shm"
    done
    echo "named: 3 ranks map $segs(mode 600, unlinked)"
}

start_hang named "$prog" hang "$tok"
named_check_mapping
kill -9 "$(named_rank_pids | head -n 1)"
wait $lpid
rc=$?
lpid=
[ $rc -ne 0 ] || fail "named: job with a rank killed by SIGKILL exited 0"
check_clean "named segment, a rank killed with SIGKILL"

start_hang named "$prog" hang "$tok"
named_check_mapping
kill -9 $lpid
wait $lpid 2>/dev/null
lpid=
check_clean "named segment, hcmpirun killed with SIGKILL"

run_case "named segment, rank 2 killed before init" 3 before-init 2
run_case "named segment, rank 0 killed mid-transfer" 4 mid 0
run_case "named segment, rank 3 killed mid-transfer" 4 mid 3
run_case "named segment, MPI_Abort by rank 1" 3 abort 1
unset HCMPI_SHM_MEMFD
echo "no_leaks: all cases clean"
