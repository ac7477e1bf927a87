/* Duplications of different communicators that the ranks start in crossed
 * orders complete, and each result is a working communicator of its own.
 *
 * threads: under MPI_THREAD_MULTIPLE rank 0 has one thread in
 *   MPI_Comm_dup(A), waiting for rank 1, and then another thread in
 *   MPI_Comm_dup(B) followed by a send to rank 1; rank 1 has one thread in
 *   MPI_Comm_dup(B) and another in a blocking MPI_Recv of that send, which
 *   joins the dup of A only after it.  The dup of B at rank 0 must not wait
 *   for the dup of A in its process (which would wait for rank 1's receive,
 *   which waits for the dup of B).  The same with a dup of MPI_COMM_SELF in
 *   place of B at rank 0 (a creation nobody else takes part in).
 * idups: rank 0 starts MPI_Comm_idup(A), then MPI_Comm_idup(B), waits for
 *   B and sends to rank 1, which starts its idup of A only after that
 *   message: the pending idup of A must not keep B's from completing.
 *
 * Rank 0 delays its second creation a little so that it starts while the
 * first waits; the checks do not depend on how long. */
#include <pthread.h>
#include <time.h>

#include "mpitest.h"

#define ROUNDS 3
#define TAG_TOKEN 11

static int rank, size;
static MPI_Comm comm_a, comm_b;

/* comm is a congruent copy of parent with a context of its own: the same
 * tag on parent and on comm reaches the matching receive of each. */
static void check_copy(MPI_Comm parent, MPI_Comm comm, int seed,
                       const char *what) {
  int result = -1, n = 0, r = -1;
  MPI_Comm_compare(parent, comm, &result);
  CHECK(result == MPI_CONGRUENT, "%s: compare = %d", what, result);
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &r);
  int mine = r + seed, sum = -1;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comm);
  CHECK(sum == n * (n - 1) / 2 + n * seed, "%s: allreduce = %d", what, sum);
  int right = (r + 1) % n, left = (r + n - 1) % n;
  int on_parent = -1, on_copy = -1, a = 1000 + seed, b = 2000 + seed;
  MPI_Request q[4];
  MPI_Irecv(&on_copy, 1, MPI_INT, left, 5, comm, &q[0]);
  MPI_Irecv(&on_parent, 1, MPI_INT, left, 5, parent, &q[1]);
  MPI_Isend(&a, 1, MPI_INT, right, 5, parent, &q[2]);
  MPI_Isend(&b, 1, MPI_INT, right, 5, comm, &q[3]);
  MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
  CHECK(on_parent == a && on_copy == b, "%s: parent got %d, copy got %d", what,
        on_parent, on_copy);
}

static void pause_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

typedef struct job {
  int use_self; /* rank 0's second creation dups MPI_COMM_SELF, not B */
  int round;
  MPI_Comm a_dup, b_dup; /* results, checked by the main thread */
} job_t;

/* The dup of A: rank 1 joins only once rank 0's second creation is done. */
static void *dup_a(void *arg) {
  job_t *j = arg;
  if (rank == 1) {
    int token = -1;
    MPI_Status st;
    int rc = MPI_Recv(&token, 1, MPI_INT, 0, TAG_TOKEN, MPI_COMM_WORLD, &st);
    CHECK(rc == MPI_SUCCESS && token == j->round && st.MPI_SOURCE == 0,
          "round %d: token %d from %d (%s)", j->round, token, st.MPI_SOURCE,
          mt_errstr(rc));
  }
  int rc = MPI_Comm_dup(comm_a, &j->a_dup);
  CHECK(rc == MPI_SUCCESS, "dup of A: %s", mt_errstr(rc));
  return NULL;
}

/* The other creation; at rank 0 it starts while the dup of A waits, and
 * the token it sends afterwards is what rank 1 waits for. */
static void *dup_b(void *arg) {
  job_t *j = arg;
  MPI_Comm self_dup = MPI_COMM_NULL;
  if (rank == 0) {
    pause_ms(200);
    if (j->use_self) {
      int rc = MPI_Comm_dup(MPI_COMM_SELF, &self_dup);
      CHECK(rc == MPI_SUCCESS, "dup of self: %s", mt_errstr(rc));
    }
  }
  if (!j->use_self) {
    int rc = MPI_Comm_dup(comm_b, &j->b_dup);
    CHECK(rc == MPI_SUCCESS, "dup of B: %s", mt_errstr(rc));
  }
  if (rank == 0) {
    int token = j->round;
    MPI_Send(&token, 1, MPI_INT, 1, TAG_TOKEN, MPI_COMM_WORLD);
  }
  if (self_dup != MPI_COMM_NULL) {
    int result = -1;
    MPI_Comm_compare(MPI_COMM_SELF, self_dup, &result);
    CHECK(result == MPI_CONGRUENT, "self dup: compare = %d", result);
    MPI_Comm_free(&self_dup);
  }
  return NULL;
}

static void crossed_threads(int use_self) {
  for (int round = 0; round < ROUNDS; round++) {
    job_t j = {use_self, round, MPI_COMM_NULL, MPI_COMM_NULL};
    pthread_t ta, tb;
    CHECK(pthread_create(&ta, NULL, dup_a, &j) == 0, "thread A");
    CHECK(pthread_create(&tb, NULL, dup_b, &j) == 0, "thread B");
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    check_copy(comm_a, j.a_dup, 10 * round + 1, "threads: dup of A");
    MPI_Comm_free(&j.a_dup);
    if (!use_self) {
      check_copy(comm_b, j.b_dup, 10 * round + 2, "threads: dup of B");
      MPI_Comm_free(&j.b_dup);
    }
  }
}

static void crossed_idups(void) {
  MPI_Comm a_dup = MPI_COMM_NULL, b_dup = MPI_COMM_NULL;
  MPI_Request ra = MPI_REQUEST_NULL, rb = MPI_REQUEST_NULL;
  int token = rank == 0 ? 7 : -1;
  if (rank != 1)
    CHECK(MPI_Comm_idup(comm_a, &a_dup, &ra) == MPI_SUCCESS, "idup A");
  CHECK(MPI_Comm_idup(comm_b, &b_dup, &rb) == MPI_SUCCESS, "idup B");
  MPI_Wait(&rb, MPI_STATUS_IGNORE);
  if (rank == 0)
    MPI_Send(&token, 1, MPI_INT, 1, TAG_TOKEN, MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Recv(&token, 1, MPI_INT, 0, TAG_TOKEN, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    CHECK(MPI_Comm_idup(comm_a, &a_dup, &ra) == MPI_SUCCESS, "idup A");
  }
  MPI_Wait(&ra, MPI_STATUS_IGNORE);
  if (rank > 1)
    token = 7;
  CHECK(token == 7, "idups: token %d", token);
  check_copy(comm_a, a_dup, 31, "idups: dup of A");
  check_copy(comm_b, b_dup, 32, "idups: dup of B");
  MPI_Comm_free(&a_dup);
  MPI_Comm_free(&b_dup);
}

int main(int argc, char **argv) {
  int provided = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks or more, got %d", size);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_a);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_b);
  crossed_threads(0);
  crossed_threads(1);
  crossed_idups();
  MPI_Comm_free(&comm_a);
  MPI_Comm_free(&comm_b);
  MPI_Finalize();
  if (rank == 0)
    printf("PASS comm_dup_crossed\n");
  return 0;
}
