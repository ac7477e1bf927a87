/* Two libraries in two threads of each process, each starting its own
 * session and building its communicator over mpi://WORLD at the same
 * moment (MPI_THREAD_MULTIPLE, granted to a first session of the main
 * thread).  The two communicators must get different context ids: 200
 * checked ring exchanges per thread, with the same source and tag on both,
 * catch any traffic that lands in the other library's communicator. */
#include <pthread.h>

#include "mpitest.h"

#define THREADS 2
#define ROUNDS 200

static pthread_barrier_t start;

static void *library(void *arg) {
  int id = (int)(long)arg;
  MPI_Session s;
  MPI_Group g;
  MPI_Comm c;
  char tag[32];
  pthread_barrier_wait(&start);
  CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS,
        "thread %d: Session_init", id);
  CHECK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g) == MPI_SUCCESS,
        "thread %d: group", id);
  snprintf(tag, sizeof tag, "org.hcmpi.test.lib%d", id);
  int rc =
      MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
  CHECK(rc == MPI_SUCCESS, "thread %d: create_from_group: %s", id,
        mt_errstr(rc));
  int r, n;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &n);
  int right = (r + 1) % n, left = (r + n - 1) % n;
  for (int it = 0; it < ROUNDS; it++) {
    int out = id * 1000000 + r * 1000 + it, in = -1;
    MPI_Status st;
    CHECK(MPI_Sendrecv(&out, 1, MPI_INT, right, 0, &in, 1, MPI_INT, left, 0, c,
                       &st) == MPI_SUCCESS,
          "thread %d: sendrecv", id);
    CHECK(in == id * 1000000 + left * 1000 + it && st.MPI_SOURCE == left,
          "thread %d round %d: got %d from %d", id, it, in, st.MPI_SOURCE);
  }
  MPI_Comm_free(&c);
  MPI_Group_free(&g);
  CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS, "thread %d: finalize", id);
  return NULL;
}

int main(void) {
  MPI_Session main_session;
  MPI_Info info, used;
  char level[64];
  int flag = 0;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_thread_support_level", "MPI_THREAD_MULTIPLE");
  CHECK(MPI_Session_init(info, MPI_ERRORS_RETURN, &main_session) == MPI_SUCCESS,
        "main Session_init");
  MPI_Info_free(&info);
  MPI_Session_get_info(main_session, &used);
  MPI_Info_get(used,
               mt_mpich_quirks() ? "thread_level" : "mpi_thread_support_level",
               (int)sizeof level - 1, level, &flag);
  MPI_Info_free(&used);
  CHECK(flag && strcmp(level, "MPI_THREAD_MULTIPLE") == 0,
        "no MPI_THREAD_MULTIPLE (%s)", flag ? level : "none");
  pthread_t t[THREADS];
  pthread_barrier_init(&start, NULL, THREADS);
  for (long i = 0; i < THREADS; i++)
    CHECK(pthread_create(&t[i], NULL, library, (void *)i) == 0, "thread");
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  pthread_barrier_destroy(&start);
  CHECK(MPI_Session_finalize(&main_session) == MPI_SUCCESS, "main finalize");
  printf("PASS sessions_threads\n");
  return 0;
}
