#!/bin/sh
# Runs engine_p2p and engine_coll with every peer reached over tcp
# (HCMPI_TRANSPORTS=tcp: shm is not initialised) on 2 and 4 ranks of this
# node, through 127.0.0.1 or this host's first address.
set -u
run=./tools/hcmpirun
[ -x "$run" ] && [ -x ./tests/engine/engine_p2p ] &&
  [ -x ./tests/engine/engine_coll ] || exit 77
HCMPI_TRANSPORTS=tcp
export HCMPI_TRANSPORTS
for n in 2 4; do
  # engine_p2p's cancel test needs the transport queues smaller than its
  # 20,000 queued messages, as the shm rings are: small send queue and
  # socket buffers.
  echo "== engine_p2p -n $n (small tcp queues)"
  HCMPI_TCP_SENDQ=64k HCMPI_TCP_SOCKBUF=64k \
    "$run" -n "$n" --timeout 300 ./tests/engine/engine_p2p || exit 1
  echo "== engine_coll -n $n"
  "$run" -n "$n" --timeout 300 ./tests/engine/engine_coll || exit 1
done
# Small packets: every size through rendezvous, CTS/DATA streams of many
# fragments and the engine backlog.
echo "== engine_p2p -n 2 HCMPI_EAGER_LIMIT=64 HCMPI_TCP_MAX_PACKET=4k"
HCMPI_EAGER_LIMIT=64 HCMPI_TCP_MAX_PACKET=4k HCMPI_TCP_SENDQ=64k \
  HCMPI_TCP_SOCKBUF=64k "$run" -n 2 --timeout 300 ./tests/engine/engine_p2p ||
  exit 1
exit 0
