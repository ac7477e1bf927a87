#!/bin/sh
# Jobs that fail (a rank killed before init and mid-transfer, MPI_Abort,
# the launcher itself SIGKILLed) leave nothing behind: no new file in
# /dev/shm and no process of the job.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "checks hcmpirun's clean-up"
prog=$(mpi_prog_path leak_victim)
[ -x "$prog" ] || skip "$prog not built"
mpi_launcher_cmd
[ -d /dev/shm ] || skip "no /dev/shm"
tok="leaktok-$$"
before=$(mktemp)
out=$(mktemp)
trap 'rm -f "$before" "$out"' EXIT
ls /dev/shm | sort >"$before"

# Processes of this test still alive (found by the token argument).
survivors() {
    ps -eo pid=,args= | grep -- "$tok" | grep -v grep
}

check_clean() { # WHAT
    i=0
    while [ -n "$(survivors)" ] && [ $i -lt 50 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ -z "$(survivors)" ] || { survivors; fail "$1: processes survived"; }
    new=$(ls /dev/shm | sort | comm -13 "$before" -)
    for f in $new; do
        # Another job on this machine may be using it.
        grep -qs "/dev/shm/$f" /proc/[0-9]*/maps && continue
        fail "$1: /dev/shm/$f left behind"
    done
    echo "$1: clean"
}

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
"$HCMPIRUN" -n 3 "$prog" hang "$tok" >"$out" 2>&1 &
lpid=$!
i=0
while [ "$(grep -c ready "$out")" -lt 3 ] && [ $i -lt 300 ]; do
    sleep 0.1
    i=$((i + 1))
done
[ "$(grep -c ready "$out")" -eq 3 ] || { kill -9 $lpid; fail "job never got ready"; }
kill -9 $lpid
wait $lpid 2>/dev/null
check_clean "hcmpirun killed with SIGKILL"
echo "no_leaks: all cases clean"
