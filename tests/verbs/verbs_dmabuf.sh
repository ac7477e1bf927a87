#!/bin/sh
# CUDA device buffers over the verbs transport without hardware: the CUDA
# driver's test double (tests/fake-cuda, dma-buf handles of its memfd
# "device" memory) and the verbs double (tests/fake-verbs, see lib.sh).
# verbs_dmabuf sends device-to-device, device-to-host and host-to-device
# messages of 0 B .. 16 MiB both ways and checks every byte, then reuses a
# freed device address.  The debug counts each rank logs at finalize say
# which path moved them:
#  - rdma forced: every device message is one RDMA READ between dma-buf
#    regions (or host memory), none staged; the reused address dropped its
#    registration;
#  - auto: same-node device-to-device goes ipc, the mixed kinds rdma;
#  - FAKE_CUDA_NO_DMABUF=1 (driver without dma-buf) and
#    FAKE_VERBS_NO_DMABUF=1 (verbs without ibv_reg_dmabuf_mr support): the
#    registrations are refused and the same bytes arrive by staging.
set -u
. "${top_srcdir:-.}/tests/verbs/lib.sh"
prog=$top_builddir/tests/verbs/verbs_dmabuf
cuda=$top_builddir/tests/fake-cuda/.libs/libcuda.so
[ -x "$prog" ] && [ -r "$cuda" ] || exit 77
HCMPI_CUDA_LIB=$cuda
HCMPI_DEVICE=cuda
export HCMPI_CUDA_LIB HCMPI_DEVICE
# num RANK SED-PATTERN: the number \(..\) the pattern marks in the line
# of that rank (engine lines are tagged "device:", the transport's "verbs:").
num() {
  n=$(sed -n "s/.*rank $1: $2.*/\1/p" "$out" | head -1)
  [ -n "$n" ] || fail "rank $1: no line matching '$2'"
  echo "$n"
}
engine_regs() { num "$1" "device registrations: \([0-9]*\) dmabuf"; }
engine_refused() { num "$1" "device registrations: [0-9]* dmabuf, \([0-9]*\) refused"; }
engine_dropped() { num "$1" "device registrations: .* refused, \([0-9]*\) dropped"; }
path() { num "$1" "device paths: .*$2 \([0-9]*\)"; }
vb_regs() { num "$1" "device registrations: \([0-9]*\) dmabuf, [0-9]* refused;"; }
vb_refused() { num "$1" "device registrations: [0-9]* dmabuf, \([0-9]*\) refused;"; }
vb_gets() { num "$1" "device registrations: .*; \([0-9]*\) gets into device"; }
vb_served() { num "$1" "device registrations: .*, \([0-9]*\) served from it"; }
dmabuf() { # NAME ENV...
  name=$1
  shift
  ok "verbs_dmabuf -n 2 $name" env HCMPI_LOG=debug "$@" \
    "$run" -n 2 --timeout 120 "$prog"
  grep -q "verbs_dmabuf: ok" "$out" || fail "$name: no summary line"
  for r in 0 1; do # the double always hands a freed address out again
    grep -q "rank $r: freed address reused 2 of 2" "$out" ||
      fail "$name: rank $r: the reallocation test reused no address"
  done
}

dmabuf "(rdma forced)" HCMPI_DEVICE_PATH=rdma
for r in 0 1; do
  [ "$(engine_regs $r)" -gt 0 ] || fail "rank $r: no dma-buf registration"
  [ "$(engine_refused $r)" = 0 ] || fail "rank $r: registrations refused"
  [ "$(engine_dropped $r)" -gt 0 ] || fail "rank $r: freed memory kept its region"
  [ "$(path $r staging)" = 0 ] || fail "rank $r: $(path $r staging) staged"
  [ "$(path $r rdma)" -gt 0 ] || fail "rank $r: no rdma receive"
  [ "$(vb_gets $r)" -gt 0 ] || fail "rank $r: no get into device memory"
  [ "$(vb_served $r)" -gt 0 ] || fail "rank $r: no get served from device memory"
done
dmabuf "(auto)"
for r in 0 1; do
  [ "$(path $r ipc)" -gt 0 ] || fail "rank $r: auto: no ipc on one node"
  [ "$(path $r rdma)" -gt 0 ] || fail "rank $r: auto: mixed kinds not rdma"
  [ "$(path $r staging)" = 0 ] || fail "rank $r: auto: $(path $r staging) staged"
done
dmabuf "FAKE_CUDA_NO_DMABUF=1" HCMPI_DEVICE_PATH=rdma FAKE_CUDA_NO_DMABUF=1
for r in 0 1; do
  [ "$(engine_regs $r)" = 0 ] || fail "rank $r: registered without dma-buf"
  [ "$(engine_refused $r)" -gt 0 ] || fail "rank $r: nothing refused"
  [ "$(path $r rdma)" = 0 ] || fail "rank $r: rdma without dma-buf"
  [ "$(path $r staging)" -gt 0 ] || fail "rank $r: nothing staged"
done
dmabuf "FAKE_VERBS_NO_DMABUF=1" HCMPI_DEVICE_PATH=rdma FAKE_VERBS_NO_DMABUF=1
for r in 0 1; do
  [ "$(vb_regs $r)" = 0 ] || fail "rank $r: verbs registered a dma-buf"
  [ "$(vb_refused $r)" -gt 0 ] || fail "rank $r: verbs refused nothing"
  [ "$(engine_refused $r)" -gt 0 ] || fail "rank $r: engine saw no refusal"
  [ "$(path $r rdma)" = 0 ] || fail "rank $r: rdma without registrations"
  [ "$(path $r staging)" -gt 0 ] || fail "rank $r: nothing staged"
done
for rec in "$FAKE_VERBS_DIR"/mr-*; do
  [ -e "$rec" ] && fail "registration record left behind: $rec"
done
echo "verbs_dmabuf: all passed"
exit 0
