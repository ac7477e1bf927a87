#!/bin/sh
# EZTrace 2.0 from Debian (eztrace, libeztrace0) on hcmpi by relinking:
# its MPI module for MPICH (libeztrace-mpich.so, preloaded by the eztrace
# launcher) defines MPI_Send, mpi_send_, ... and reaches the library's own
# entry points of those names through dlsym(RTLD_NEXT), not through PMPI_
# (tests/pmpi/pmpi.sh covers those), then queries statuses and
# communicators (MPI_Get_count, MPI_Comm_group, MPI_Group_translate_ranks)
# to write an OTF2 trace.
# tests/relink/eztrace_calls.c (point-to-point, blocking, nonblocking and
# persistent; collectives, blocking, nonblocking and vector; communicator
# constructors) and eztrace_calls.f90 (through mpif.h, when MPICH's
# Fortran wrapper and hcmpi's libmpichfort are there) run on 4 ranks under
# eztrace -t mpich, under hcmpirun --relink and under MPICH: the
# programs' outputs and the traces (otf2-print's events per process,
# without timestamps and request addresses) must be equal, and the trace
# must list each call the program makes.  Skips (77) when the packages
# cannot be installed.
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
need_pkg eztrace eztrace
need_pkg otf2-print otf2-tools
command -v mpiexec.mpich >/dev/null 2>&1 || skip "mpiexec.mpich not installed"
cd "$T" || exit 1
mpich_cc eztrace_calls "$top_srcdir/tests/relink/eztrace_calls.c"
programs=eztrace_calls
if command -v mpif90.mpich >/dev/null 2>&1 && [ -e "$ABI_DIR/libmpichfort.so.12" ]; then
    mpif90.mpich -O1 -o eztrace_calls_f "$top_srcdir/tests/relink/eztrace_calls.f90" ||
        fail "mpif90.mpich eztrace_calls.f90"
    programs="$programs eztrace_calls_f"
else
    echo "no mpif90.mpich or no hcmpi libmpichfort.so.12: the Fortran calls are not traced"
fi

# events TRACE: otf2-print's event lines, grouped by process (location)
# in their order, without the timestamp and the request addresses.
events() {
    otf2-print "$1" 2>/dev/null | awk '$2 ~ /^[0-9]+$/ { loc = $2; $2 = ""; $3 = ""; print loc, $0 }' |
        sed -E 's/Request: [0-9]+/Request: R/' | sort -s -k1,1
}

# The ASan runtime a sanitized build's hcmpirun --relink preloads sees
# EZTrace's own unfreed bytes (in the eztrace launcher, which is the rank's
# first program, and in its libraries): leaks allocated through EZTrace's
# code are suppressed.
printf 'leak:libeztrace\nleak:/usr/bin/eztrace\n' >lsan.supp
LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS

for prog in $programs; do
    relink_run 4 eztrace -t mpich -o "hc_$prog" "./$prog" >"hc_$prog.log" 2>&1 ||
        { cat "hc_$prog.log"; fail "$prog under eztrace on hcmpi"; }
    timeout -k 10 120 mpiexec.mpich -n 4 eztrace -t mpich -o "mpich_$prog" "./$prog" \
        >"mpich_$prog.log" 2>&1 || { cat "mpich_$prog.log"; fail "$prog under eztrace on MPICH"; }
    grep '^rank ' "hc_$prog.log" | sort >hc.out
    grep '^rank ' "mpich_$prog.log" | sort >mpich.out
    [ "$(wc -l <hc.out)" -eq 4 ] || { cat "hc_$prog.log"; fail "$prog: not 4 ranks' lines"; }
    cmp hc.out mpich.out || { diff hc.out mpich.out; fail "$prog: output differs from MPICH's"; }
    events "hc_$prog/${prog}_trace/eztrace_log.otf2" >hc.events
    events "mpich_$prog/${prog}_trace/eztrace_log.otf2" >mpich.events
    [ "$(wc -l <hc.events)" -gt 100 ] || { cat hc.events; fail "$prog: the trace is too short"; }
    cmp hc.events mpich.events ||
        { diff hc.events mpich.events | head -20; fail "$prog: the trace differs from MPICH's"; }
    case $prog in
    *_f) prefix=mpi_ suffix=_ calls="send recv allreduce irecv isend wait waitall bcast barrier" ;;
    *) prefix=MPI_ suffix='' calls="Send Recv Allreduce Reduce Irecv Isend Wait Waitall Comm_split
        Bcast Ibarrier Sendrecv Gatherv Scatter Alltoallv Reduce_scatter Scan Iallreduce Ibcast
        Send_init Recv_init Startall Comm_dup Cart_create Cart_sub Intercomm_create
        Intercomm_merge" ;;
    esac
    grep -q '^library hcmpi$' "hc_$prog.log" || fail "$prog did not run on hcmpi"
    for call in $calls; do
        grep -q "ENTER .*Region: \"$prefix$call$suffix\"" hc.events ||
            fail "$prog: the trace has no $call"
    done
    grep -q 'MPI_RECV .*Sender: 0 .*Tag: 5, Length: 12$' hc.events ||
        fail "$prog: no MPI_RECV of 12 bytes from rank 0"
    echo "PASS: $prog under eztrace -t mpich on 4 ranks: $(wc -l <hc.events) events, as on MPICH"
done
