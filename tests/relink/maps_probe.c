/*
 * Built with MPICH's mpicc by tests/relink/netpipe.sh: passes a token
 * around the ring, then prints every mapped file whose name starts with
 * "libmpi" (libmpi.so.*, libmpich.so.*) or "libhcmpi", so the test can
 * prove which MPI library the process really runs on.  tests/relink/soname.sh
 * links it against libmpi.so.12 and tests/tools/install.sh builds it with
 * the installed hcmpicc.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void probe_ring(int rank, int size) {
  int token = 0;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  if (rank == 0) {
    MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("ring token %d (expect %d)\n", token, size - 1);
  } else {
    MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    token++;
    MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
  }
}

static void probe_maps(int rank) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[4096];
  if (f == NULL) {
    perror("/proc/self/maps");
    return;
  }
  while (fgets(line, sizeof line, f) != NULL) {
    const char *path = strchr(line, '/');
    if (path == NULL)
      continue;
    const char *base = strrchr(path, '/') + 1;
    if (strncmp(base, "libmpi", 6) == 0 || strncmp(base, "libhcmpi", 8) == 0)
      printf("rank %d maps %s", rank, path);
  }
  fclose(f);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1)
    probe_ring(rank, size);
  probe_maps(rank);
  MPI_Finalize();
  return 0;
}
