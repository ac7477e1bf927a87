/* MPI_Isendrecv and MPI_Isendrecv_replace: each completes as one request
 * whose status is the receive's (source, tag, count); the bytes that
 * arrive are the neighbour's, for small, large (rendezvous) and
 * non-contiguous messages; the matching side may be a plain MPI_Recv /
 * MPI_Send; MPI_PROC_NULL on either side or both; the message already
 * there when the call starts; several outstanding at once,
 * completed by Waitall and by a Test loop; freed while in flight, their
 * bytes still land; bad input gets its class. */
#include "mpitest.h"

static int rank, size;

static unsigned char pattern(int from, int seed, size_t i) {
  return (unsigned char)(from * 31 + seed * 7 + (int)(i % 251));
}

static void ring_isendrecv(size_t n, int seed) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  unsigned char *out = malloc(n + 1), *in = malloc(n + 1);
  for (size_t i = 0; i < n; i++)
    out[i] = pattern(rank, seed, i);
  memset(in, 0, n + 1);
  MPI_Request req;
  int rc = MPI_Isendrecv(out, (int)n, MPI_BYTE, right, seed, in, (int)n + 1,
                         MPI_BYTE, left, seed, MPI_COMM_WORLD, &req);
  CHECK(rc == MPI_SUCCESS, "isendrecv %zu: %s", n, mt_errstr(rc));
  MPI_Status st;
  MPI_Wait(&req, &st);
  int count = -1;
  MPI_Get_count(&st, MPI_BYTE, &count);
  CHECK(req == MPI_REQUEST_NULL, "request not freed");
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == seed && count == (int)n,
        "status source %d tag %d count %d, want %d %d %zu", st.MPI_SOURCE,
        st.MPI_TAG, count, left, seed, n);
  for (size_t i = 0; i < n; i++)
    CHECK(in[i] == pattern(left, seed, i), "%zu bytes: byte %zu is %d", n, i,
          in[i]);
  free(out);
  free(in);
}

static void ring_replace(size_t n, int seed) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  unsigned char *buf = malloc(n + 1);
  for (size_t i = 0; i < n; i++)
    buf[i] = pattern(rank, seed, i);
  MPI_Request req;
  int rc = MPI_Isendrecv_replace(buf, (int)n, MPI_BYTE, right, seed, left,
                                 MPI_ANY_TAG, MPI_COMM_WORLD, &req);
  CHECK(rc == MPI_SUCCESS, "isendrecv_replace %zu: %s", n, mt_errstr(rc));
  MPI_Status st;
  int flag = 0;
  while (!flag)
    MPI_Test(&req, &flag, &st);
  int count = -1;
  MPI_Get_count(&st, MPI_BYTE, &count);
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == seed && count == (int)n,
        "replace status source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG,
        count);
  for (size_t i = 0; i < n; i++)
    CHECK(buf[i] == pattern(left, seed, i), "replace %zu: byte %zu is %d", n, i,
          buf[i]);
  free(buf);
}

/* Every other int of a vector goes, and lands every other int. */
static void strided(int replace) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  enum { K = 1000 };
  MPI_Datatype vec;
  MPI_Type_vector(K, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int *a = malloc(sizeof(int) * 2 * K), *b = malloc(sizeof(int) * 2 * K);
  for (int i = 0; i < 2 * K; i++) {
    a[i] = i % 2 ? -1 : rank * 100000 + i;
    b[i] = -7;
  }
  MPI_Request req;
  MPI_Status st;
  if (replace)
    MPI_Isendrecv_replace(a, 1, vec, right, 3, left, 3, MPI_COMM_WORLD, &req);
  else
    MPI_Isendrecv(a, 1, vec, right, 3, b, 1, vec, left, 3, MPI_COMM_WORLD,
                  &req);
  MPI_Wait(&req, &st);
  int *got = replace ? a : b;
  for (int i = 0; i < 2 * K; i++) {
    int want = i % 2 ? (replace ? -1 : -7) : left * 100000 + i;
    CHECK(got[i] == want, "strided%s: [%d] = %d, want %d",
          replace ? " replace" : "", i, got[i], want);
  }
  int count = -1;
  MPI_Get_count(&st, vec, &count);
  CHECK(count == 1, "strided count %d", count);
  MPI_Type_free(&vec);
  free(a);
  free(b);
}

/* The other side uses plain blocking calls: rank 0 pairs with rank 1. */
static void with_plain_peer(void) {
  if (size < 2 || rank > 1)
    return;
  int peer = 1 - rank, mine = 40 + rank, got = -1;
  if (rank == 0) {
    MPI_Request req;
    MPI_Status st;
    MPI_Isendrecv(&mine, 1, MPI_INT, peer, 8, &got, 1, MPI_INT, peer, 9,
                  MPI_COMM_WORLD, &req);
    MPI_Wait(&req, &st);
    CHECK(got == 41 && st.MPI_SOURCE == 1 && st.MPI_TAG == 9, "plain peer %d",
          got);
  } else {
    MPI_Recv(&got, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&mine, 1, MPI_INT, peer, 9, MPI_COMM_WORLD);
    CHECK(got == 40, "plain side got %d", got);
  }
}

static void proc_null(void) {
  int x = 5, y = 6;
  MPI_Request req;
  MPI_Status st;
  MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, &y, 1, MPI_INT, MPI_PROC_NULL,
                1, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, &st);
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(y == 6 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG &&
            count == 0,
        "proc_null: y %d source %d tag %d count %d", y, st.MPI_SOURCE,
        st.MPI_TAG, count);
  MPI_Isendrecv_replace(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1,
                        MPI_COMM_WORLD, &req);
  MPI_Wait(&req, &st);
  CHECK(x == 5 && st.MPI_SOURCE == MPI_PROC_NULL, "replace proc_null: %d", x);
}

/* One side MPI_PROC_NULL, the other a neighbour: a request that only
 * sends and one that only receives (the receive lands straight in the
 * replace form's buffer), small and rendezvous-sized; the receiving one
 * reports the sender, the sending one the null status. */
static void one_sided(size_t n, int seed) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  unsigned char *out = malloc(n + 1), *in = malloc(n + 1);
  unsigned char *rep = malloc(n + 1), *keep = malloc(n + 1);
  for (size_t i = 0; i < n; i++) {
    out[i] = pattern(rank, seed, i);
    keep[i] = pattern(rank, seed + 1, i);
  }
  memset(in, 0, n + 1);
  memset(rep, 0, n + 1);
  MPI_Request r[4];
  MPI_Status st[4];
  /* Receive-only first, so both orders of post and arrival occur. */
  MPI_Isendrecv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, seed, in, (int)n + 1,
                MPI_BYTE, left, seed, MPI_COMM_WORLD, &r[0]);
  MPI_Isendrecv(out, (int)n, MPI_BYTE, right, seed, NULL, 0, MPI_BYTE,
                MPI_PROC_NULL, seed, MPI_COMM_WORLD, &r[1]);
  MPI_Isendrecv_replace(keep, (int)n, MPI_BYTE, right, seed + 1, MPI_PROC_NULL,
                        seed + 1, MPI_COMM_WORLD, &r[2]);
  MPI_Isendrecv_replace(rep, (int)n, MPI_BYTE, MPI_PROC_NULL, seed + 1, left,
                        seed + 1, MPI_COMM_WORLD, &r[3]);
  MPI_Waitall(4, r, st);
  int c0 = -1, c3 = -1, c1 = -1;
  MPI_Get_count(&st[0], MPI_BYTE, &c0);
  MPI_Get_count(&st[3], MPI_BYTE, &c3);
  MPI_Get_count(&st[1], MPI_BYTE, &c1);
  CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == seed && c0 == (int)n,
        "one-sided %zu: receive status %d/%d/%d", n, st[0].MPI_SOURCE,
        st[0].MPI_TAG, c0);
  CHECK(st[3].MPI_SOURCE == left && st[3].MPI_TAG == seed + 1 && c3 == (int)n,
        "one-sided replace %zu: receive status %d/%d/%d", n, st[3].MPI_SOURCE,
        st[3].MPI_TAG, c3);
  CHECK(st[1].MPI_SOURCE == MPI_PROC_NULL && st[1].MPI_TAG == MPI_ANY_TAG &&
            c1 == 0,
        "one-sided %zu: send-only status %d/%d/%d", n, st[1].MPI_SOURCE,
        st[1].MPI_TAG, c1);
  for (size_t i = 0; i < n; i++) {
    CHECK(in[i] == pattern(left, seed, i), "one-sided %zu: byte %zu is %d", n,
          i, in[i]);
    CHECK(rep[i] == pattern(left, seed + 1, i),
          "one-sided replace %zu: byte %zu is %d", n, i, rep[i]);
    CHECK(keep[i] == pattern(rank, seed + 1, i),
          "one-sided replace %zu: sent buffer changed at %zu", n, i);
  }
  CHECK(in[n] == 0 && rep[n] == 0, "one-sided %zu: wrote past the message", n);
  free(out);
  free(in);
  free(rep);
  free(keep);
}

/* The message to receive is already here when the call starts (a plain
 * MPI_Send before a barrier): the request still reports it. */
static void arrived_first(void) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int early = 700 + rank, mine = 800 + rank, got = -1, later = -1, rep = -1;
  MPI_Send(&early, 1, MPI_INT, right, 50, MPI_COMM_WORLD);
  MPI_Send(&early, 1, MPI_INT, right, 52, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Request req;
  MPI_Status st;
  MPI_Isendrecv(&mine, 1, MPI_INT, right, 51, &got, 1, MPI_INT, left, 50,
                MPI_COMM_WORLD, &req);
  MPI_Wait(&req, &st);
  CHECK(got == 700 + left && st.MPI_SOURCE == left && st.MPI_TAG == 50,
        "arrived first: got %d from %d tag %d", got, st.MPI_SOURCE, st.MPI_TAG);
  rep = mine;
  MPI_Isendrecv_replace(&rep, 1, MPI_INT, right, 53, left, 52, MPI_COMM_WORLD,
                        &req);
  MPI_Wait(&req, &st);
  CHECK(rep == 700 + left && st.MPI_TAG == 52, "arrived first replace: %d",
        rep);
  MPI_Recv(&later, 1, MPI_INT, left, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(later == 800 + left, "arrived first: the send took %d", later);
  MPI_Recv(&later, 1, MPI_INT, left, 53, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(later == 800 + left, "arrived first replace: the send took %d", later);
}

/* Several at once, in both directions, completed together. */
static void many(void) {
  enum { M = 8 };
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[M], in[M];
  MPI_Request r[M];
  MPI_Status st[M];
  for (int k = 0; k < M; k++) {
    out[k] = rank * 1000 + k;
    in[k] = -1;
    int to = k % 2 ? left : right, from = k % 2 ? right : left;
    MPI_Isendrecv(&out[k], 1, MPI_INT, to, 20 + k, &in[k], 1, MPI_INT, from,
                  20 + k, MPI_COMM_WORLD, &r[k]);
  }
  MPI_Waitall(M, r, st);
  for (int k = 0; k < M; k++) {
    int from = k % 2 ? right : left;
    CHECK(in[k] == from * 1000 + k && st[k].MPI_SOURCE == from &&
              st[k].MPI_TAG == 20 + k,
          "many[%d]: %d from %d tag %d", k, in[k], st[k].MPI_SOURCE,
          st[k].MPI_TAG);
  }
}

static void bad_input(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int x = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPI_Isendrecv(&x, 1, MPI_INT, size, 0, &x, 1, MPI_INT, 0, 0,
                         MPI_COMM_WORLD, &req);
  CHECK(mt_class(rc) == MPI_ERR_RANK, "dest out of range: %s", mt_errstr(rc));
  rc = MPI_Isendrecv(&x, -1, MPI_INT, 0, 0, &x, 1, MPI_INT, 0, 0,
                     MPI_COMM_WORLD, &req);
  CHECK(mt_class(rc) == MPI_ERR_COUNT, "negative count: %s", mt_errstr(rc));
  rc = MPI_Isendrecv_replace(&x, 1, MPI_DATATYPE_NULL, 0, 0, 0, 0,
                             MPI_COMM_WORLD, &req);
  CHECK(mt_class(rc) == MPI_ERR_TYPE, "null type: %s", mt_errstr(rc));
  rc = MPI_Isendrecv_replace(&x, 1, MPI_INT, 0, 0, 0, 0, MPI_COMM_NULL, &req);
  CHECK(mt_class(rc) == MPI_ERR_COMM, "null comm: %s", mt_errstr(rc));
  rc = MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD,
                     NULL);
  CHECK(rc != MPI_SUCCESS, "NULL request accepted");
}

/* Freed while in flight (MPI_Request_free): each operation still
 * completes (its engine request, kept in the freed request's slot, stays
 * until then) and its bytes land; new requests that reuse the slots carry
 * their own data and status. */
static void freed_in_flight(void) {
  enum { N = 100 };
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  static int out[N];
  static volatile int in[N];
  for (int i = 0; i < N; i++) {
    out[i] = rank * 1000 + i;
    in[i] = -1;
    MPI_Request req;
    int rc = MPI_Isendrecv(&out[i], 1, MPI_INT, right, 40, (void *)&in[i], 1,
                           MPI_INT, left, 40, MPI_COMM_WORLD, &req);
    CHECK(rc == MPI_SUCCESS, "freed isendrecv %d: %s", i, mt_errstr(rc));
    rc = MPI_Request_free(&req);
    CHECK(rc == MPI_SUCCESS && req == MPI_REQUEST_NULL, "request_free %d: %s",
          i, mt_errstr(rc));
  }
  /* Nothing to wait on: drive progress until every byte is there (the
   * test's time bound catches an operation that never ends). */
  for (int i = 0; i < N;) {
    if (in[i] == left * 1000 + i) {
      i++;
      continue;
    }
    CHECK(in[i] == -1, "freed isendrecv %d got %d", i, in[i]);
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  }
  ring_isendrecv(100, 41);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t sizes[] = {0, 1, 100, 70000, 1 << 20};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    ring_isendrecv(sizes[k], (int)k + 1);
    ring_replace(sizes[k], (int)k + 11);
  }
  strided(0);
  strided(1);
  with_plain_peer();
  proc_null();
  one_sided(16, 60);
  one_sided(100000, 62);
  arrived_first();
  many();
  freed_in_flight();
  bad_input();
  MPI_Finalize();
  return 0;
}
