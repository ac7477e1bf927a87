#!/bin/sh
# Groups, communicator construction, intercommunicators, attributes, info
# objects and context-id churn (tests/mpi/{groups,comm_create,intercomm,
# attributes,info_objects,context_ids}.c) on 1, 2, 3, 4, 5 and 8 ranks.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 1 2 3 4 5 8; do
    for prog in groups comm_create intercomm attributes info_objects context_ids; do
        run_mpi_ok $n $prog
    done
done
