/* The one assertion of the device tests that are MPI programs: a failed
 * CHECK names the rank and the line, then ends the whole job so no rank
 * waits for the one that failed.  CHECK reads the including file's rank. */
#ifndef HCMPI_TESTS_DEVICE_MPI_CHECK_H
#define HCMPI_TESTS_DEVICE_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>

static inline void dev_check_at(int ok, const char *what, int rank, int line) {
  if (ok)
    return;
  fprintf(stderr, "rank %d: FAILED %s (line %d)\n", rank, what, line);
  MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond) dev_check_at((cond), #cond, rank, __LINE__)

#endif
