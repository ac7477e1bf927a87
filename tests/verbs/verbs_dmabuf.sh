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
# Then refusals on one side only (a knob in one rank's environment,
# device-to-device or host-to-device messages only, rdma forced), each
# message staged and every byte checked:
#  - one rank cannot register device memory: as sender its RTS says so and
#    the peer stages without asking a get; as receiver it stages although
#    the sender registered;
#  - a get refused at the sender: the receiver registered its device
#    buffer, the sender cannot register its host buffer for remote read
#    (FAKE_VERBS_REG_REMOTE_FAIL_ABOVE=0) and answers no;
#  - a get refused at the receiver's transport (HCMPI_VERBS_RDMA=0) with
#    both device buffers registered.
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
host_refused() { num "$1" "registrations: [0-9]* hits, .*, \([0-9]*\) refused, [0-9]* invalidated"; }
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
# one_sided NAME RANK KNOB KINDS: verbs_dmabuf KINDS with rdma forced and
# KNOB (VAR=VALUE) in the environment of rank RANK alone (each rank starts
# through sh, which exports it where PMI_RANK is RANK).
one_sided() {
  ok "verbs_dmabuf $4 -n 2 ($1 on rank $2 only)" env HCMPI_LOG=debug \
    HCMPI_DEVICE_PATH=rdma "$run" -n 2 --timeout 60 sh -c \
    'if [ "$PMI_RANK" = "$0" ]; then export "$1"; fi; shift; exec "$@"' \
    "$2" "$3" "$prog" "$4"
  grep -q "verbs_dmabuf: ok" "$out" || fail "$1: no summary line"
}
# get_refused FROM TO: whether rank TO logged a get from rank FROM that
# failed, the message then staged.
get_refused() {
  grep -q "rank $2: rdma get from rank $1: .*; staging" "$out"
}
# refusing RANK: that rank cannot register device memory (both knobs
# reach the same engine branch: the export or the registration fails).
refusing() {
  r=$1 other=$((1 - $1))
  [ "$(engine_regs $r)" = 0 ] || fail "rank $r registered despite the knob"
  [ "$(engine_refused $r)" -gt 0 ] || fail "rank $r: nothing refused"
  [ "$(engine_regs $other)" -gt 0 ] || fail "rank $other: the knob reached it"
  [ "$(engine_refused $other)" = 0 ] || fail "rank $other: refused"
  for r in 0 1; do
    [ "$(path $r rdma)" = 0 ] || fail "rank $r: $(path $r rdma) by rdma"
    [ "$(path $r staging)" -gt 0 ] || fail "rank $r: nothing staged"
    [ "$(vb_gets $r)" = 0 ] || fail "rank $r: a get into device memory"
    [ "$(vb_served $r)" = 0 ] || fail "rank $r: a get served"
  done
  # A sender that said "not registered" is never asked for a get.
  ! grep -q "rdma get from rank" "$out" || fail "a get despite the RTS"
}
one_sided "verbs refuse dma-buf" 0 FAKE_VERBS_NO_DMABUF=1 dd
refusing 0
[ "$(vb_refused 0)" -gt 0 ] || fail "rank 0: verbs refused nothing"
one_sided "driver exports no dma-buf" 1 FAKE_CUDA_NO_DMABUF=1 dd
refusing 1
[ "$(vb_refused 1)" = 0 ] || fail "rank 1: verbs asked without a dma-buf"

one_sided "host registration refused" 0 FAKE_VERBS_REG_REMOTE_FAIL_ABOVE=0 hd
# Rank 1 receives rank 0's host bytes in registered device buffers: every
# get is refused at rank 0 and the message staged.
[ "$(engine_regs 1)" -gt 0 ] || fail "rank 1: receiver registered nothing"
[ "$(host_refused 0)" -gt 0 ] || fail "rank 0: refused no host registration"
get_refused 0 1 || fail "rank 1: no get refused by rank 0"
[ "$(path 1 rdma)" = 0 ] || fail "rank 1: $(path 1 rdma) by rdma"
[ "$(path 1 staging)" -gt 0 ] || fail "rank 1: nothing staged"
[ "$(vb_gets 1)" = 0 ] || fail "rank 1: refused gets counted as done"
# The other way rank 1 registers for remote read as usual: rdma.
[ "$(host_refused 1)" = 0 ] || fail "rank 1: the knob reached it"
[ "$(path 0 rdma)" -gt 0 ] || fail "rank 0: no rdma receive"
[ "$(path 0 staging)" = 0 ] || fail "rank 0: $(path 0 staging) staged"
[ "$(vb_gets 0)" -gt 0 ] || fail "rank 0: no get into device memory"

one_sided "gets off" 1 HCMPI_VERBS_RDMA=0 dd
for r in 0 1; do
  [ "$(engine_regs $r)" -gt 0 ] || fail "rank $r: no dma-buf registration"
  [ "$(engine_refused $r)" = 0 ] || fail "rank $r: registrations refused"
done
get_refused 0 1 || fail "rank 1: no get refused"
[ "$(path 1 rdma)" = 0 ] || fail "rank 1: $(path 1 rdma) by rdma"
[ "$(path 1 staging)" -gt 0 ] || fail "rank 1: nothing staged"
[ "$(vb_gets 1)" = 0 ] || fail "rank 1: refused gets counted as done"
[ "$(path 0 rdma)" -gt 0 ] || fail "rank 0: no rdma receive"
[ "$(path 0 staging)" = 0 ] || fail "rank 0: $(path 0 staging) staged"
[ "$(vb_served 1)" -gt 0 ] || fail "rank 1: served no get"

for rec in "$FAKE_VERBS_DIR"/mr-*; do
  [ -e "$rec" ] && fail "registration record left behind: $rec"
done
echo "verbs_dmabuf: all passed"
exit 0
