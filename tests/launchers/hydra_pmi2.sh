#!/bin/sh
# The pmi2 backend under MPICH's Hydra, which answers PMI-2 on PMI_FD when
# the client's first line asks for it (HCMPI_BOOTSTRAP=pmi2; on its own
# hcmpi speaks PMI-1 to Hydra), spawn included.  Skips (77) without mpiexec.hydra.
# Run from the build directory (make check does).
set -u
HYDRA=$(command -v mpiexec.hydra || command -v mpiexec.mpich) ||
  { echo "no mpiexec.hydra; skipped"; exit 77; }
CLIENT=./tests/tools/pmi_client
P2P=./tests/engine/engine_p2p
for f in "$CLIENT" "$P2P"; do
  [ -x "$f" ] || { echo "missing $f (run from the build directory)"; exit 99; }
done
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

run() {
  timeout 120 "$HYDRA" "$@" >"$W/out" 2>"$W/err" </dev/null
}

run -n 4 -genv HCMPI_BOOTSTRAP pmi2 "$CLIENT" --expect-size 4 --expect-backend pmi2
check "hydra -n 4 pmi_client (pmi2)" $? 4 '^pmi_client: rank [0-3] of 4 ok (pmi2)$'

run -n 3 "$CLIENT" --expect-size 3 --expect-backend pmi1
check "hydra -n 3 pmi_client (auto: pmi1)" $? 3 '^pmi_client: rank [0-2] of 3 ok (pmi1)$'

run -n 2 -genv HCMPI_BOOTSTRAP pmi2 "$P2P"
check "hydra -n 2 engine_p2p (pmi2)" $? 1 '^engine_p2p: 2 ranks OK$'

# MPI_Comm_spawn, _spawn_multiple and a missing program through PMI-2's
# spawn frame; the children read the parents' port from their key space.
run -n 2 -genv HCMPI_BOOTSTRAP pmi2 ./tests/mpi/dyn_spawn parent
check "hydra -n 2 dyn_spawn parent (pmi2)" $? 2 '^dyn_spawn: parent [01] of 2 OK$'

# A rank that aborts through PMI-2 ends the job with a failure.
run -n 3 -genv HCMPI_BOOTSTRAP pmi2 "$CLIENT" --abort-rank 1 --exit-code 5
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; then
  echo "PASS: hydra pmi2 abort (rc=$rc)"
else
  echo "FAIL: hydra pmi2 abort (rc=$rc)"; cat "$W/err"
  failures=$((failures + 1))
fi

[ "$failures" -eq 0 ] || exit 1
exit 0
