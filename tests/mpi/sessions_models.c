/* Two MPI sessions and the world model side by side in one process, each
 * with communicators of its own, started and finalised in the orders
 * MPI-4.0 allows (argv[1]):
 *   world-first     MPI_Init, then sessions A and B; MPI_Finalize first,
 *                   and A and B still exchange after it;
 *   sessions-first  session A before MPI_Init, then B; A and B finalised
 *                   before MPI_Finalize, the world still exchanging after;
 *   sessions-only   A and B without the world model at all;
 *   sessions-again  A and B finalised, then C made and finalised (a
 *                   process may make sessions as often as it likes,
 *                   MPI-4.0 11.3), then D and MPI_Init after it; an
 *                   invalid info to MPI_Session_init reported on the
 *                   handler given (MPI_ERRORS_RETURN), not the world's;
 *   world-refused   a session alone, and MPI_COMM_WORLD used (fatal).
 * After MPI_Finalize and the last session's finalize, MPI_Session_init
 * fails cleanly (MPI_ERR_OTHER) on the handler it is given: the engine
 * does not start twice.
 * Every exchange checks the bytes that arrived and the status.  The three
 * models send with the same (source, tag) in crossed order, so traffic
 * leaking between their context ids would land in the wrong buffer.
 * MPI_Initialized/MPI_Finalized must describe the world model only. */
#include <unistd.h>

#include "mpitest.h"

#define TAG 7
#define WORDS 64

typedef struct model {
  const char *name;
  MPI_Session session; /* MPI_SESSION_NULL for the world model */
  MPI_Comm comm;
  unsigned seed;
} model_t;

static void world_flags(int init, int fin, const char *when) {
  int i = -1, f = -1;
  CHECK(MPI_Initialized(&i) == MPI_SUCCESS, "MPI_Initialized failed");
  CHECK(MPI_Finalized(&f) == MPI_SUCCESS, "MPI_Finalized failed");
  CHECK(i == init && f == fin,
        "%s: MPI_Initialized %d MPI_Finalized %d, expected %d %d", when, i, f,
        init, fin);
}

/* A session whose communicator spans mpi://WORLD, made by
 * MPI_Comm_create_from_group with the session's own string tag. */
static void session_open(model_t *m, const char *name, unsigned seed) {
  MPI_Group group;
  char tag[64];
  m->name = name;
  m->seed = seed;
  CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &m->session) ==
            MPI_SUCCESS,
        "MPI_Session_init %s", name);
  CHECK(m->session != MPI_SESSION_NULL, "session %s is null", name);
  CHECK(MPI_Group_from_session_pset(m->session, "mpi://WORLD", &group) ==
            MPI_SUCCESS,
        "group of %s", name);
  snprintf(tag, sizeof tag, "org.hcmpi.test.sessions_models.%s", name);
  CHECK(MPI_Comm_create_from_group(group, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                   &m->comm) == MPI_SUCCESS,
        "MPI_Comm_create_from_group %s", name);
  CHECK(MPI_Group_free(&group) == MPI_SUCCESS, "group free %s", name);
}

static void session_close(model_t *m) {
  CHECK(MPI_Comm_free(&m->comm) == MPI_SUCCESS, "comm free %s", m->name);
  CHECK(MPI_Session_finalize(&m->session) == MPI_SUCCESS,
        "MPI_Session_finalize %s", m->name);
  CHECK(m->session == MPI_SESSION_NULL, "session %s handle not reset", m->name);
}

static void world_open(model_t *m) {
  m->name = "world";
  m->session = MPI_SESSION_NULL;
  m->comm = MPI_COMM_WORLD;
  m->seed = 300;
}

/* Each rank sends to its right neighbour on every model, in the order
 * given, after posting the receives from its left in the reverse order. */
static void exchange(model_t **models, int n, int round) {
  int rank, size;
  CHECK(MPI_Comm_rank(models[0]->comm, &rank) == MPI_SUCCESS, "rank");
  CHECK(MPI_Comm_size(models[0]->comm, &size) == MPI_SUCCESS, "size");
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  unsigned char in[3][WORDS], out[3][WORDS];
  MPI_Request reqs[6];
  for (int k = n - 1; k >= 0; k--) {
    int r2 = -1, s2 = -1;
    MPI_Comm_rank(models[k]->comm, &r2);
    MPI_Comm_size(models[k]->comm, &s2);
    CHECK(r2 == rank && s2 == size, "%s: rank %d of %d, world %d of %d",
          models[k]->name, r2, s2, rank, size);
    memset(in[k], 0, WORDS);
    CHECK(MPI_Irecv(in[k], WORDS, MPI_BYTE, left, TAG, models[k]->comm,
                    &reqs[k]) == MPI_SUCCESS,
          "irecv on %s", models[k]->name);
  }
  for (int k = 0; k < n; k++) {
    mt_fill(out[k], WORDS, models[k]->seed + (unsigned)(rank * 16 + round));
    CHECK(MPI_Isend(out[k], WORDS, MPI_BYTE, right, TAG, models[k]->comm,
                    &reqs[n + k]) == MPI_SUCCESS,
          "isend on %s", models[k]->name);
  }
  MPI_Status st[6];
  CHECK(MPI_Waitall(2 * n, reqs, st) == MPI_SUCCESS, "waitall");
  for (int k = 0; k < n; k++) {
    size_t bad = mt_verify(in[k], WORDS,
                           models[k]->seed + (unsigned)(left * 16 + round));
    CHECK(bad == MT_OK, "%s round %d: byte %zu from rank %d is wrong",
          models[k]->name, round, bad, left);
    CHECK(st[k].MPI_SOURCE == left && st[k].MPI_TAG == TAG &&
              mt_status_count(&st[k], MPI_BYTE) == WORDS,
          "%s: status source %d tag %d", models[k]->name, st[k].MPI_SOURCE,
          st[k].MPI_TAG);
  }
  /* A collective per model too: each sums its ranks. */
  for (int k = 0; k < n; k++) {
    int sum = -1;
    CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, models[k]->comm) ==
              MPI_SUCCESS,
          "allreduce on %s", models[k]->name);
    CHECK(sum == size * (size - 1) / 2, "%s: sum %d", models[k]->name, sum);
  }
}

/* After MPI_Finalize and the last session's finalize hcmpi's engine
 * stopped and cannot start again: MPI_Session_init refuses, on the handler
 * it is given (MPICH 4.0.2 starts again: nothing to check there). */
static void session_refused_after_finalize(void) {
  if (mt_mpich_quirks())
    return;
  MPI_Session again = MPI_SESSION_NULL;
  int rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &again);
  CHECK(mt_class(rc) == MPI_ERR_OTHER && again == MPI_SESSION_NULL,
        "Session_init after MPI_Finalize: %s", mt_errstr(rc));
}

static void run_world_first(void) {
  model_t w, a, b;
  CHECK(MPI_Init(NULL, NULL) == MPI_SUCCESS, "MPI_Init");
  world_flags(1, 0, "after MPI_Init");
  world_open(&w);
  session_open(&a, "A", 100);
  session_open(&b, "B", 200);
  model_t *all[3] = {&b, &w, &a};
  exchange(all, 3, 0);
  /* Errors raised on no object after the end go to the world's handler. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Finalize() == MPI_SUCCESS, "MPI_Finalize");
  world_flags(1, 1, "after MPI_Finalize, sessions open");
  model_t *sessions[2] = {&a, &b};
  exchange(sessions, 2, 1);
  session_close(&a);
  model_t *last[1] = {&b};
  exchange(last, 1, 2);
  session_close(&b);
  world_flags(1, 1, "at the end");
  session_refused_after_finalize();
}

static void run_sessions_first(void) {
  model_t w, a, b;
  world_flags(0, 0, "before anything");
  session_open(&a, "A", 100);
  world_flags(0, 0, "with a session only");
  CHECK(MPI_Init(NULL, NULL) == MPI_SUCCESS, "MPI_Init after a session");
  world_flags(1, 0, "after MPI_Init");
  world_open(&w);
  session_open(&b, "B", 200);
  model_t *all[3] = {&w, &a, &b};
  exchange(all, 3, 0);
  session_close(&a);
  session_close(&b);
  model_t *world[1] = {&w};
  exchange(world, 1, 1);
  world_flags(1, 0, "sessions finalised, world running");
  CHECK(MPI_Finalize() == MPI_SUCCESS, "MPI_Finalize");
  world_flags(1, 1, "at the end");
}

static void run_sessions_only(void) {
  model_t a, b;
  session_open(&a, "A", 100);
  session_open(&b, "B", 200);
  world_flags(0, 0, "sessions only");
  model_t *all[2] = {&a, &b};
  exchange(all, 2, 0);
  session_close(&b);
  model_t *one[1] = {&a};
  exchange(one, 1, 1);
  session_close(&a);
  world_flags(0, 0, "sessions only, at the end");
}

static void run_sessions_again(void) {
  model_t a, b, c, d, w;
  session_open(&a, "A", 100);
  session_open(&b, "B", 200);
  model_t *both[2] = {&a, &b};
  exchange(both, 2, 0);
  session_close(&a);
  session_close(&b);
  /* No session open: the next one starts over (twice, in a row). */
  for (int round = 1; round <= 2; round++) {
    session_open(&c, "C", 300 + (unsigned)round);
    model_t *one[1] = {&c};
    exchange(one, 1, round);
    /* An invalid info: MPI_ERR_INFO on the handler given, which returns
     * (the world's default handler would end the job). */
    MPI_Info freed;
    CHECK(MPI_Info_create(&freed) == MPI_SUCCESS, "MPI_Info_create");
    MPI_Info stale = freed;
    CHECK(MPI_Info_free(&freed) == MPI_SUCCESS, "MPI_Info_free");
    MPI_Session bad = MPI_SESSION_NULL;
    int rc = MPI_Session_init(stale, MPI_ERRORS_RETURN, &bad);
    CHECK(mt_class(rc) == MPI_ERR_INFO && bad == MPI_SESSION_NULL,
          "Session_init with a freed info: %s", mt_errstr(rc));
    session_close(&c);
  }
  world_flags(0, 0, "sessions made again");
  session_open(&d, "D", 400);
  CHECK(MPI_Init(NULL, NULL) == MPI_SUCCESS, "MPI_Init after sessions");
  world_flags(1, 0, "after MPI_Init");
  world_open(&w);
  model_t *all[2] = {&w, &d};
  exchange(all, 2, 3);
  session_close(&d);
  CHECK(MPI_Finalize() == MPI_SUCCESS, "MPI_Finalize");
  world_flags(1, 1, "at the end");
  /* The world's handler is still the fatal default here. */
  session_refused_after_finalize();
}

/* Only the world model has MPI_COMM_WORLD: rank 0 of a session's
 * communicator uses it and must be stopped by the fatal default handler
 * (the other ranks sleep until the launcher ends the job). */
static void run_world_refused(void) {
  model_t a;
  int rank = -1, size = -1;
  session_open(&a, "A", 100);
  MPI_Comm_rank(a.comm, &rank);
  if (rank == 0) {
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(0, "MPI_Comm_size(MPI_COMM_WORLD) returned %d with no world", size);
  }
  for (;;) /* until the launcher ends the job */
    sleep(1);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "world-first") == 0)
    run_world_first();
  else if (strcmp(mode, "sessions-first") == 0)
    run_sessions_first();
  else if (strcmp(mode, "sessions-only") == 0)
    run_sessions_only();
  else if (strcmp(mode, "sessions-again") == 0)
    run_sessions_again();
  else if (strcmp(mode, "world-refused") == 0)
    run_world_refused();
  else
    CHECK(0, "unknown mode '%s'", mode);
  printf("PASS sessions_models %s\n", mode);
  return 0;
}
