#!/bin/sh
# split_neighborhood.c: MPIX_COMM_TYPE_NEIGHBORHOOD with
# "nbhd_common_dirname" on 1, 2, 3 and 5 ranks sharing a directory; then,
# where mount namespaces are available (root), 4 ranks of which two see
# tmpfs mounts of their own over the directory (one read-only): the
# communicators follow the file systems, not the node.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
for n in 1 2 3 5; do
    run_mpi_ok $n split_neighborhood "$D" same
done
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || exit 0
if ! unshare -m sh -c "mount -t tmpfs none '$D'" 2>/dev/null; then
    echo "split_neighborhood: no mount namespaces here; the mounts case is skipped"
    exit 0
fi
prog=$(mpi_prog_path split_neighborhood)
mpi_launcher_cmd
echo "+ hcmpirun -n 4 (ranks 1 and 3 under their own tmpfs) $prog $D mounts"
timeout -k 10 $((MPI_TEST_TIMEOUT + 30)) "$HCMPIRUN" -n 4 --timeout "$MPI_TEST_TIMEOUT" \
    sh -c 'case "$PMI_RANK" in
        1) exec unshare -m sh -c "mount -t tmpfs none \"\$1\" && exec \"\$0\" \"\$1\" mounts" "$0" "$1" ;;
        3) exec unshare -m sh -c "mount -t tmpfs -o ro none \"\$1\" && exec \"\$0\" \"\$1\" mounts" "$0" "$1" ;;
        *) exec "$0" "$1" mounts ;;
        esac' "$prog" "$D" || fail "split_neighborhood mounts exited with status $?"
echo "split_neighborhood: all cases passed"
