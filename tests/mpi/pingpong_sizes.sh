#!/bin/sh
# Runs tests/mpi/pingpong_sizes.c on 2 ranks; see that file for what it asserts.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
run_mpi_ok 2 pingpong_sizes
# Each processor profile's rendezvous (amd: streamed through the cells below
# 4 MiB; intel: CMA from 32 KiB), whichever machine runs the tests.
for profile in amd intel; do
    HCMPI_CPU_PROFILE=$profile run_mpi_ok 2 pingpong_sizes
done
# Every wait sleeps at once (HCMPI_SPIN=0): two ranks on a node with as many
# processors send with the compiler's fence only and sleep after
# membarrier, so a wake-up lost between the two would hang the run; and the
# same with sends that fence each message (HCMPI_SHM_LIGHT_FENCE=0).
for light in 1 0; do
    HCMPI_SPIN=0 HCMPI_SHM_LIGHT_FENCE=$light run_mpi_ok 2 pingpong_sizes
done
# Lone rendezvous of 8-32 KiB read with CMA (intel's HCMPI_SHM_LONE_READ_MIN)
# on a pair never judged contended, and the same streamed (the rule off),
# every wait asleep at once: no wake-up of the read's RTS, CTS or FIN lost.
for lone in 8k 32k; do
    HCMPI_CPU_PROFILE=intel HCMPI_SHM_STREAM_RUNQ_MAX=100 HCMPI_SPIN=0 \
        HCMPI_SHM_LONE_READ_MIN=$lone run_mpi_ok 2 pingpong_sizes
done
# The ranks' HCMPI_SHM_LIGHT_FENCE differ: the node's segment carries local
# rank 0's choice, which decides how every rank sleeps, and a rank sends
# light only where that choice and its own setting allow.  Otherwise a
# light send could meet a sleeper without membarrier and its wake-up be
# lost (a hang here, since every wait sleeps).
# Only where the shm transport runs (tests/tcp/mpi_suite_tcp.sh runs this
# script with every peer over tcp).
case ",${HCMPI_TRANSPORTS:-shm}," in
*,shm,* | *,all,*) ;;
*) echo "mixed light fences: no shm transport (HCMPI_TRANSPORTS=$HCMPI_TRANSPORTS), not asked"; exit 0 ;;
esac
log=$(mktemp)
wrap=$(mktemp)
trap 'rm -f "$log" "$wrap"' EXIT
for first in 1 0; do
    printf '#!/bin/sh\n[ "$PMI_RANK" = 0 ] && f=%s || f=%s\nHCMPI_SHM_LIGHT_FENCE=$f exec "$@"\n' \
        "$first" "$((1 - first))" >"$wrap"
    chmod +x "$wrap"
    HCMPI_SPIN=0 HCMPI_LOG=debug MPI_TEST_WRAP=$wrap run_mpi 2 pingpong_sizes >"$log" 2>&1 ||
        { cat "$log"; fail "mixed light fences (rank 0: $first): job failed"; }
    if [ "$first" = 1 ]; then
        sleepers=membarrier
        want=$(printf 'light\nfenced')
    else
        sleepers="fence only"
        want=$(printf 'fenced\nfenced')
    fi
    got=$(sed -n "s/.*light fences: sleepers $sleepers, sends \([a-z]*\).*/\1/p" "$log" | sort)
    [ "$got" = "$(echo "$want" | sort)" ] ||
        { cat "$log"; fail "mixed light fences (rank 0: $first): sends '$got', want '$want' with sleepers $sleepers"; }
done
echo "mixed light fences: both ranks take local rank 0's choice"
