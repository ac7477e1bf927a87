#!/bin/sh
# The tests/mpi point-to-point and collective scenario scripts with every
# peer over verbs (HCMPI_TRANSPORTS=verbs), against tests/fake-verbs (a
# TEST DOUBLE of libibverbs.so.1, see lib.sh), under hcmpirun, which passes
# the environment to the ranks.  pingpong_sizes, collectives_basic and
# many_outstanding run in verbs_local.sh already.
set -u
. "${top_srcdir:-.}/tests/verbs/lib.sh"
: "${top_srcdir:=.}"
MPI_TEST_LAUNCHER=hcmpirun
: "${MPI_TEST_TIMEOUT:=120}"
export top_builddir top_srcdir MPI_TEST_LAUNCHER MPI_TEST_TIMEOUT

scenarios="wildcard_order immediate probe ssend_sync truncation self_msgs comm_split_dup
coll_full coll_nbc pending_frees coll_persistent partitioned mpit_counts
rma_ops rma_atomic rma_dynamic rma_direct rma_atomic_ops"
status=0
for s in $scenarios; do
  start=$(date +%s)
  sh "$top_srcdir/tests/mpi/$s.sh" >"$out" 2>&1
  rc=$?
  echo "== $s over verbs: status $rc, $(($(date +%s) - start)) s"
  case $rc in
  0 | 77) ;;
  *)
    cat "$out"
    status=1
    ;;
  esac
done
exit $status
