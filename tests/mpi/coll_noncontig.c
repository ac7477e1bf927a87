/* The blocking Bcast, Gather and Allgather move non-contiguous datatypes:
 * a strided vector on one side and a contiguous run on the other, checked
 * element by element (the stride gaps must stay untouched); then a Bcast
 * large enough to move in chunks. */
#include "mpitest.h"

#define N 1000 /* elements per rank */
#define STRIDE 3
#define GAP_VALUE -7

static int value_of(int rank, int i) { return rank * 100000 + i; }

static void fill_strided(int *buf, int rank) {
  for (int i = 0; i < N * STRIDE; i++)
    buf[i] = GAP_VALUE;
  for (int i = 0; i < N; i++)
    buf[i * STRIDE] = value_of(rank, i);
}

static void check_strided(const int *buf, int rank, const char *what) {
  for (int i = 0; i < N * STRIDE; i++) {
    int want = i % STRIDE == 0 ? value_of(rank, i / STRIDE) : GAP_VALUE;
    CHECK(buf[i] == want, "%s: element %d is %d, expected %d", what, i, buf[i],
          want);
  }
}

/* A Bcast of 6 MiB + 12 bytes (past the chunked path's 4 MiB): the root
 * and even ranks use a stride-2 vector, odd ranks a contiguous run, so
 * packed chunks, slices of a dense buffer and a chunk boundary inside the
 * data all meet.  Every element and every gap is checked. */
static void big_bcast(int rank, int size) {
  const int n = (6 << 20) / (int)sizeof(int) + 3;
  MPI_Datatype vec;
  MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int root = size - 1, strided = rank == root || rank % 2 == 0;
  size_t len = strided ? 2 * (size_t)n : (size_t)n;
  int *buf = mt_malloc(sizeof(int) * len);
  for (size_t i = 0; i < len; i++)
    buf[i] =
        rank == root && i % 2 == 0 ? value_of(root, (int)(i / 2)) : GAP_VALUE;
  int rc = strided ? MPI_Bcast(buf, 1, vec, root, MPI_COMM_WORLD)
                   : MPI_Bcast(buf, n, MPI_INT, root, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS, "big bcast: %s", mt_errstr(rc));
  for (size_t i = 0; i < len; i++) {
    int want = !strided     ? value_of(root, (int)i)
               : i % 2 == 0 ? value_of(root, (int)(i / 2))
                            : GAP_VALUE;
    CHECK(buf[i] == want, "big bcast (%s) [%zu] = %d, want %d",
          strided ? "vector" : "contiguous", i, buf[i], want);
  }
  free(buf);
  MPI_Type_free(&vec);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype strided;
  MPI_Type_vector(N, 1, STRIDE, MPI_INT, &strided);
  MPI_Type_commit(&strided);

  /* Bcast: root sends strided; everybody receives strided. */
  int *sbuf = mt_malloc(sizeof(int) * N * STRIDE);
  int root = size - 1;
  if (rank == root)
    fill_strided(sbuf, root);
  else
    for (int i = 0; i < N * STRIDE; i++)
      sbuf[i] = GAP_VALUE;
  CHECK(MPI_Bcast(sbuf, 1, strided, root, MPI_COMM_WORLD) == MPI_SUCCESS,
        "MPI_Bcast failed");
  check_strided(sbuf, root, "bcast");

  /* Gather: each rank sends its strided vector; root gets contiguous runs. */
  fill_strided(sbuf, rank);
  int *all = mt_malloc(sizeof(int) * N * (size_t)size);
  CHECK(MPI_Gather(sbuf, 1, strided, all, N, MPI_INT, 0, MPI_COMM_WORLD) ==
            MPI_SUCCESS,
        "MPI_Gather failed");
  if (rank == 0)
    for (int r = 0; r < size; r++)
      for (int i = 0; i < N; i++)
        CHECK(all[r * N + i] == value_of(r, i), "gather: rank %d elem %d", r,
              i);

  /* Allgather: contiguous send, strided receive blocks (one per rank). */
  int *mine = mt_malloc(sizeof(int) * N);
  for (int i = 0; i < N; i++)
    mine[i] = value_of(rank, i);
  int *strided_all = mt_malloc(sizeof(int) * N * STRIDE * (size_t)size);
  for (size_t i = 0; i < (size_t)N * STRIDE * (size_t)size; i++)
    strided_all[i] = GAP_VALUE;
  MPI_Datatype block;
  MPI_Type_create_resized(strided, 0, (MPI_Aint)(sizeof(int) * N * STRIDE),
                          &block);
  MPI_Type_commit(&block);
  CHECK(MPI_Allgather(mine, N, MPI_INT, strided_all, 1, block,
                      MPI_COMM_WORLD) == MPI_SUCCESS,
        "MPI_Allgather failed");
  for (int r = 0; r < size; r++)
    check_strided(strided_all + (size_t)r * N * STRIDE, r, "allgather");

  big_bcast(rank, size);

  MPI_Type_free(&block);
  MPI_Type_free(&strided);
  free(sbuf);
  free(all);
  free(mine);
  free(strided_all);
  MPI_Finalize();
  return 0;
}
