/* MPI_Comm_idup does not block: rank 0 starts an idup and then sends to
 * rank 1, while rank 1 receives first and starts its idup only after (a
 * blocking idup deadlocks here).  Then several idups are outstanding at
 * once on one parent, completed in order, each a working communicator with
 * a context of its own; an idup_with_info carries its hints; idups
 * interleave with blocking creations on another communicator, and idups
 * on overlapping communicators start in different orders on different
 * ranks. */
#include "mpitest.h"

#define NDUPS 5

static int rank, size;

/* comm is a congruent copy of world with its own context: a message on
 * world with the same tag must not match a receive on comm. */
static void check_dup(MPI_Comm comm, int seed, const char *what) {
  int result = -1, sum = 0, mine = rank + seed;
  MPI_Comm_compare(MPI_COMM_WORLD, comm, &result);
  CHECK(result == MPI_CONGRUENT, "%s: compare = %d", what, result);
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comm);
  CHECK(sum == size * (size - 1) / 2 + size * seed, "%s: allreduce = %d", what,
        sum);
  if (size < 2)
    return;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int on_world = -1, on_dup = -1, a = 100 + seed, b = 200 + seed;
  MPI_Request r[4];
  MPI_Irecv(&on_dup, 1, MPI_INT, left, 7, comm, &r[0]);
  MPI_Irecv(&on_world, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &r[1]);
  MPI_Isend(&a, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &r[2]);
  MPI_Isend(&b, 1, MPI_INT, right, 7, comm, &r[3]);
  MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
  CHECK(on_world == a && on_dup == b, "%s: world got %d, dup got %d", what,
        on_world, on_dup);
}

/* The deadlock a blocking idup causes: only rank 1 waits for rank 0's
 * message before it starts its idup. */
static void idup_then_send(void) {
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Request req = MPI_REQUEST_NULL;
  int token = 0;
  if (rank == 0) {
    int rc = MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
    CHECK(rc == MPI_SUCCESS, "idup: %s", mt_errstr(rc));
    token = 42;
    if (size > 1)
      MPI_Send(&token, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
  } else {
    if (rank == 1) {
      MPI_Recv(&token, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(token == 42, "token %d", token);
    }
    int rc = MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
    CHECK(rc == MPI_SUCCESS, "idup: %s", mt_errstr(rc));
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(req == MPI_REQUEST_NULL, "Wait did not free the idup request");
  check_dup(dup, 1, "idup then send");
  MPI_Comm_free(&dup);
}

/* NDUPS idups outstanding on world, completed in order with MPI_Wait;
 * every one differs from the others and from world. */
static void many_outstanding(void) {
  MPI_Comm dups[NDUPS];
  MPI_Request reqs[NDUPS];
  for (int i = 0; i < NDUPS; i++) {
    int rc = MPI_Comm_idup(MPI_COMM_WORLD, &dups[i], &reqs[i]);
    CHECK(rc == MPI_SUCCESS, "idup %d: %s", i, mt_errstr(rc));
  }
  for (int i = 0; i < NDUPS; i++) {
    int rc = MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "wait %d: %s", i, mt_errstr(rc));
  }
  for (int i = 0; i < NDUPS; i++)
    check_dup(dups[i], 10 + i, "outstanding idup");
  /* Same tag, same peer, NDUPS contexts: each receive gets its own. */
  if (size > 1) {
    int got[NDUPS], sent[NDUPS];
    MPI_Request r[2 * NDUPS];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < NDUPS; i++) {
      sent[i] = 1000 + i;
      MPI_Irecv(&got[i], 1, MPI_INT, left, 0, dups[i], &r[i]);
    }
    for (int i = NDUPS - 1; i >= 0; i--)
      MPI_Isend(&sent[i], 1, MPI_INT, right, 0, dups[i], &r[NDUPS + i]);
    MPI_Waitall(2 * NDUPS, r, MPI_STATUSES_IGNORE);
    for (int i = 0; i < NDUPS; i++)
      CHECK(got[i] == 1000 + i, "dup %d got %d", i, got[i]);
  }
  for (int i = 0; i < NDUPS; i++)
    MPI_Comm_free(&dups[i]);
}

/* Idups on world outstanding while a blocking Comm_dup and Comm_split run
 * on a duplicate of world. */
static void mixed_with_blocking(void) {
  MPI_Comm base, a, b, d1, d2;
  MPI_Request reqs[2];
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  MPI_Comm_idup(MPI_COMM_WORLD, &d1, &reqs[0]);
  MPI_Comm_dup(base, &a);
  MPI_Comm_idup(MPI_COMM_WORLD, &d2, &reqs[1]);
  MPI_Comm_split(base, 0, size - rank, &b);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  check_dup(d1, 20, "idup beside dup");
  check_dup(d2, 21, "idup beside split");
  check_dup(a, 22, "dup beside idup");
  int brank = -1;
  MPI_Comm_rank(b, &brank);
  CHECK(brank == size - 1 - rank, "split rank %d", brank);
  MPI_Comm_free(&d1);
  MPI_Comm_free(&d2);
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  MPI_Comm_free(&base);
}

/* Idups on overlapping communicators started in different orders on
 * different ranks (allowed for non-blocking collectives on different
 * communicators): world and the halves of a split, 20 rounds. */
static void crossed_orders(void) {
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  for (int round = 0; round < 20; round++) {
    MPI_Comm dw, dh;
    MPI_Request reqs[2];
    if (rank % 2 == 0) {
      MPI_Comm_idup(MPI_COMM_WORLD, &dw, &reqs[0]);
      MPI_Comm_idup(half, &dh, &reqs[1]);
    } else {
      MPI_Comm_idup(half, &dh, &reqs[1]);
      MPI_Comm_idup(MPI_COMM_WORLD, &dw, &reqs[0]);
    }
    int rc = MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    CHECK(rc == MPI_SUCCESS, "crossed waitall: %s", mt_errstr(rc));
    check_dup(dw, 40 + round, "crossed idup of world");
    int hs = 0, hr = -1, sum = 0, one = 1, result = -1;
    MPI_Comm_size(dh, &hs);
    MPI_Comm_rank(dh, &hr);
    MPI_Comm_compare(half, dh, &result);
    CHECK(result == MPI_CONGRUENT && hr == rank / 2, "crossed half: %d %d",
          result, hr);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dh);
    CHECK(sum == hs, "crossed half allreduce %d of %d", sum, hs);
    MPI_Comm_free(&dw);
    MPI_Comm_free(&dh);
  }
  MPI_Comm_free(&half);
}

static void idup_with_info(void) {
  MPI_Info info, got = MPI_INFO_NULL;
  MPI_Comm dup;
  MPI_Request req;
  char value[32] = "";
  int flag = 0;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
  int rc = MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &dup, &req);
  CHECK(rc == MPI_SUCCESS, "idup_with_info: %s", mt_errstr(rc));
  MPI_Info_free(&info);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  check_dup(dup, 30, "idup_with_info");
  MPI_Comm_get_info(dup, &got);
  MPI_Info_get(got, "mpi_assert_no_any_tag", (int)sizeof value - 1, value,
               &flag);
  CHECK(flag && strcmp(value, "true") == 0, "hint: flag %d value '%s'", flag,
        value);
  MPI_Info_free(&got);
  MPI_Comm_free(&dup);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  idup_then_send();
  many_outstanding();
  mixed_with_blocking();
  crossed_orders();
  idup_with_info();
  /* Ids return to the pool: far more idups than the range holds. */
  for (int i = 0; i < 600; i++) {
    MPI_Comm dup;
    MPI_Request req;
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_free(&dup);
  }
  MPI_Finalize();
  return 0;
}
