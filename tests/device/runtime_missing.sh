#!/bin/sh
# Device runtimes that cannot be loaded cost one informative line per rank
# at HCMPI_LOG=info (naming each runtime and why), and nothing else: the
# job runs on host memory.  Skips (77) when the launcher or the example
# was not built.
set -u
run=./tools/hcmpirun
prog=./examples/pingpong
[ -x "$run" ] && [ -x "$prog" ] || exit 77
log=runtime_missing.run.log
fail() {
  echo "FAILED: $*"
  cat "$log"
  exit 1
}
for choice in auto acl cuda; do
  echo "== HCMPI_DEVICE=$choice"
  HCMPI_DEVICE=$choice HCMPI_LOG=info HCMPI_ACL_LIB=/nonexistent/libascendcl.so \
    HCMPI_CUDA_LIB=/nonexistent/libcuda.so.1 HCMPI_HCCL_LIB=/nonexistent/libhccl.so \
    "$run" -n 2 --timeout 60 "$prog" 2 4096 >"$log" 2>&1 || fail "run ($choice)"
  lines=$(grep -c "info \(device\|acl\|cuda\|hccl\)" "$log")
  [ "$lines" -eq 2 ] || fail "$lines device lines on 2 ranks ($choice)"
  for pid in $(sed -n 's/^hcmpi\[\([0-9]*\)\] info device.*/\1/p' "$log"); do
    n=$(grep -c "^hcmpi\[$pid\] info" "$log")
    [ "$n" -eq 1 ] || fail "rank pid $pid printed $n info lines ($choice)"
  done
  case $choice in
  auto) want="acl (cannot load /nonexistent/libascendcl.so); cuda (cannot load" ;;
  *) want="$choice (cannot load /nonexistent/" ;;
  esac
  grep -qF "$want" "$log" || fail "line does not say what is missing ($choice)"
done
rm -f "$log"
exit 0
