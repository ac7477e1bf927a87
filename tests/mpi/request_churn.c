/* 100,000 requests created and completed per rank leave the heap flat:
 * Isend/Irecv in batches around a ring, every payload checked, and the
 * bytes malloc holds (mallinfo2) compared between an early point and the
 * end.  Under AddressSanitizer mallinfo2 reports nothing and the leak
 * checker at exit does the same job. */
#include <malloc.h>

#include "mpitest.h"

#define BATCH 50            /* sends and receives in flight per round */
#define TOTAL_REQUESTS 100000
#define SLACK (1u << 20)     /* heap growth tolerated: caches, not leaks */

static size_t heap_in_use(void) { return mallinfo2().uordblks; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int sbuf[BATCH], rbuf[BATCH];
  MPI_Request reqs[2 * BATCH];
  const int rounds = TOTAL_REQUESTS / (2 * BATCH);
  size_t early = 0;
  for (int round = 0; round < rounds; round++) {
    if (round == rounds / 10)
      early = heap_in_use();
    for (int i = 0; i < BATCH; i++) {
      rbuf[i] = -1;
      sbuf[i] = rank * 1000000 + round * BATCH + i;
      MPI_Irecv(&rbuf[i], 1, MPI_INT, left, i, MPI_COMM_WORLD, &reqs[i]);
    }
    for (int i = 0; i < BATCH; i++)
      MPI_Isend(&sbuf[i], 1, MPI_INT, right, i, MPI_COMM_WORLD,
                &reqs[BATCH + i]);
    CHECK(MPI_Waitall(2 * BATCH, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS,
          "Waitall failed in round %d", round);
    for (int i = 0; i < BATCH; i++) {
      int want = left * 1000000 + round * BATCH + i;
      CHECK(rbuf[i] == want, "round %d message %d: got %d want %d", round, i,
            rbuf[i], want);
      CHECK(reqs[i] == MPI_REQUEST_NULL, "request %d not released", i);
    }
  }
  size_t late = heap_in_use();
  if (early > 0)
    CHECK(late <= early + SLACK,
          "heap grew from %zu to %zu bytes over %d requests", early, late,
          TOTAL_REQUESTS);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("request_churn: %d requests per rank on %d ranks, heap %zu -> %zu "
           "bytes\n", TOTAL_REQUESTS, size, early, late);
  MPI_Finalize();
  return 0;
}
