#!/bin/sh
# LOG_COMPILER of every test: bounds one test's wall time, so that a hang
# costs the suite HCMPI_TEST_BOUND seconds (default 900) rather than the
# whole CI budget, and ends its log with "duration: N s", which .ci/run
# ranks to show where the suite's time goes.  A test killed at the bound
# fails (timeout's 124, or 137 after the 10 s grace).
: "${HCMPI_TEST_BOUND:=900}"
start=$(date +%s)
timeout -k 10 "$HCMPI_TEST_BOUND" "$@"
rc=$?
[ $rc -eq 124 ] || [ $rc -eq 137 ] && echo "bounded.sh: $1 killed after the ${HCMPI_TEST_BOUND} s bound"
echo "duration: $(($(date +%s) - start)) s"
exit $rc
