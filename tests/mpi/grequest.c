/* Generalized requests (MPI_Grequest_start / MPI_Grequest_complete): the
 * query, free and cancel callbacks run when and as often as the standard
 * says, through MPI_Wait, MPI_Test, MPI_Waitall, MPI_Waitany,
 * MPI_Request_get_status, MPI_Request_free (before and after completion)
 * and MPI_Cancel; the status query_fn writes is what the wait returns;
 * a query_fn error reaches the caller; a wait blocked on a request is
 * released by MPI_Grequest_complete from another thread; one freed and
 * never completed neither stalls later messages nor MPI_Finalize, and the
 * descriptor that wakes waiters is closed by MPI_Finalize.  Local checks on
 * every rank (MPI_THREAD_MULTIPLE for the threaded case). */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpitest.h"

typedef struct op_state {
  int queries, frees, cancels, last_cancel_complete;
  int tag;      /* what query_fn puts in MPI_TAG */
  int query_rc; /* what query_fn returns */
} op_state_t;

static int query_fn(void *extra, MPI_Status *status) {
  op_state_t *s = extra;
  s->queries++;
  status->MPI_SOURCE = 3;
  status->MPI_TAG = s->tag;
  MPI_Status_set_elements(status, MPI_BYTE, 40);
  MPI_Status_set_cancelled(status, 0);
  return s->query_rc;
}

static int free_fn(void *extra) {
  ((op_state_t *)extra)->frees++;
  return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete) {
  op_state_t *s = extra;
  s->cancels++;
  s->last_cancel_complete = complete;
  return MPI_SUCCESS;
}

static MPI_Request start(op_state_t *s, int tag) {
  MPI_Request r;
  memset(s, 0, sizeof *s);
  s->tag = tag;
  int rc = MPI_Grequest_start(query_fn, free_fn, cancel_fn, s, &r);
  CHECK(rc == MPI_SUCCESS && r != MPI_REQUEST_NULL, "Grequest_start: %s",
        mt_errstr(rc));
  return r;
}

static void wait_and_test(void) {
  op_state_t s;
  MPI_Request r = start(&s, 11);
  int flag = 1;
  MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  CHECK(!flag && r != MPI_REQUEST_NULL, "Test completed a pending request");
  CHECK(s.queries == 0 && s.frees == 0, "callbacks before completion");
  MPI_Grequest_complete(r);
  MPI_Status st;
  MPI_Wait(&r, &st);
  CHECK(r == MPI_REQUEST_NULL, "Wait left the handle");
  CHECK(s.queries == 1 && s.frees == 1, "queries %d frees %d", s.queries,
        s.frees);
  CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 11, "status %d/%d", st.MPI_SOURCE,
        st.MPI_TAG);
  CHECK(mt_status_count(&st, MPI_BYTE) == 40, "count %d",
        mt_status_count(&st, MPI_BYTE));

  r = start(&s, 12);
  MPI_Grequest_complete(r);
  flag = 0;
  MPI_Test(&r, &flag, MPI_STATUS_IGNORE); /* query_fn still runs */
  CHECK(flag && s.queries == 1 && s.frees == 1, "Test: flag %d q %d f %d", flag,
        s.queries, s.frees);
}

static void arrays(void) {
  op_state_t s[3];
  MPI_Request r[3];
  MPI_Status st[3];
  for (int i = 0; i < 3; i++)
    r[i] = start(&s[i], 20 + i);
  MPI_Grequest_complete(r[1]);
  int idx = -1;
  MPI_Waitany(3, r, &idx, &st[0]);
  CHECK(idx == 1 && st[0].MPI_TAG == 21 && s[1].frees == 1, "Waitany %d", idx);
  MPI_Grequest_complete(r[0]);
  MPI_Grequest_complete(r[2]);
  MPI_Waitall(3, r, st);
  for (int i = 0; i < 3; i++)
    CHECK(s[i].queries == 1 && s[i].frees == 1 && r[i] == MPI_REQUEST_NULL,
          "request %d: q %d f %d", i, s[i].queries, s[i].frees);
  CHECK(st[0].MPI_TAG == 20 && st[2].MPI_TAG == 22, "Waitall tags %d %d",
        st[0].MPI_TAG, st[2].MPI_TAG);
}

static void free_cancel_status(void) {
  op_state_t s;
  /* Freed before completion: free_fn waits for MPI_Grequest_complete,
   * and query_fn never runs. */
  MPI_Request r = start(&s, 30), keep = r;
  MPI_Cancel(&r);
  CHECK(s.cancels == 1 && s.last_cancel_complete == 0, "cancel: %d %d",
        s.cancels, s.last_cancel_complete);
  MPI_Request_free(&r);
  CHECK(r == MPI_REQUEST_NULL && s.frees == 0, "freed early: frees %d",
        s.frees);
  MPI_Grequest_complete(keep);
  CHECK(s.frees == 1 && s.queries == 0, "after complete: f %d q %d", s.frees,
        s.queries);

  /* Freed after completion: free_fn at once. */
  r = start(&s, 31);
  MPI_Grequest_complete(r);
  MPI_Cancel(&r);
  CHECK(s.last_cancel_complete == 1, "cancel after complete: complete 0");
  int flag = 0;
  MPI_Status st;
  MPI_Request_get_status(r, &flag, &st);
  CHECK(flag && st.MPI_TAG == 31 && s.queries == 1 && s.frees == 0,
        "get_status: flag %d tag %d q %d f %d", flag, st.MPI_TAG, s.queries,
        s.frees);
  MPI_Request_free(&r);
  CHECK(s.frees == 1 && s.queries == 1, "free after complete: f %d", s.frees);

  /* query_fn's error is the wait's error. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  r = start(&s, 32);
  s.query_rc = MPI_ERR_OTHER;
  MPI_Grequest_complete(r);
  int rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  CHECK(mt_class(rc) == MPI_ERR_OTHER && s.frees == 1, "query error: %s",
        mt_errstr(rc));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void *complete_later(void *arg) {
  usleep(20000); /* lets the main thread block in MPI_Wait first */
  MPI_Grequest_complete(*(MPI_Request *)arg);
  return NULL;
}

static void completed_by_thread(void) {
  op_state_t s;
  MPI_Request r = start(&s, 40), copy = r;
  pthread_t th;
  pthread_create(&th, NULL, complete_later, &copy);
  MPI_Status st;
  MPI_Wait(&r, &st);
  pthread_join(th, NULL);
  CHECK(st.MPI_TAG == 40 && s.frees == 1, "threaded: tag %d", st.MPI_TAG);
}

/* Freed before completion and never completed (the program gave up on
 * it): later blocking messages still flow, and MPI_Finalize, reached with
 * it outstanding, does not wait for it (the job's time limit would). */
static void freed_never_completed(int rank) {
  op_state_t s;
  MPI_Request r = start(&s, 50);
  MPI_Request_free(&r);
  CHECK(r == MPI_REQUEST_NULL && s.frees == 0, "abandoned: frees %d", s.frees);
  int size, token = rank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Sendrecv_replace(&token, 1, MPI_INT, next, 5, prev, 5, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
  CHECK(token == prev, "ring after abandoning: got %d from %d", token, prev);
}

/* Marks the descriptors this process holds (those below 1024). */
static void descriptors_open(unsigned char open[1024]) {
  memset(open, 0, 1024);
  DIR *d = opendir("/proc/self/fd");
  CHECK(d != NULL, "cannot list /proc/self/fd");
  for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
    int fd = atoi(e->d_name);
    if (e->d_name[0] != '.' && fd != dirfd(d) && fd >= 0 && fd < 1024)
      open[fd] = 1;
  }
  closedir(d);
}

/* A descriptor open now that was not before; -1 none. */
static int descriptor_left(const unsigned char before[1024]) {
  unsigned char now[1024];
  descriptors_open(now);
  for (int fd = 0; fd < 1024; fd++)
    if (now[fd] && !before[fd])
      return fd;
  return -1;
}

/* The descriptors open before the first MPI_Session_init. */
static unsigned char sessions_fds_before[1024];

/* Registered before the first session, so it runs after the library's own
 * exit hook (atexit runs the last registered first). */
static void sessions_fds_at_exit(void) {
  int left = descriptor_left(sessions_fds_before);
  if (left >= 0) {
    printf("FAIL grequest sessions: descriptor %d, opened after "
           "MPI_Session_init, is still open at exit\n",
           left);
    fflush(stdout);
    _exit(1);
  }
}

/* The sessions model: two sessions overlap, each starts generalized
 * requests (one of them freed and never completed); the descriptor that
 * wakes waiters outlives the first MPI_Session_finalize and the last (the
 * engine parks there, since a process may make sessions again), and goes
 * when the engine stops at exit, as every descriptor the library opened
 * does. */
static int sessions_only(void) {
  descriptors_open(sessions_fds_before);
  CHECK(atexit(sessions_fds_at_exit) == 0, "atexit");
  MPI_Session first, second;
  CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &first) ==
            MPI_SUCCESS,
        "first MPI_Session_init");
  CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &second) ==
            MPI_SUCCESS,
        "second MPI_Session_init");
  op_state_t s;
  MPI_Request abandoned = start(&s, 60);
  MPI_Request_free(&abandoned);
  MPI_Request r = start(&s, 61);
  MPI_Grequest_complete(r);
  MPI_Status st;
  MPI_Wait(&r, &st);
  CHECK(st.MPI_TAG == 61 && s.frees == 1, "in a session: tag %d frees %d",
        st.MPI_TAG, s.frees);
  CHECK(MPI_Session_finalize(&first) == MPI_SUCCESS, "first finalize");
  r = start(&s, 62);
  pthread_t th;
  MPI_Request copy = r;
  pthread_create(&th, NULL, complete_later, &copy);
  MPI_Wait(&r, &st);
  pthread_join(th, NULL);
  CHECK(st.MPI_TAG == 62, "woken after the first finalize: tag %d", st.MPI_TAG);
  CHECK(MPI_Session_finalize(&second) == MPI_SUCCESS, "second finalize");
  printf("grequest sessions: ok (descriptors checked at exit)\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "sessions") == 0)
    return sessions_only();
  int rank, provided;
  unsigned char fds_before[1024];
  descriptors_open(fds_before);
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  wait_and_test();
  arrays();
  free_cancel_status();
  if (provided == MPI_THREAD_MULTIPLE)
    completed_by_thread();
  /* Erroneous in MPI terms (a pending request at finalize); hcmpi
   * tolerates it, MPICH need not. */
  if (!mt_mpich_quirks())
    freed_never_completed(rank);
  MPI_Finalize();
  /* The wake-up descriptor generalized requests made (the engine's user
   * bell) went with the engine, as did every other. */
  int left = descriptor_left(fds_before);
  CHECK(mt_mpich_quirks() || left < 0,
        "descriptor %d, opened after MPI_Init, is open after MPI_Finalize",
        left);
  if (rank == 0)
    printf("grequest: ok\n");
  return 0;
}
