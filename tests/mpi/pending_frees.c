/* Handles freed while operations that use them are pending (MPI 4.0 sec.
 * 2.5.1: "freeing" an object only marks it; the operation keeps it alive).
 * Each case frees the user op, the derived datatype or the communicator
 * between the start of a non-blocking operation and its completion, and
 * then checks the bytes that arrived:
 *   - MPI_Ireduce / MPI_Iallreduce with a user op freed by MPI_Op_free
 *     before MPI_Wait (the op must still be called, and correctly);
 *   - MPI_Iallreduce with a user op on a derived (vector) type, the op, the
 *     type and the communicator all freed before the wait;
 *   - MPI_Igather into a non-contiguous receive type freed before the wait;
 *   - MPI_Isend / MPI_Irecv of a strided type freed before the wait, both
 *     below and above the size where the engine packs fragment by fragment;
 *   - MPI_Request_free of such a send, with its type freed too;
 *   - persistent requests whose datatype and communicator were freed
 *     before the first MPI_Start.
 * Runs on any number of ranks >= 2 (pairs rank 0 and rank 1 for the
 * point-to-point cases). */
#include "mpitest.h"

static int op_calls;

/* inout[i] = in[i] + inout[i] + 1: associative, and unlike MPI_SUM, so
 * a result can only come from this function. */
static void plus_one(void *in, void *inout, int *len, MPI_Datatype *type) {
  /* Our gappy type holds two ints (the first and third of three) per
   * element; MPI_INT one. */
  int gappy = *type != MPI_INT;
  const int *a = in;
  int *b = inout;
  for (int i = 0; i < *len; i++)
    for (int k = 0; k < (gappy ? 2 : 1); k++) {
      int at = gappy ? 3 * i + 2 * k : i;
      b[at] = a[at] + b[at] + 1;
    }
  op_calls++;
}

/* plus_one over every rank's rank * 10 + i. */
static long expected(int size, int i) {
  return 10L * size * (size - 1) / 2 + (long)size * i + (size - 1);
}

static void ireduce_op_freed(MPI_Comm comm, int rank, int size) {
  enum { N = 64 };
  int send[N], recv[N];
  MPI_Op op;
  MPI_Request req[2];
  for (int i = 0; i < N; i++)
    send[i] = rank * 10 + i;
  MPI_Op_create(plus_one, 0, &op);
  op_calls = 0;
  MPI_Ireduce(send, recv, N, MPI_INT, op, 0, comm, &req[0]);
  MPI_Op_free(&op);
  CHECK(op == MPI_OP_NULL, "MPI_Op_free did not reset the handle");
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  if (rank == 0)
    for (int i = 0; i < N; i++) {
      long want = expected(size, i);
      CHECK(recv[i] == want, "Ireduce[%d] = %d, want %ld", i, recv[i], want);
    }
  if (size > 1 && rank == 0)
    CHECK(op_calls > 0, "the freed op was never called at the root");

  /* Iallreduce, op freed while two are pending. */
  int all[N];
  MPI_Op_create(plus_one, 0, &op);
  MPI_Iallreduce(send, all, N, MPI_INT, op, comm, &req[0]);
  MPI_Ibarrier(comm, &req[1]);
  MPI_Op_free(&op);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  for (int i = 0; i < N; i++) {
    long want = expected(size, i);
    CHECK(all[i] == want, "Iallreduce[%d] = %d, want %ld", i, all[i], want);
  }
}

/* Two ints, one gap: extent 3 ints (size != extent: a packed view). */
static MPI_Datatype make_gappy(void) {
  MPI_Datatype vec, t;
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, 3 * (MPI_Aint)sizeof(int), &t);
  MPI_Type_free(&vec);
  MPI_Type_commit(&t);
  return t;
}

static void iallreduce_all_freed(int rank, int size) {
  enum { N = 40 };
  int send[3 * N], recv[3 * N];
  MPI_Comm dup;
  MPI_Op op;
  MPI_Request req;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Datatype t = make_gappy();
  for (int i = 0; i < 3 * N; i++) {
    send[i] = rank * 10 + i;
    recv[i] = -7;
  }
  MPI_Op_create(plus_one, 0, &op);
  MPI_Iallreduce(send, recv, N, t, op, dup, &req);
  MPI_Op_free(&op);
  MPI_Type_free(&t);
  MPI_Comm_free(&dup);
  CHECK(dup == MPI_COMM_NULL && t == MPI_DATATYPE_NULL, "handles not reset");
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  /* Only the type's data: a user op reduces whole extents in place. */
  for (int i = 0; i < 3 * N; i++) {
    long want = expected(size, i);
    CHECK(i % 3 == 1 || recv[i] == want,
          "Iallreduce(vector)[%d] = %d, want %ld", i, recv[i], want);
  }
}

/* Every rank sends 2 ints; the root receives them into a strided type. */
static void igather_type_freed(int rank, int size) {
  MPI_Datatype t = make_gappy();
  int send[2] = {rank * 100 + 1, rank * 100 + 2};
  int *recv = mt_malloc((size_t)size * 3 * sizeof(int));
  for (int i = 0; i < 3 * size; i++)
    recv[i] = -1;
  MPI_Request req;
  MPI_Igather(send, 2, MPI_INT, recv, 1, t, 0, MPI_COMM_WORLD, &req);
  MPI_Type_free(&t);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  if (rank == 0)
    for (int r = 0; r < size; r++) {
      CHECK(recv[3 * r] == r * 100 + 1 && recv[3 * r + 2] == r * 100 + 2,
            "gathered block %d = {%d, %d}", r, recv[3 * r], recv[3 * r + 2]);
      CHECK(recv[3 * r + 1] == -1, "gap of block %d written", r);
    }
  free(recv);
}

/* Rank 0 sends n gappy elements to rank 1; both free the type at once. */
static void pt2pt_type_freed(int rank, int n, int free_request) {
  if (rank > 1)
    return;
  int *buf = mt_malloc((size_t)n * 3 * sizeof(int));
  MPI_Datatype t = make_gappy();
  MPI_Request req;
  for (int i = 0; i < 3 * n; i++)
    buf[i] = rank == 0 ? i ^ 0x5a5a : -1;
  if (rank == 0)
    MPI_Isend(buf, n, t, 1, 7, MPI_COMM_WORLD, &req);
  else
    MPI_Irecv(buf, n, t, 0, 7, MPI_COMM_WORLD, &req);
  MPI_Type_free(&t);
  if (rank == 0 && free_request) {
    MPI_Request_free(&req);
    CHECK(req == MPI_REQUEST_NULL, "Request_free did not reset the handle");
    /* The send completes before the receiver's ack, so the buffer is
     * not reused until then. */
    int ack = 0;
    MPI_Recv(&ack, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(ack == n, "ack %d, want %d", ack, n);
  } else {
    MPI_Status st;
    MPI_Wait(&req, &st);
    if (rank == 1)
      CHECK(mt_status_count(&st, MPI_INT) == 2 * n, "count %d, want %d",
            mt_status_count(&st, MPI_INT), 2 * n);
  }
  if (rank == 1) {
    for (int i = 0; i < 3 * n; i++) {
      int want = i % 3 == 1 ? -1 : i ^ 0x5a5a;
      CHECK(buf[i] == want, "n=%d: int %d = %d, want %d", n, i, buf[i], want);
    }
    if (free_request)
      MPI_Send(&n, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
  }
  free(buf);
}

/* Persistent requests keep their datatype and communicator from
 * MPI_Send_init / MPI_Recv_init on: both are freed before the first
 * MPI_Start, and two rounds still move the right bytes. */
static void persistent_type_freed(int rank) {
  enum { N = 300 };
  int buf[3 * N];
  MPI_Comm dup;
  MPI_Request req;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  if (rank > 1) {
    MPI_Comm_free(&dup);
    return;
  }
  MPI_Datatype t = make_gappy();
  if (rank == 0)
    MPI_Send_init(buf, N, t, 1, 9, dup, &req);
  else
    MPI_Recv_init(buf, N, t, 0, 9, dup, &req);
  MPI_Type_free(&t);
  MPI_Comm_free(&dup);
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < 3 * N; i++)
      buf[i] = rank == 0 ? i * 7 + round : -1;
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; rank == 1 && i < 3 * N; i++) {
      int want = i % 3 == 1 ? -1 : i * 7 + round;
      CHECK(buf[i] == want, "round %d: int %d = %d, want %d", round, i, buf[i],
            want);
    }
  }
  MPI_Request_free(&req);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 or more ranks");
  ireduce_op_freed(MPI_COMM_WORLD, rank, size);
  iallreduce_all_freed(rank, size);
  igather_type_freed(rank, size);
  /* 1 000 elements stage through one temporary; 100 000 (800 kB packed)
   * are packed and unpacked by the engine fragment by fragment. */
  pt2pt_type_freed(rank, 1000, 0);
  pt2pt_type_freed(rank, 100000, 0);
  pt2pt_type_freed(rank, 1000, 1);
  pt2pt_type_freed(rank, 100000, 1);
  persistent_type_freed(rank);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0)
    printf("pending_frees: ok on %d ranks\n", size);
  return 0;
}
