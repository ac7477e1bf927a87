#!/bin/sh
# hcmpi under a real Slurm: starts a private one-node cluster (slurmctld and
# slurmd with their own slurm.conf, state and ports in a temporary
# directory; auth/none, so no munged), then runs pmi_client, engine_p2p
# and MPI programs of tests/mpi (pingpong sizes through eager and
# rendezvous, wildcard order, collectives, communicator split, create and
# split_type, node_split) with `srun -O --mpi=pmi2` (pmi2 backend, and
# pmi1 over the same PMI_FD) and `srun -O --mpi=pmix` (pmix backend);
# MPI_Comm_spawn through PMI-2 (dyn_spawn parent); and
# ULFM's agree surviving a kill -9 under `srun --no-kill --mpi=pmi2`.
# Everything is torn down on any exit.  Skips (77) unless root with slurm-wlm installed.
# Run from the build directory (make check does).
set -u
[ "$(id -u)" -eq 0 ] || { echo "not root: cannot start slurmd; skipped"; exit 77; }
for p in slurmctld slurmd srun sinfo; do
  command -v "$p" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin
  command -v "$p" >/dev/null 2>&1 || { echo "no $p (slurm-wlm); skipped"; exit 77; }
done
id slurm >/dev/null 2>&1 || { echo "no slurm user; skipped"; exit 77; }
CLIENT=$(pwd)/tests/tools/pmi_client
P2P=$(pwd)/tests/engine/engine_p2p
for f in "$CLIENT" "$P2P"; do
  [ -x "$f" ] || { echo "missing $f (run from the build directory)"; exit 99; }
done

W=$(mktemp -d /tmp/hcmpi-slurm.XXXXXX)
chmod 755 "$W"
CTLD_PID= SLURMD_PID=
teardown() {
  for pid in $SLURMD_PID $CTLD_PID; do
    kill "$pid" 2>/dev/null
  done
  for pid in $SLURMD_PID $CTLD_PID; do
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$pid" 2>/dev/null
  done
  # slurmstepd detaches from slurmd (its parent becomes init), so a step
  # still running is found by what it holds open: its socket and logs
  # under our spool.  Left alive, it kept the next run's controller from
  # ever reporting the node idle.
  for proc in /proc/[0-9]*; do
    case $(readlink "$proc"/fd/* "$proc/cwd" 2>/dev/null) in
    *"$W"*) [ "${proc#/proc/}" = $$ ] || kill -9 "${proc#/proc/}" 2>/dev/null ;;
    esac
  done
  rm -rf "$W"
}
trap teardown EXIT
trap 'exit 1' INT TERM HUP

# Ports away from the defaults, so a real Slurm or a parallel run is left
# alone.  A port already taken (by anything running beside the test) makes
# slurmctld or slurmd exit at bind, so a start that loses either daemon is
# retried on other ports.
mkdir -p "$W/state" "$W/spool" "$W/log" "$W/tmp"
chown slurm:slurm "$W/state" "$W/log"
write_conf() {
  cat >"$W/slurm.conf" <<EOF
ClusterName=hcmpitest
SlurmctldHost=localhost(127.0.0.1)
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
SlurmctldPort=$1
SlurmdPort=$(($1 + 1))
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd.log
TmpFS=$W/tmp
ReturnToService=2
SchedulerType=sched/backfill
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
}
export SLURM_CONF="$W/slurm.conf"
# A surrounding job's variables would steer srun and our detection.
unset SLURM_JOB_ID SLURM_JOBID SLURM_MPI_TYPE PMI_FD PMI_PORT PMIX_NAMESPACE \
  PMIX_RANK HCMPI_BOOTSTRAP

# Starts both daemons on ports $1 and $1 + 1 and waits until the node is
# idle (a deadline in seconds, each sinfo bounded: while no controller
# answers, one sinfo call can block for seconds by itself).  Returns 1 when
# a daemon died on the way (a taken port), 2 at the deadline.
start_slurm() {
  write_conf "$1"
  rm -rf "$W/state/"* "$W/spool/"*
  slurmctld -D -i >"$W/log/ctld.out" 2>&1 &
  CTLD_PID=$!
  slurmd -D -N localhost >"$W/log/slurmd.out" 2>&1 &
  SLURMD_PID=$!
  deadline=$(($(date +%s) + 120))
  until [ "$(timeout 5 sinfo -h -o %T 2>/dev/null)" = idle ]; do
    kill -0 "$CTLD_PID" 2>/dev/null && kill -0 "$SLURMD_PID" 2>/dev/null || return 1
    [ "$(date +%s)" -le $deadline ] || return 2
    sleep 0.1
  done
}
stop_slurm() {
  for pid in $SLURMD_PID $CTLD_PID; do kill -9 "$pid" 2>/dev/null; done
  wait $SLURMD_PID $CTLD_PID 2>/dev/null
  CTLD_PID= SLURMD_PID=
}

base=$((20000 + $$ % 20000 * 2))
attempt=1
while :; do
  start_slurm "$base" && break
  why=$?
  if [ $why -eq 2 ] || [ $attempt -ge 5 ]; then
    echo "FAIL: Slurm did not come up (attempt $attempt, ports $base, $((base + 1)))"
    tail -n 20 "$W/log/"*
    exit 1
  fi
  echo "a Slurm daemon exited at start on ports $base, $((base + 1)); trying others"
  grep -h "in use" "$W/log/"* 2>/dev/null | tail -n 2
  stop_slurm
  attempt=$((attempt + 1))
  # Another even base in 20000-59998, away from the one that failed.
  base=$((20000 + (base - 20000 + 2 * 7919) % 40000))
done
echo "Slurm up (ports $base, $((base + 1)))"

# Sanitizer builds: libpmix's own allocations are not our leaks.
LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
# A step that timed out shows Slurm's view of it and is cancelled, and a
# node Slurm drained for it (a task slow to die) is resumed: one failure
# stays one failure, not every later step waiting out its 120 s.
run() {
  timeout 120 srun -O -t 2 "$@" >"$W/out" 2>"$W/err" </dev/null
  rc=$?
  if [ $rc -eq 124 ]; then
    echo "srun $* timed out; Slurm's view:"
    squeue 2>&1
    sinfo -R 2>&1
    tail -n 20 "$W/log/slurmd.log" 2>&1
    scancel --full --signal=KILL -u "$(id -un)" 2>/dev/null
  fi
  case $(sinfo -h -o %T 2>/dev/null) in
  *drain*)
    echo "resuming the node Slurm drained: $(sinfo -h -R -o %E 2>/dev/null)"
    scontrol update nodename=localhost state=resume 2>&1
    ;;
  esac
  return $rc
}

run --mpi=pmi2 -n 4 "$CLIENT" --expect-size 4 --expect-backend pmi2
check "srun --mpi=pmi2 -n 4 pmi_client (pmi2)" $? 4 '^pmi_client: rank [0-3] of 4 ok (pmi2)$'

run --mpi=pmi2 -n 3 --export=ALL,HCMPI_BOOTSTRAP=pmi1 "$CLIENT" --expect-size 3 \
  --expect-backend pmi1
check "srun --mpi=pmi2 -n 3 pmi_client (pmi1 wire)" $? 3 '^pmi_client: rank [0-2] of 3 ok (pmi1)$'

run --mpi=pmix -n 4 "$CLIENT" --expect-size 4 --expect-backend pmix
check "srun --mpi=pmix -n 4 pmi_client (pmix)" $? 4 '^pmi_client: rank [0-3] of 4 ok (pmix)$'

for mpi in pmi2 pmix; do
  run --mpi=$mpi -n 4 "$P2P"
  check "srun --mpi=$mpi -n 4 engine_p2p" $? 1 '^engine_p2p: 4 ranks OK$'
  mpi_programs "srun --mpi=$mpi" --mpi=$mpi
done

# MPI_Comm_spawn and _spawn_multiple under PMI-2: Slurm runs a new srun
# for the children inside the job, with the environment of the first
# (SLURM_OVERLAP and SLURM_OVERCOMMIT: their step shares the parents'
# CPUs); a missing program is MPI_ERR_SPAWN with nothing started.
SPAWN=$(pwd)/tests/mpi/dyn_spawn
(export SLURM_OVERLAP=1 SLURM_OVERCOMMIT=1; run --mpi=pmi2 -n 2 "$SPAWN" parent)
check "srun --mpi=pmi2 -n 2 dyn_spawn parent" $? 2 '^dyn_spawn: parent [01] of 2 OK$'

# A rank that fails makes srun fail (the others wait in a fence until
# Slurm tears the step down).
for mpi in pmi2 pmix; do
  run --mpi=$mpi -n 3 "$CLIENT" --abort-rank 1 --exit-code 5
  rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; then
    echo "PASS: srun --mpi=$mpi abort fails the step (rc=$rc)"
  else
    echo "FAIL: srun --mpi=$mpi abort (rc=$rc)"; cat "$W/err"
    failures=$((failures + 1))
  fi
done

# ULFM: with --no-kill and --kill-on-bad-exit=0 the step outlives a rank
# SIGKILLed in ulfm's agree mode; the 3 survivors must pass it.  PMI-2
# only: Slurm's PMIx plugin cancels the step when a task dies, whatever
# --no-kill says (at once under the sanitizers, which slow the survivors).
ULFM=$(pwd)/tests/mpi/ulfm
for mpi in pmi2; do
  run --mpi=$mpi --no-kill --kill-on-bad-exit=0 -n 4 "$ULFM" agree
  rc=$?
  got=$(grep -c "PASS agree" "$W/out")
  if [ "$rc" -ne 124 ] && [ "$got" -eq 3 ] && ! grep -q "FAIL rank" "$W/out"; then
    echo "PASS: srun --mpi=$mpi --no-kill: 3 survivors of a kill -9 agree"
  else
    echo "FAIL: srun --mpi=$mpi --no-kill ulfm agree (rc=$rc, $got of 3)"
    echo "--- stdout"; cat "$W/out"; echo "--- stderr"; cat "$W/err"
    failures=$((failures + 1))
  fi
done

[ "$failures" -eq 0 ] || exit 1
exit 0
