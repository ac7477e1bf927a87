#!/bin/sh
# The job secret: gone from each rank's environment after MPI_Init (and
# from its children's), while tcp still authenticates with it
# (job_secret.c); hcmpi_info shows it masked, never its value.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "the secret is hcmpirun's"
secret=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
HCMPI_JOB_SECRET=$secret HCMPI_TRANSPORTS=tcp run_mpi_ok 2 job_secret "$secret"

info="$top_builddir/tools/hcmpi_info"
[ -x "$info" ] || fail "$info not built"
out=$(HCMPI_JOB_SECRET=$secret "$info" --env) || fail "hcmpi_info --env failed"
echo "$out" | grep HCMPI_JOB_SECRET
echo "$out" | grep -q "$secret" && fail "hcmpi_info printed the secret"
echo "$out" | grep -q "^ *HCMPI_JOB_SECRET .*set (hidden)" ||
    fail "hcmpi_info does not say the secret is set"
out=$("$info" --env | grep HCMPI_JOB_SECRET)
echo "$out" | grep -q "hidden" && fail "hcmpi_info says hidden with no secret set"
echo "job_secret: PASS"
