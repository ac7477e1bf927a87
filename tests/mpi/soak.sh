#!/bin/sh
# Soak: tests/mpi/soak.c on 8 ranks held to 2 cores (taskset, where there
# are 2 or more), SOAK_ROUNDS rounds (default 150: about 10-40 s).  Every
# message is checked; the program prints messages and bytes moved.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
if command -v taskset >/dev/null 2>&1 && [ "$(nproc 2>/dev/null || echo 1)" -ge 2 ]; then
    taskset -cp 0,1 $$ >/dev/null || skip "taskset failed"
fi
run_mpi_ok 8 soak "${SOAK_ROUNDS:-150}"
