/* A target that cannot allocate for a large operation fails the origin's
 * completing call with MPI_ERR_NO_MEM instead of leaving it waiting, and
 * the window keeps working.  Rank 0 is the origin, rank 1 the target
 * (2 ranks).  Run with HCMPI_TEST_RMA_NOMEM=2 (hcmpi's fault injection:
 * the target refuses the first of every 2 buffers for operations larger
 * than an eager packet) and, on one node, HCMPI_RMA_DIRECT=0 so the
 * operations travel as active messages.  In each epoch kind, one
 * operation of BYTES is refused and then one succeeds:
 *
 *   lock      put, unlock: NO_MEM, the target's memory untouched; put,
 *             unlock: success, the bytes landed.
 *   fence     put between fences: the closing fence fails on the origin
 *             alone (the target's succeeds); again: success, bytes landed.
 *   pscw      put, MPI_Win_complete: NO_MEM (the target's MPI_Win_wait
 *             succeeds); again: success.
 *   flush     under lock_all, an accumulate (MPI_SUM of ints), then
 *             MPI_Win_flush: NO_MEM, nothing added; again: success, the
 *             sum exact.
 *   get       a get (its reply is what the target cannot allocate) then
 *             unlock: NO_MEM; again: success, the bytes are the target's.
 *   rget      an MPI_Rget refused the same way: its request completes
 *             with NO_MEM (MPI_Wait's return; with MPI_Waitall,
 *             MPI_ERR_IN_STATUS and the status's MPI_ERROR), the buffer
 *             untouched, and the unlock fails too; again: success.
 *
 * A lost or extra refusal shows as the wrong class at the next call, and
 * a hang as the launcher's timeout. */
#include "mpitest.h"

#define BYTES (64 * 1024)
#define INTS (BYTES / (int)sizeof(int))

static int rank;
static int *mem;
static int origin_data[INTS], got[INTS];
static MPI_Win win;

static void fill(int *at, int seed)
{
    for (int i = 0; i < INTS; i++)
        at[i] = seed * 100003 + i;
}

static void expect_class(int rc, int cls, const char *what)
{
    CHECK(mt_class(rc) == cls, "%s: error class %d (%s), expected %d", what, mt_class(rc),
          mt_errstr(rc), cls);
}

/* The target's window content, after a barrier that follows the epoch. */
static void target_holds(int seed, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 1)
        return;
    for (int i = 0; i < INTS; i++) {
        int want = seed * 100003 + i;
        CHECK(mem[i] == want, "%s: element %d is %d, expected %d", what, i, mem[i], want);
    }
}

static void zero_target(void)
{
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        memset(mem, 0, BYTES);
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void put_under_lock(int seed, int cls)
{
    if (rank == 0) {
        fill(origin_data, seed);
        int rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        CHECK(rc == MPI_SUCCESS, "lock: %s", mt_errstr(rc));
        rc = MPI_Put(origin_data, INTS, MPI_INT, 1, 0, INTS, MPI_INT, win);
        CHECK(rc == MPI_SUCCESS, "put: %s", mt_errstr(rc));
        expect_class(MPI_Win_unlock(1, win), cls, "unlock after a put");
    }
}

static void put_in_fence(int seed, int cls)
{
    int rc = MPI_Win_fence(0, win);
    CHECK(rc == MPI_SUCCESS, "opening fence: %s", mt_errstr(rc));
    if (rank == 0) {
        fill(origin_data, seed);
        rc = MPI_Put(origin_data, INTS, MPI_INT, 1, 0, INTS, MPI_INT, win);
        CHECK(rc == MPI_SUCCESS, "put: %s", mt_errstr(rc));
    }
    rc = MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    expect_class(rc, rank == 0 ? cls : MPI_SUCCESS, "closing fence");
}

static void put_in_pscw(int seed, int cls)
{
    MPI_Group world, peer;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int other = 1 - rank;
    MPI_Group_incl(world, 1, &other, &peer);
    int rc;
    if (rank == 0) {
        fill(origin_data, seed);
        rc = MPI_Win_start(peer, 0, win);
        CHECK(rc == MPI_SUCCESS, "start: %s", mt_errstr(rc));
        rc = MPI_Put(origin_data, INTS, MPI_INT, 1, 0, INTS, MPI_INT, win);
        CHECK(rc == MPI_SUCCESS, "put: %s", mt_errstr(rc));
        expect_class(MPI_Win_complete(win), cls, "complete");
    } else {
        rc = MPI_Win_post(peer, 0, win);
        CHECK(rc == MPI_SUCCESS, "post: %s", mt_errstr(rc));
        rc = MPI_Win_wait(win);
        CHECK(rc == MPI_SUCCESS, "wait: %s", mt_errstr(rc));
    }
    MPI_Group_free(&peer);
    MPI_Group_free(&world);
}

static void accumulate_flush(int seed, int cls)
{
    if (rank != 0)
        return;
    fill(origin_data, seed);
    int rc = MPI_Accumulate(origin_data, INTS, MPI_INT, 1, 0, INTS, MPI_INT, MPI_SUM, win);
    CHECK(rc == MPI_SUCCESS, "accumulate: %s", mt_errstr(rc));
    expect_class(MPI_Win_flush(1, win), cls, "flush after an accumulate");
}

static void get_under_lock(int cls)
{
    if (rank != 0)
        return;
    memset(got, 0, sizeof got);
    int rc = MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    CHECK(rc == MPI_SUCCESS, "lock: %s", mt_errstr(rc));
    rc = MPI_Get(got, INTS, MPI_INT, 1, 0, INTS, MPI_INT, win);
    CHECK(rc == MPI_SUCCESS, "get: %s", mt_errstr(rc));
    expect_class(MPI_Win_unlock(1, win), cls, "unlock after a get");
}

static void rget_under_lock(int cls, int waitall) {
  if (rank != 0)
    return;
  for (int i = 0; i < INTS; i++)
    got[i] = -1;
  int rc = MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
  CHECK(rc == MPI_SUCCESS, "lock: %s", mt_errstr(rc));
  MPI_Request req;
  rc = MPI_Rget(got, INTS, MPI_INT, 1, 0, INTS, MPI_INT, win, &req);
  CHECK(rc == MPI_SUCCESS, "rget: %s", mt_errstr(rc));
  MPI_Status st;
  st.MPI_ERROR = MPI_SUCCESS;
  if (waitall) {
    rc = MPI_Waitall(1, &req, &st);
    expect_class(rc, cls == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_IN_STATUS,
                 "waitall");
    if (cls != MPI_SUCCESS)
      expect_class(st.MPI_ERROR, cls, "waitall's status");
  } else {
    expect_class(MPI_Wait(&req, &st), cls, "wait for an rget");
  }
  CHECK(req == MPI_REQUEST_NULL, "the rget's request was freed");
  for (int i = 0; i < INTS; i++) {
    int want = cls == MPI_SUCCESS ? 8 * 100003 + i : -1;
    CHECK(got[i] == want, "rget: element %d is %d, expected %d", i, got[i],
          want);
  }
  expect_class(MPI_Win_unlock(1, win), cls, "unlock after an rget");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "runs on 2 ranks, not %d", size);
    mem = calloc(INTS, sizeof *mem);
    CHECK(mem != NULL, "no memory");
    fill(mem, 0); /* what "untouched" means */
    int rc = MPI_Win_create(mem, BYTES, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    CHECK(rc == MPI_SUCCESS, "win_create: %s", mt_errstr(rc));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    put_under_lock(1, MPI_ERR_NO_MEM);
    target_holds(0, "lock: after the refused put");
    put_under_lock(2, MPI_SUCCESS);
    target_holds(2, "lock: after the second put");

    put_in_fence(3, MPI_ERR_NO_MEM);
    target_holds(2, "fence: after the refused put");
    put_in_fence(4, MPI_SUCCESS);
    target_holds(4, "fence: after the second put");

    put_in_pscw(5, MPI_ERR_NO_MEM);
    target_holds(4, "pscw: after the refused put");
    put_in_pscw(6, MPI_SUCCESS);
    target_holds(6, "pscw: after the second put");

    zero_target();
    rc = MPI_Win_lock_all(0, win);
    CHECK(rc == MPI_SUCCESS, "lock_all: %s", mt_errstr(rc));
    accumulate_flush(7, MPI_ERR_NO_MEM);
    accumulate_flush(8, MPI_SUCCESS);
    rc = MPI_Win_unlock_all(win);
    CHECK(rc == MPI_SUCCESS, "unlock_all: %s", mt_errstr(rc));
    target_holds(8, "flush: after the refused and the summed accumulate");

    get_under_lock(MPI_ERR_NO_MEM);
    get_under_lock(MPI_SUCCESS);
    if (rank == 0)
        for (int i = 0; i < INTS; i++)
            CHECK(got[i] == 8 * 100003 + i, "get: element %d is %d, expected %d", i, got[i],
                  8 * 100003 + i);
    rget_under_lock(MPI_ERR_NO_MEM, 0);
    rget_under_lock(MPI_SUCCESS, 0);
    rget_under_lock(MPI_ERR_NO_MEM, 1);
    rget_under_lock(MPI_SUCCESS, 1);

    rc = MPI_Win_free(&win);
    CHECK(rc == MPI_SUCCESS, "win_free: %s", mt_errstr(rc));
    free(mem);
    MPI_Finalize();
    return 0;
}
