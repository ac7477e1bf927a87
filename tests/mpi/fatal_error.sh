#!/bin/sh
# tests/mpi/fatal_error.c on 4 ranks, once per mistake, under the default
# MPI_ERRORS_ARE_FATAL.  hcmpi: the job's status is the error class, stderr
# holds exactly once the whole line naming the call, the argument, its value
# (and for a rank the communicator's size), and hcmpirun reports rank 0's
# abort.  MPICH spreads its error stack over several lines, so there only a
# non-zero status and the call's name are checked.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT

fatal_case() { # MODE CALL CLASS LINE
    run_mpi 4 fatal_error "$1" >"$out" 2>&1
    rc=$?
    cat "$out"
    [ $rc -eq 77 ] && exit 77
    [ $rc -ne 0 ] || fail "$1: job exited 0 after a fatal $2 error"
    grep -q "FAIL rank" "$out" && fail "$1: $2 returned instead of aborting"
    if [ "$MPI_TEST_LAUNCHER" = hcmpirun ]; then
        [ $rc -eq "$3" ] || fail "$1: job status $rc, want the error class $3"
        n=$(grep -cFx "hcmpi: abort (code $3): $4" "$out")
        [ "$n" -eq 1 ] || fail "$1: the line \"hcmpi: abort (code $3): $4\" appears $n times, want 1"
        grep -qFx "hcmpirun: rank 0 aborted with exit code $3" "$out" ||
            fail "$1: hcmpirun did not report rank 0's abort"
    else
        grep -q "$2" "$out" || fail "$1: no message naming $2"
    fi
    echo "fatal_error $1: job ended with status $rc and the expected message"
}

fatal_case rank MPI_Send 6 "MPI_Send: invalid rank 4 for a communicator of size 4 (MPI_ERR_RANK)"
fatal_case count MPI_Isend 2 "MPI_Isend: invalid count -3 (MPI_ERR_COUNT)"
fatal_case type MPI_Recv 3 "MPI_Recv: invalid datatype MPI_DATATYPE_NULL (MPI_ERR_TYPE)"
fatal_case uncommitted MPI_Send 3 "MPI_Send: datatype 0x8c000005 is not committed (MPI_ERR_TYPE)"
fatal_case op MPI_Reduce_local 9 "MPI_Reduce_local: op MPI_OP_NULL on datatype 0x4c000405 (MPI_ERR_OP)"
fatal_case group MPI_Group_size 8 "MPI_Group_size: invalid group MPI_GROUP_NULL (MPI_ERR_GROUP)"
fatal_case too_large MPI_Type_vector 12 "MPI_Type_vector: datatype too large: its size or extent does not fit in MPI_Aint (MPI_ERR_ARG)"
