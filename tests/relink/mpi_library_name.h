/* For the MPICH-built programs of tests/relink: prints PREFIX and the first
 * word of MPI_Get_library_version's text ("hcmpi", "MPICH"), so that a
 * script can tell which library a run really used. */
#ifndef HC_TESTS_RELINK_MPI_LIBRARY_NAME_H
#define HC_TESTS_RELINK_MPI_LIBRARY_NAME_H
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void print_mpi_library_name(const char *prefix) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length;
  MPI_Get_library_version(version, &length);
  version[strcspn(version, " \n")] = '\0';
  printf("%s%s\n", prefix, version);
}
#endif
