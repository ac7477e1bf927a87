#!/bin/sh
# The MPI point-to-point and collective scenario scripts of tests/mpi run
# with every peer reached over tcp (HCMPI_TRANSPORTS=tcp: shm is not
# initialised), on this node under hcmpirun.  run_mpi passes the
# environment through hcmpirun to the ranks.  The first scenario is also
# run once at HCMPI_LOG=debug to check that the peers really use tcp and
# read rendezvous payloads straight into the receive buffers.
# Every program a scenario runs must have been built (a missing one
# fails); a scenario that still skips (77) is counted and named, and makes
# the whole script report SKIP (77) unless another failed.
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
export top_builddir top_srcdir
[ -x "$top_builddir/tools/hcmpirun" ] || exit 77
HCMPI_TRANSPORTS=tcp
MPI_TEST_LAUNCHER=hcmpirun
: "${MPI_TEST_TIMEOUT:=120}"
export HCMPI_TRANSPORTS MPI_TEST_LAUNCHER MPI_TEST_TIMEOUT

scenarios="pingpong_sizes wildcard_order immediate many_outstanding probe ssend_sync
truncation self_msgs comm_split_dup collectives_basic coll_full coll_nbc coll_persistent coll_neighbor
cancel persistent bsend proc_null thread_multiple oversubscribed isendrecv partitioned
coll_noncontig groups_comms killed_rank hang_timeout pending_frees intercomm_ops
mpit_counts large_count sessions comm_disconnect rma_ops rma_atomic rma_dynamic
request_threads rma_direct rma_acc_large rma_atomic_elem rma_atomic_ops dyn_ports dyn_spawn"

# The programs of a scenario: its own name unless listed here.
scenario_programs() {
  case $1 in
  groups_comms) echo groups comm_create intercomm attributes info_objects context_ids ;;
  hang_timeout) echo deadlock ;;
  intercomm_ops) echo intercomm_coll intercomm_comm ;;
  sessions) echo sessions_models sessions_psets comm_from_groups sessions_threads ;;
  *) echo "$1" ;;
  esac
}
for s in $scenarios; do
  [ -f "$top_srcdir/tests/mpi/$s.sh" ] ||
    { echo "FAIL: no scenario tests/mpi/$s.sh"; exit 1; }
  for p in $(scenario_programs "$s"); do
    [ -x "$top_builddir/tests/mpi/$p" ] ||
      { echo "FAIL: $s needs tests/mpi/$p, not built"; exit 1; }
  done
done

prog="$top_builddir/tests/mpi/pingpong_sizes"
[ -x "$prog" ] || exit 77
log=$(HCMPI_LOG=debug "$top_builddir/tools/hcmpirun" -n 2 --timeout 60 \
  "$prog" 2>&1) || { echo "$log"; echo "FAIL: pingpong_sizes at debug"; exit 1; }
for pair in "0: peer 1" "1: peer 0"; do
  echo "$log" | grep -q "rank $pair via tcp" ||
    { echo "$log" | grep 'via'; echo "FAIL: rank $pair not via tcp"; exit 1; }
done
# Rendezvous payloads (up to 16 MiB each way) were read in place by both.
placed=$(echo "$log" | grep -c 'debug tcp: [1-9][0-9]* payload bytes read in place')
[ "$placed" -eq 2 ] ||
  { echo "$log" | grep 'in place'; echo "FAIL: $placed of 2 ranks read payloads in place"; exit 1; }

passed=0 failed= skipped=
# scenario NAME LABEL: runs tests/mpi/NAME.sh and books its status.
scenario() {
  echo "== $1 over tcp$2"
  start=$(date +%s)
  sh "$top_srcdir/tests/mpi/$1.sh"
  rc=$?
  echo "== $1: status $rc, $(($(date +%s) - start)) s"
  case $rc in
  0) passed=$((passed + 1)) ;;
  77) skipped="$skipped $1$2" ;;
  *) failed="$failed $1$2" ;;
  esac
}
for s in $scenarios; do
  scenario "$s" ""
done
# Small packets: most sizes through rendezvous and CTS/DATA streams of many
# fragments, send queues that fill.
for s in pingpong_sizes many_outstanding truncation; do
  HCMPI_EAGER_LIMIT=64 HCMPI_TCP_MAX_PACKET=4k HCMPI_TCP_SENDQ=64k \
    HCMPI_TCP_SOCKBUF=64k scenario "$s" " (small packets and queues)"
done
# The receive-buffer path that placement bypasses.
HCMPI_TCP_PLACE=0 scenario pingpong_sizes " (HCMPI_TCP_PLACE=0)"
echo "mpi_suite_tcp: $passed passed, failed:${failed:- none}, skipped:${skipped:- none}"
[ -z "$failed" ] || exit 1
[ -z "$skipped" ] || exit 77
exit 0
