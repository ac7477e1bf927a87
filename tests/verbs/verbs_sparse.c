/* Queue pairs are made on first use: ranks 2k and 2k+1 exchange an eager
 * and a rendezvous message (bytes checked) and nobody else talks.  Then
 * each rank writes "verbs_sparse: rank R talked" on stderr, where the
 * transport's debug lines go too, and waits for every rank's marker file
 * in the directory argv[1] (a barrier that is not MPI) before
 * MPI_Finalize, whose barrier connects more pairs.  verbs_lazy.sh checks
 * that each rank made exactly one queue pair, toward its partner, before
 * its marker.  Even rank count. */
#include "../mpi/mpitest.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#define BIG (256 * 1024)

static void exchange(int partner, int len, int tag) {
  static unsigned char out[BIG], in[BIG];
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < len; i++)
    out[i] = (unsigned char)(rank * 31 + i * 7 + tag);
  MPI_Status st;
  MPI_Sendrecv(out, len, MPI_BYTE, partner, tag, in, len, MPI_BYTE, partner,
               tag, MPI_COMM_WORLD, &st);
  int got = -1;
  MPI_Get_count(&st, MPI_BYTE, &got);
  CHECK(got == len && st.MPI_SOURCE == partner, "got %d B from %d", got,
        st.MPI_SOURCE);
  for (int i = 0; i < len; i++)
    CHECK(in[i] == (unsigned char)(partner * 31 + i * 7 + tag),
          "byte %d of %d B from %d", i, len, partner);
}

/* Waits (at most 60 s) until dir holds a marker file of every rank. */
static void file_barrier(const char *dir, int rank, int size) {
  char path[4096];
  snprintf(path, sizeof path, "%s/talked-%d", dir, rank);
  int fd = open(path, O_WRONLY | O_CREAT, 0600);
  CHECK(fd >= 0, "cannot create %s", path);
  close(fd);
  for (int r = 0, tries = 0; r < size; tries++) {
    snprintf(path, sizeof path, "%s/talked-%d", dir, r);
    if (access(path, F_OK) == 0) {
      r++;
      continue;
    }
    CHECK(tries < 60000, "rank %d never talked", r);
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size % 2 == 0 && argc == 2,
        "needs an even number of ranks (got %d) and a directory", size);
  exchange(rank ^ 1, 100, 1);
  exchange(rank ^ 1, BIG, 2);
  fprintf(stderr, "verbs_sparse: rank %d talked\n", rank);
  fflush(stderr);
  file_barrier(argv[1], rank, size);
  MPI_Finalize();
  return 0;
}
