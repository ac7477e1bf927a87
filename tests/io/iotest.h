/* Helpers of the MPI-IO tests (tests/io), on top of tests/mpi/mpitest.h. */
#ifndef HCMPI_TESTS_IOTEST_H
#define HCMPI_TESTS_IOTEST_H

#include <unistd.h>

#include "../mpi/mpitest.h"

/* A file name under $TMPDIR (default /tmp) that rank 0 makes from name
 * and its pid and every rank of MPI_COMM_WORLD gets. */
static inline void io_test_path(const char *name, char *path, size_t len)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    if (rank == 0)
        snprintf(path, len, "%s/%s.%d", dir, name, (int)getpid());
    MPI_Bcast(path, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
}

#endif
