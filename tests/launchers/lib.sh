# Common code of the launcher scripts (sourced, not run).  The sourcing
# script sets W (its scratch directory) and defines run, which launches
# "$@" with stdout in $W/out and stderr in $W/err and returns the
# launcher's status.
#
# check NAME RC WANT PATTERN   PASS when RC is 0 and WANT stdout lines
#                              match PATTERN, else FAIL with the output.
# mpi_programs LABEL ARGS...   runs tests/mpi scenario programs and
#                              node_split (each asserts its own results and
#                              prints one OK line from rank 0) as
#                              "run ARGS -n N PROG"; a missing program
#                              fails.  LM_HOSTS: hosts the job spans (1).
# peers_check FILE PER_NODE N  every rank of an N-rank job whose ranks sit
#                              PER_NODE to a host, in order, reached its
#                              peers on its host via shm and the others via
#                              tcp (the engine's HCMPI_LOG=debug lines).
failures=0

# placement_check FILE NAME R LR LS NODE...: the engine's debug line says
# rank R is local rank LR of LS on NODE, as the launcher (PMIx) says;
# repeated for each further R LR LS NODE.
placement_check() {
  file=$1 name=$2
  shift 2
  while [ $# -ge 4 ]; do
    if grep -q "engine: rank $1: local rank $2 of $3 on node $4, as the launcher says\$" "$file"; then
      echo "PASS: $name: rank $1 is local rank $2 of $3 on $4 for PMIx and host ids"
    else
      echo "FAIL: $name: rank $1 not local rank $2 of $3 on $4 for both"
      grep "engine: rank $1: \|pmix: .* rank $1:" "$file"
      failures=$((failures + 1))
    fi
    shift 4
  done
}

check() {
  name=$1 rc=$2 want=$3 pattern=$4
  got=$(grep -c "$pattern" "$W/out")
  if [ "$rc" -eq 0 ] && [ "$got" -eq "$want" ]; then
    echo "PASS: $name"
  else
    echo "FAIL: $name (rc=$rc, $got of $want lines)"
    echo "--- stdout"; cat "$W/out"; echo "--- stderr"; cat "$W/err"
    failures=$((failures + 1))
  fi
}

# Sizes 0 B..16 MiB cross the eager limit into rendezvous; comm_create
# includes Comm_split_type(SHARED) of a one-host job, so it is left out
# where the job spans hosts (LM_HOSTS > 1; node_split covers that case).
mpi_programs() {
  label=$1
  shift
  for spec in "2 pingpong_sizes" "4 wildcard_order" "4 collectives_basic" \
    "3 collectives_basic" "4 comm_split_dup" "4 comm_create"; do
    n=${spec%% *} prog=${spec#* }
    [ "$prog" = comm_create ] && [ "${LM_HOSTS:-1}" -gt 1 ] && continue
    path=$(pwd)/tests/mpi/$prog
    if [ ! -x "$path" ]; then
      echo "FAIL: $path missing (run from the build directory after make check's build)"
      failures=$((failures + 1))
      continue
    fi
    run "$@" -n "$n" "$path"
    check "$label -n $n $prog" $? 1 "^$prog: .*OK"
  done
  run "$@" -n 4 "$(pwd)/tests/launchers/node_split" --nodes "${LM_HOSTS:-1}"
  check "$label -n 4 node_split on ${LM_HOSTS:-1} host(s)" $? 1 \
    "^node_split: 4 ranks on ${LM_HOSTS:-1} nodes .*: OK\$"
}

peers_check() {
  file=$1 per=$2 n=$3 bad=0
  r=0
  while [ $r -lt "$n" ]; do
    p=0
    while [ $p -lt "$n" ]; do
      if [ $r = $p ]; then
        want=self
      elif [ $((r / per)) = $((p / per)) ]; then
        want=shm
      else
        want=tcp
      fi
      if ! grep -q "rank $r: peer $p via $want\$" "$file"; then
        echo "FAIL: rank $r does not reach rank $p via $want"
        grep "rank $r: peer $p via" "$file"
        bad=1
      fi
      p=$((p + 1))
    done
    r=$((r + 1))
  done
  return $bad
}
