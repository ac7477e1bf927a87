#!/bin/sh
# One sleep covers shm and tcp.  Four ranks in two fake nodes of two
# (HCMPI_NODE_ID): each rank reaches its node peer over shm and the others
# over tcp.  With HCMPI_SPIN=0 every wait sleeps at once; wildcard_order's
# receiver then sleeps on messages from both transports.  Every rank must
# say (debug log) that it sleeps on shm's pollable doorbell, and where
# strace runs, the ranks' sleeps must be single polls over two descriptors
# (the doorbell's eventfd and tcp's epoll set) rather than a futex wait
# and a 1 ms poll in turns.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
[ "$MPI_TEST_LAUNCHER" = hcmpirun ] || skip "needs hcmpirun (fake nodes)"
prog=$(mpi_prog_path wildcard_order)
[ -x "$prog" ] || skip "$prog not built"
mpi_launcher_cmd
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
traced=
if command -v strace >/dev/null 2>&1 && strace -f -o /dev/null true 2>/dev/null &&
    [ -z "$HCMPI_TEST_SANITIZED" ]; then
    traced=1
fi
cat >"$work/node.sh" <<WRAP
#!/bin/sh
export HCMPI_NODE_ID=pollable-node-\$((PMI_RANK / 2))
[ -n "$traced" ] || exec "\$@"
exec strace -f -qq -e trace=poll -o "$work/trace.\$PMI_RANK" "\$@"
WRAP
chmod +x "$work/node.sh"

HCMPI_SPIN=0 HCMPI_LOG=debug timeout -k 5 120 "$HCMPIRUN" -n 4 --timeout 100 \
    "$work/node.sh" "$prog" >"$work/out" 2>&1 || { cat "$work/out"; fail "wildcard_order over shm and tcp"; }
grep -q "peer [0-9] via tcp" "$work/out" || { cat "$work/out"; fail "no rank reached a peer over tcp"; }
n=$(grep -c "debug shm: sleeping on the pollable doorbell" "$work/out")
[ "$n" -eq 4 ] || { cat "$work/out"; fail "$n of 4 ranks slept on the pollable doorbell"; }
if [ -n "$traced" ]; then
    for r in 0 1 2 3; do
        both=$(grep -c 'poll(\[{fd=[0-9]*, events=POLLIN}, {fd=[0-9]*, events=POLLIN}\], 2, ' "$work/trace.$r")
        echo "rank $r: $both sleeps polled shm and tcp together"
        [ "$both" -gt 0 ] || fail "rank $r never polled both transports in one sleep"
    done
fi
# Turned off, nobody claims it.
HCMPI_SHM_POLLABLE=0 HCMPI_SPIN=0 HCMPI_LOG=debug timeout -k 5 120 "$HCMPIRUN" -n 4 --timeout 100 \
    "$work/node.sh" "$prog" >"$work/out" 2>&1 || { cat "$work/out"; fail "wildcard_order with HCMPI_SHM_POLLABLE=0"; }
! grep -q "pollable doorbell" "$work/out" || fail "HCMPI_SHM_POLLABLE=0 still used the pollable doorbell"
echo "PASS: shm and tcp share one sleep"
