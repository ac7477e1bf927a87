/*
 * MPI_THREAD_MULTIPLE through the face: several threads per rank exchange
 * messages concurrently, each on its own duplicated communicator and on
 * MPI_COMM_WORLD with per-thread tags, creating and completing requests at
 * the same time (the handle table and engine lock under contention).
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { NTHREADS = 4, ITERS = 500 };

static int me, np;
static MPI_Comm comms[NTHREADS];
static int errors[NTHREADS];

static void *worker(void *arg) {
  int t = (int)(long)arg;
  int right = (me + 1) % np, left = (me + np - 1) % np;
  for (int i = 0; i < ITERS; i++) {
    int out[2] = {me, i}, in[2] = {-1, -1}, w = -1;
    MPI_Request r[3];
    MPI_Irecv(in, 2, MPI_INT, left, i % 100, comms[t], &r[0]);
    MPI_Irecv(&w, 1, MPI_INT, left, 1000 + t, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(out, 2, MPI_INT, right, i % 100, comms[t], &r[2]);
    MPI_Send(&i, 1, MPI_INT, right, 1000 + t, MPI_COMM_WORLD);
    if (MPI_Waitall(3, r, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
      errors[t]++;
    if (in[0] != left || in[1] != i || w != i)
      errors[t]++;
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (provided != MPI_THREAD_MULTIPLE) {
    MPI_Finalize();
    return 77;
  }
  for (int t = 0; t < NTHREADS; t++)
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; t++)
    pthread_create(&th[t], NULL, worker, (void *)(long)t);
  int bad = 0;
  for (int t = 0; t < NTHREADS; t++) {
    pthread_join(th[t], NULL);
    bad += errors[t];
    MPI_Comm_free(&comms[t]);
  }
  MPI_Finalize();
  if (bad)
    fprintf(stderr, "rank %d: %d errors\n", me, bad);
  else if (me == 0)
    printf("face_threads: OK (%d ranks x %d threads)\n", np, NTHREADS);
  return bad ? 1 : 0;
}
