# Common code of the scripts that check a failing job leaves nothing behind
# (sourced after lib.sh, not run).  leak_setup picks a token that the job's
# processes carry in their arguments and lists /dev/shm; start_hang starts a
# job that waits once initialised, check_clean then wants no process with
# the token and no new file in /dev/shm.
#
# leak_setup               skips unless hcmpirun and leak_victim can run;
#                          sets prog (leak_victim), tok, out (the job's
#                          output file), lpid
# survivors                the processes still alive that carry $tok
# start_hang WHAT ARGS...  runs "$HCMPIRUN" -n 3 ARGS in the background
#                          ($lpid) until its 3 ranks print "ready"
# check_clean WHAT         fails unless nothing of the job is left

leak_setup() {
    [ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "checks hcmpirun's clean-up"
    prog=$(mpi_prog_path leak_victim)
    [ -x "$prog" ] || skip "$prog not built"
    mpi_launcher_cmd
    [ -d /dev/shm ] || skip "no /dev/shm"
    # The token ends in a fixed word so that no other job's token (another
    # run side by side, e.g. mpich_suite's) can contain this one.
    tok="leaktok-$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')-end"
    before=$(mktemp)
    out=$(mktemp)
    lpid=
    trap '[ -z "$lpid" ] || kill -9 $lpid 2>/dev/null; rm -f "$before" "$out"' EXIT
    ls /dev/shm | sort >"$before"
}

survivors() {
    ps -ww -eo pid=,args= | grep -F -- "$tok" | grep -v grep
}

start_hang() { # WHAT ARGS...
    what=$1
    shift
    # Emptied here, not by the redirection below: that runs in the
    # background child, so the loop could still count the last job's
    # "ready" lines and go on before this job even started.
    : >"$out"
    "$HCMPIRUN" -n 3 "$@" >>"$out" 2>&1 &
    lpid=$!
    i=0
    until [ "$(grep -c ready "$out")" -eq 3 ] || [ $i -ge 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ "$(grep -c ready "$out")" -eq 3 ] || {
        kill -9 $lpid
        cat "$out"
        fail "$what: job never got ready"
    }
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
        # A directory is some other test's (the CANN double's key folders):
        # hcmpi makes none.
        [ -d "/dev/shm/$f" ] && continue
        unclaimed "/dev/shm/$f" || continue
        fail "$1: /dev/shm/$f left behind"
    done
    echo "$1: clean"
}

# Whether file still exists with no process mapping it after a grace of up
# to 3 s.  Another job on this machine (make check runs tests side by side)
# may be using it, and a named segment exists unmapped for a moment between
# its creator's shm_open and mmap: such a file is mapped or unlinked soon
# (CI once saw one there); a leaked one stays unmapped.
unclaimed() { # FILE
    j=0
    while [ $j -lt 30 ]; do
        [ -e "$1" ] || return 1
        grep -qs "$1" /proc/[0-9]*/maps && return 1
        sleep 0.1
        j=$((j + 1))
    done
    [ -e "$1" ]
}
