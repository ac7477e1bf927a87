# Common set-up of the tests/verbs scripts (sourced, not run): every peer
# over verbs (HCMPI_TRANSPORTS=verbs) against tests/fake-verbs, a TEST
# DOUBLE of libibverbs.so.1 in a private directory, not RDMA hardware.
# Skips (77) when the launcher or the double is missing, or the double was
# built without rdma-core's headers.
#
# fail MSG           prints the last output and exits 1
# ok NAME CMD...     runs CMD (output to $out), which must exit 0
: "${top_builddir:=.}"
top_builddir=$(cd "$top_builddir" && pwd) || exit 1
run=$top_builddir/tools/hcmpirun
lib=$top_builddir/tests/fake-verbs/.libs/libibverbs.so
[ -x "$run" ] || exit 77
nm -D "$lib" 2>/dev/null | grep -q ' T ibv_get_device_list' || {
  echo "fake libibverbs missing or built without infiniband/verbs.h: skip"
  exit 77
}
FAKE_VERBS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hcmpi-fv.XXXXXX") || exit 1
out=$(mktemp) || exit 1
trap 'rm -rf "$FAKE_VERBS_DIR" "$out"' EXIT
HCMPI_VERBS_LIB=$lib
HCMPI_TRANSPORTS=verbs
export FAKE_VERBS_DIR HCMPI_VERBS_LIB HCMPI_TRANSPORTS
fail() {
  cat "$out"
  echo "FAIL: $*"
  exit 1
}
ok() {
  name=$1
  shift
  echo "== $name"
  "$@" >"$out" 2>&1 || fail "$name exited $?"
  tail -1 "$out"
}
