#!/bin/sh
# How to run the verbs transport on two real hosts with RDMA (InfiniBand or
# RoCE).  NOT run by make check: no RDMA hardware exists in CI, where
# verbs_local.sh runs the same programs over tests/fake-verbs instead.
# Hardware validation of the transport is still to be done.
#
# Usage (from a build tree, on host A, with passwordless ssh to B and the
# same build path on both, e.g. a shared file system):
#   tests/verbs/run-on-cluster.sh hostA hostB [mlx5_0 [port [gid-index]]]
# Uses MPICH's Hydra (mpiexec.hydra / mpiexec.mpich), which speaks PMI-1 to
# hcmpi.  Prints each program's verdict; exits non-zero on the first failure.
set -eu
[ $# -ge 2 ] || { sed -n '2,13p' "$0"; exit 2; }
a=$1 b=$2
dev=${3:-} port=${4:-} gid=${5:-}
mpiexec=$(command -v mpiexec.hydra || command -v mpiexec.mpich) ||
  { echo "needs MPICH's mpiexec.hydra"; exit 2; }
env_args="-genv HCMPI_TRANSPORTS verbs,shm -genv HCMPI_LOG info"
[ -n "$dev" ] && env_args="$env_args -genv HCMPI_IB_DEVICE $dev"
[ -n "$port" ] && env_args="$env_args -genv HCMPI_IB_PORT $port"
[ -n "$gid" ] && env_args="$env_args -genv HCMPI_IB_GID_INDEX $gid"
for prog in tests/engine/engine_p2p tests/engine/engine_coll \
  tests/mpi/pingpong_sizes tests/mpi/collectives_basic; do
  for n in 2 4; do
    echo "== $prog on $n ranks over $a,$b"
    # shellcheck disable=SC2086
    "$mpiexec" -hosts "$a,$b" -n "$n" $env_args "$PWD/$prog"
  done
done
# CUDA buffers between the hosts (one rank each, GPU 0): the rdma path with
# dma-buf regions, then staging for comparison; HCMPI_LOG=debug shows the
# registration counts at finalize (docs/verbs.md, "Device memory").
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  for path in rdma staging; do
    echo "== verbs_dmabuf over $a,$b, HCMPI_DEVICE_PATH=$path"
    # shellcheck disable=SC2086
    "$mpiexec" -hosts "$a,$b" -n 2 -ppn 1 $env_args -genv HCMPI_DEVICE cuda \
      -genv HCMPI_DEVICE_PATH "$path" -genv HCMPI_LOG debug \
      "$PWD/tests/verbs/verbs_dmabuf"
  done
fi
# The registration cache under freed and remapped buffers: on an HCA a
# stale pinned region moves the old pages' bytes, which the program's
# per-round pattern check sees.  A device with on-demand paging caches ODP
# regions instead: the pinned path needs one without.
echo "== tests/verbs/verbs_regcache_reuse on 2 ranks over $a,$b"
# shellcheck disable=SC2086
"$mpiexec" -hosts "$a,$b" -n 2 $env_args "$PWD/tests/verbs/verbs_regcache_reuse"
# Then: the same with HCMPI_VERBS_RDMA=0 (pipelined rendezvous), a rank
# killed with kill -9 during tests/mpi/proc_failed, and bench/ runs for
# bandwidth and latency (the only numbers that mean anything).
echo "run-on-cluster: all passed"
