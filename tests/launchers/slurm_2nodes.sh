#!/bin/sh
# hcmpi under Slurm across two "nodes": network namespaces hcs1 and hcs2
# (10.200.77.1, .2) each run a slurmd, hcs0 (.10) runs slurmctld and srun,
# all on a bridge kept in namespace hcs_sw.  Each slurmd runs in a UTS
# namespace of its own named after its node, so its tasks see hostname n1
# or n2: the engine's host id (hostname + boot id) then tells the nodes
# apart although the namespaces share /dev/shm and the boot id.  Under
# `srun -N 2` with --mpi=pmi2 and --mpi=pmix: pmi_client exchanges keys
# (the launchers' fences cross nodes), engine_p2p and MPI programs of
# tests/mpi run with ranks on both nodes, node_split checks that
# Comm_split_type(SHARED) gives one communicator per node, and the
# HCMPI_LOG=debug lines show shm within a node and tcp across.  Skips (77)
# unless root with slurm-wlm, unshare and netns.
# Run from the build directory (make check does).
set -u
[ "$(id -u)" -eq 0 ] || { echo "not root; skipped"; exit 77; }
PATH=$PATH:/usr/sbin:/sbin
for p in slurmctld slurmd srun sinfo ip nsenter unshare hostname; do
  command -v "$p" >/dev/null 2>&1 || { echo "no $p; skipped"; exit 77; }
done
id slurm >/dev/null 2>&1 || { echo "no slurm user; skipped"; exit 77; }
CLIENT=$(pwd)/tests/tools/pmi_client
P2P=$(pwd)/tests/engine/engine_p2p
for f in "$CLIENT" "$P2P"; do
  [ -x "$f" ] || { echo "missing $f (run from the build directory)"; exit 99; }
done

NETNS="hcs_sw hcs0 hcs1 hcs2"
W=$(mktemp -d /tmp/hcmpi-slurm2.XXXXXX)
chmod 755 "$W"
PIDS=
teardown() {
  for pid in $PIDS; do kill "$pid" 2>/dev/null; done
  for pid in $PIDS; do
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$pid" 2>/dev/null
  done
  for ns in $NETNS; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$W"
}
trap teardown EXIT
trap 'exit 1' INT TERM HUP

for ns in $NETNS; do
  if ip netns list | grep -q "^$ns\b"; then
    echo "network namespace $ns exists already (another run?); skipped"
    NETNS=""
    exit 77
  fi
done
ip netns add hcs_sw || { echo "cannot create network namespaces; skipped"; NETNS=""; exit 77; }
ip -n hcs_sw link add hcs_br type bridge && ip -n hcs_sw link set hcs_br up || exit 1
for i in 0 1 2; do
  addr=10.200.77.$i
  [ $i -eq 0 ] && addr=10.200.77.10
  ip netns add hcs$i &&
    ip link add hcs_h$i netns hcs$i type veth peer name hcs_p$i netns hcs_sw &&
    ip -n hcs_sw link set hcs_p$i master hcs_br &&
    ip -n hcs_sw link set hcs_p$i up &&
    ip -n hcs$i addr add $addr/24 dev hcs_h$i &&
    ip -n hcs$i link set hcs_h$i up &&
    ip -n hcs$i link set lo up || { echo "FAIL: netns setup"; exit 1; }
done

mkdir -p "$W/state" "$W/log" "$W/spool-n1" "$W/spool-n2" "$W/tmp-n1" "$W/tmp-n2"
chown slurm:slurm "$W/state" "$W/log"
chmod 777 "$W/log"
cat >"$W/slurm.conf" <<EOF
ClusterName=hcmpitest2
SlurmctldHost=localhost(10.200.77.10)
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool-%n
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd-%n.pid
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd-%n.log
TmpFS=$W/tmp-%n
ReturnToService=2
SchedulerType=sched/backfill
NodeName=n1 NodeAddr=10.200.77.1 CPUs=2 RealMemory=1000 State=UNKNOWN
NodeName=n2 NodeAddr=10.200.77.2 CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
export SLURM_CONF="$W/slurm.conf"
unset SLURM_JOB_ID SLURM_JOBID SLURM_MPI_TYPE PMI_FD PMI_PORT PMIX_NAMESPACE \
  PMIX_RANK HCMPI_BOOTSTRAP

# nsenter, not `ip netns exec`: slurmd needs the host's /sys.
in_ns() { ns=$1; shift; exec nsenter --net=/run/netns/"$ns" "$@"; }
in_ns hcs0 slurmctld -D -i >"$W/log/ctld.out" 2>&1 &
PIDS="$PIDS $!"
for n in 1 2; do
  in_ns hcs$n unshare --uts sh -c "hostname n$n && exec slurmd -D -N n$n" \
    >"$W/log/slurmd-n$n.out" 2>&1 &
  PIDS="$PIDS $!"
done
i=0
until [ "$(in_ns hcs0 sinfo -h -o %T 2>/dev/null)" = idle ]; do
  i=$((i + 1))
  if [ $i -gt 300 ]; then
    echo "FAIL: Slurm did not come up"; tail -n 20 "$W/log/"*; exit 1
  fi
  sleep 0.1
done
echo "Slurm up on nodes n1, n2"

# Sanitizer builds: libpmix's own allocations are not our leaks.
LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
run() {
  timeout 120 nsenter --net=/run/netns/hcs0 srun -O -t 2 "$@" \
    >"$W/out" 2>"$W/err" </dev/null
}

# The ranks really are on both nodes: each prints its node's address and
# hostname.
run -N 2 -n 2 sh -c 'echo "$(hostname) $(ip -o -4 addr show | grep -o "10\.200\.77\.[0-9]*/")"'
check "srun -N 2 -n 2 spreads over both nodes" $? 2 '^n[12] 10\.200\.77\.[12]/$'
if [ "$(sort -u "$W/out" | wc -l)" -ne 2 ] ||
  ! grep -q '^n1 10\.200\.77\.1/$' "$W/out" ||
  ! grep -q '^n2 10\.200\.77\.2/$' "$W/out"; then
  echo "FAIL: ranks not on n1 and n2 with their own hostnames"; cat "$W/out"
  failures=$((failures + 1))
fi

for mpi in pmi2 pmix; do
  run -N 2 -n 4 --mpi=$mpi "$CLIENT" --expect-size 4 --expect-backend $mpi
  check "srun -N 2 -n 4 --mpi=$mpi pmi_client" $? 4 "^pmi_client: rank [0-3] of 4 ok ($mpi)\$"
  # Block distribution: ranks 0,1 on n1 and 2,3 on n2.
  run -N 2 -n 4 --mpi=$mpi --export=ALL,HCMPI_LOG=debug "$P2P"
  check "srun -N 2 -n 4 --mpi=$mpi engine_p2p" $? 1 '^engine_p2p: 4 ranks OK$'
  if peers_check "$W/err" 2 4; then
    echo "PASS: --mpi=$mpi: shm within a node, tcp across nodes"
  else
    failures=$((failures + 1))
  fi
  # Slurm's PMIx server names the nodes and counts their ranks too.
  [ $mpi = pmix ] &&
    placement_check "$W/err" "--mpi=pmix" 0 0 2 n1 1 1 2 n1 2 0 2 n2 3 1 2 n2
  LM_HOSTS=2 mpi_programs "srun -N 2 --mpi=$mpi" -N 2 --mpi=$mpi
done

[ "$failures" -eq 0 ] || exit 1
exit 0
