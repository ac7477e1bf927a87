#!/bin/sh
# LOG_COMPILER of every test: bounds one test's wall time, so that a hang
# costs the suite HCMPI_TEST_BOUND seconds (default 900) rather than the
# whole CI budget, and ends its log with "duration: N s", which .ci/run
# ranks to show where the suite's time goes.  A test killed at the bound
# fails (timeout's 124, or 137 after the 10 s grace); just before the bound
# its log gets the process tree with each process's wait channel, so that
# a hang seen only in CI can be told apart afterwards.
: "${HCMPI_TEST_BOUND:=900}"
start=$(date +%s)
timeout -k 10 "$HCMPI_TEST_BOUND" "$@" <&0 &
test_pid=$!
watch_at=$((HCMPI_TEST_BOUND > 5 ? HCMPI_TEST_BOUND - 3 : HCMPI_TEST_BOUND))
(
    trap 'kill $nap 2>/dev/null; exit 0' TERM
    sleep "$watch_at" &
    nap=$!
    wait $nap
    echo "bounded.sh: $1 still running after $watch_at s; its processes (pid ppid pgid stat wchan seconds args):"
    ps -e -o pid=,ppid=,pgid=,stat=,wchan:22=,etimes=,args= 2>/dev/null |
        awk -v top=$$ '{ ppid[$1] = $2; line[$1] = substr($0, 1, 200) }
            END { for (p in line) { q = p
                    while (q != "" && q != top && q > 1) q = ppid[q]
                    if (q == top) print line[p] } }' | sort -n | head -n 80
) &
watch_pid=$!
wait $test_pid
rc=$?
kill $watch_pid 2>/dev/null
wait $watch_pid 2>/dev/null
[ $rc -eq 124 ] || [ $rc -eq 137 ] && echo "bounded.sh: $1 killed after the ${HCMPI_TEST_BOUND} s bound"
echo "duration: $(($(date +%s) - start)) s"
exit $rc
