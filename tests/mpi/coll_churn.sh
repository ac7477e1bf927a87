#!/bin/sh
# tests/mpi/coll_churn.c: communicators duplicated for one collective and
# freed stop making shared-memory segments after two; one that lives on
# makes its segment after HCMPI_COLL_SHM_AFTER (8) collectives, and the
# churn ends with it.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for n in 2 3; do
    run_mpi_ok $n coll_churn
done
