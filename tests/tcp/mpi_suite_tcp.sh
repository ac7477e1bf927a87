#!/bin/sh
# The MPI point-to-point and collective scenario scripts of tests/mpi run
# with every peer reached over tcp (HCMPI_TRANSPORTS=tcp: shm is not
# initialised), on this node under hcmpirun.  run_mpi passes the
# environment through hcmpirun to the ranks.  The first scenario is also
# run once at HCMPI_LOG=debug to check that the peers really use tcp.
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
export top_builddir top_srcdir
[ -x "$top_builddir/tools/hcmpirun" ] || exit 77
HCMPI_TRANSPORTS=tcp
MPI_TEST_LAUNCHER=hcmpirun
: "${MPI_TEST_TIMEOUT:=120}"
export HCMPI_TRANSPORTS MPI_TEST_LAUNCHER MPI_TEST_TIMEOUT

scenarios="pingpong_sizes wildcard_order many_outstanding probe ssend_sync
truncation self_msgs comm_split_dup collectives_basic coll_full coll_nbc"

prog="$top_builddir/tests/mpi/pingpong_sizes"
[ -x "$prog" ] || exit 77
log=$(HCMPI_LOG=debug "$top_builddir/tools/hcmpirun" -n 2 --timeout 60 \
  "$prog" 2>&1) || { echo "$log"; echo "FAIL: pingpong_sizes at debug"; exit 1; }
for pair in "0: peer 1" "1: peer 0"; do
  echo "$log" | grep -q "rank $pair via tcp" ||
    { echo "$log" | grep 'via'; echo "FAIL: rank $pair not via tcp"; exit 1; }
done

status=0
for s in $scenarios; do
  echo "== $s over tcp"
  start=$(date +%s)
  sh "$top_srcdir/tests/mpi/$s.sh"
  rc=$?
  echo "== $s: status $rc, $(($(date +%s) - start)) s"
  case $rc in
  0 | 77) ;;
  *) status=1 ;;
  esac
done
# Small packets: most sizes through rendezvous and CTS/DATA streams of many
# fragments, send queues that fill.
for s in pingpong_sizes many_outstanding truncation; do
  echo "== $s over tcp, small packets and queues"
  HCMPI_EAGER_LIMIT=64 HCMPI_TCP_MAX_PACKET=4k HCMPI_TCP_SENDQ=64k \
    HCMPI_TCP_SOCKBUF=64k sh "$top_srcdir/tests/mpi/$s.sh" || status=1
done
exit $status
