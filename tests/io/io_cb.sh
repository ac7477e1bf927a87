#!/bin/sh
# Collective buffering of an interleaved subarray on 4 ranks
# (tests/io/io_cb.c).  Where strace works, the "cb" run is traced and must
# write the 1 MiB matrix with exactly one pwrite64 of 1048576 bytes (the
# other pwrites are the 8-byte shared-pointer file), while the "nocb" run
# makes one pwrite per row and rank (4 x 64 of 4096 bytes), and so does
# the "auto" run (no hints) where $TMPDIR is a local file system (runs of
# a page on one node go on their own rank).  Those three run
# with HCMPI_IO_URING=0, since writes on the io_uring are no pwrite64
# calls; a third "cb" run with the ring (where the kernel has it) must
# write the matrix with no pwrite64 at all, through io_uring_enter.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
file="${TMPDIR:-/tmp}/hcmpi_io_cb.$$"
trace="${TMPDIR:-/tmp}/hcmpi_io_cb.$$.strace"
trap 'rm -f "$file" "$trace"' EXIT
run_mpi_ok 4 tests/io/io_cb small "$file"
rm -f "$file"
if command -v strace >/dev/null 2>&1 && strace -f -o /dev/null true 2>/dev/null &&
    [ -z "$HCMPI_TEST_SANITIZED" ]; then
    case $(stat -f -c %T "${TMPDIR:-/tmp}" 2>/dev/null) in
    ext2/ext3 | xfs | btrfs | tmpfs) auto=auto ;;
    *) auto= ; echo "io_cb: ${TMPDIR:-/tmp} is not a known local file system: no auto run" ;;
    esac
    for mode in cb nocb $auto; do
        rm -f "$file"
        echo "+ HCMPI_IO_URING=0 strace -f -e trace=pwrite64 hcmpirun -n 4 io_cb $mode"
        HCMPI_IO_URING=0 timeout 300 strace -f -qq -e trace=pwrite64 -o "$trace" \
            "$top_builddir/tools/hcmpirun" -n 4 --timeout 240 \
            "$top_builddir/tests/io/io_cb" $mode "$file" || fail "io_cb $mode under strace"
        # The size is the argument before the offset, on the line of the
        # call (strace splits calls that other processes interrupt).
        sizes=$(sed -n 's/.*pwrite64(.*, \([0-9]*\), [0-9]*\() = .*\| <unfinished \.\.\.>\)$/\1/p' "$trace")
        big=$(echo "$sizes" | grep -cx 1048576)
        rows=$(echo "$sizes" | grep -cx 4096)
        other=$(echo "$sizes" | grep -vcx '1048576\|4096\|8')
        echo "io_cb $mode: $big pwrites of 1 MiB, $rows of 4096 bytes, $other others"
        if [ $mode = cb ]; then
            [ "$big" -eq 1 ] && [ "$rows" -eq 0 ] && [ "$other" -eq 0 ] ||
                fail "collective buffering did not write one contiguous 1 MiB run"
        else
            [ "$big" -eq 0 ] && [ "$rows" -eq 256 ] ||
                fail "$mode: expected 256 row writes"
        fi
    done
    rm -f "$file"
    echo "+ strace -f -e trace=pwrite64,io_uring_enter hcmpirun -n 4 io_cb cb"
    timeout 300 strace -f -qq -e trace=pwrite64,io_uring_enter -o "$trace" \
        "$top_builddir/tools/hcmpirun" -n 4 --timeout 240 \
        "$top_builddir/tests/io/io_cb" cb "$file" || fail "io_cb cb on the ring under strace"
    if grep -q 'io_uring_enter(.*= [0-9]' "$trace"; then
        data=$(grep 'pwrite64(' "$trace" | grep -vc ', 8, [0-9]*)')
        echo "io_cb cb on the ring: $data pwrite64 calls of data"
        [ "$data" -eq 0 ] || fail "with the ring, the aggregator still wrote with pwrite64"
    else
        echo "io_cb: no io_uring here: the ring run used pwrite64"
    fi
else
    echo "io_cb: strace unusable here: the access sizes are not checked"
    run_mpi_ok 4 tests/io/io_cb cb "$file"
    rm -f "$file"
    run_mpi_ok 4 tests/io/io_cb nocb "$file"
fi
