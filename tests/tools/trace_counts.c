/*
 * A program whose point-to-point counts are known, for tests/tools/trace.sh:
 * every rank sends K messages to its right neighbour with MPI_Send and
 * receives K from its left with MPI_Recv, then posts M Isend/Irecv pairs
 * with every other rank, and one MPI_Barrier; then every_call_once makes
 * each call below a known number of times (trace_check.py counts them).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { K = 5, M = 3 };

/* Waits, tests and probes: Ssend in a ring, Waitany/Waitsome on a pair
 * to self, each Test form once on null requests, Probe/Iprobe, Bsend. */
static void requests_once(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int a = rank, b = -1, c = -1, flag, idx, out, ind[2];
  MPI_Request r[2];
  MPI_Status st[2];
  MPI_Irecv(&b, 1, MPI_INT, left, 200, MPI_COMM_WORLD, &r[0]);
  MPI_Ssend(&a, 1, MPI_INT, right, 200, MPI_COMM_WORLD);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Isend(&a, 1, MPI_INT, rank, 201, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(&c, 1, MPI_INT, rank, 201, MPI_COMM_WORLD, &r[1]);
  MPI_Waitany(2, r, &idx, st);
  MPI_Waitsome(2, r, &out, ind, st); /* the one request still active */
  MPI_Test(&r[0], &flag, st);        /* both are MPI_REQUEST_NULL now */
  MPI_Testall(2, r, &flag, st);
  MPI_Testany(2, r, &idx, &flag, st);
  MPI_Testsome(2, r, &out, ind, st);
  MPI_Isend(&a, 1, MPI_INT, rank, 202, MPI_COMM_WORLD, &r[0]);
  MPI_Probe(rank, 202, MPI_COMM_WORLD, st);
  MPI_Iprobe(rank, 202, MPI_COMM_WORLD, &flag, st);
  MPI_Recv(&c, 1, MPI_INT, rank, 202, MPI_COMM_WORLD, st);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  static char bbuf[MPI_BSEND_OVERHEAD + 64];
  void *old;
  MPI_Buffer_attach(bbuf, sizeof bbuf);
  MPI_Bsend(&a, 1, MPI_INT, right, 203, MPI_COMM_WORLD);
  MPI_Recv(&b, 1, MPI_INT, left, 203, MPI_COMM_WORLD, st);
  MPI_Buffer_detach(&old, &flag);
  MPI_Send_init(&a, 1, MPI_INT, right, 204, MPI_COMM_WORLD, &r[0]);
  MPI_Recv_init(&b, 1, MPI_INT, left, 204, MPI_COMM_WORLD, &r[1]);
  MPI_Startall(2, r);
  MPI_Waitall(2, r, st);
  MPI_Start(&r[1]);
  MPI_Start(&r[0]);
  MPI_Waitall(2, r, st);
  MPI_Request_free(&r[0]);
  MPI_Request_free(&r[1]);
}

/* Every v-, w-, scan and non-blocking collective once, one int per rank;
 * the non-blocking ones completed by one MPI_Waitall. */
static void collectives_once(int size) {
  enum { NBC = 17 };
  int x = 1, y[64], z[64], one[64], disp[64], bdisp[64];
  MPI_Datatype ints[64];
  MPI_Request r[NBC];
  for (int i = 0; i < size; i++)
    one[i] = 1, disp[i] = i, bdisp[i] = i * (int)sizeof(int), ints[i] = MPI_INT,
    z[i] = i;
  MPI_Comm w = MPI_COMM_WORLD;
  MPI_Scan(&x, y, 1, MPI_INT, MPI_SUM, w);
  MPI_Exscan(&x, y, 1, MPI_INT, MPI_SUM, w);
  MPI_Reduce_scatter(z, y, one, MPI_INT, MPI_SUM, w);
  MPI_Reduce_scatter_block(z, y, 1, MPI_INT, MPI_SUM, w);
  MPI_Gatherv(&x, 1, MPI_INT, y, one, disp, MPI_INT, 0, w);
  MPI_Scatterv(z, one, disp, MPI_INT, &x, 1, MPI_INT, 0, w);
  MPI_Allgatherv(&x, 1, MPI_INT, y, one, disp, MPI_INT, w);
  MPI_Alltoallv(z, one, disp, MPI_INT, y, one, disp, MPI_INT, w);
  MPI_Alltoallw(z, one, bdisp, ints, y, one, bdisp, ints, w);
  /* Distinct buffers: the non-blocking ones are all in flight at once. */
  static int in[NBC][64], outb[NBC][64];
  MPI_Ibarrier(w, &r[0]);
  MPI_Ibcast(outb[1], 1, MPI_INT, 0, w, &r[1]);
  MPI_Ireduce(in[2], outb[2], 1, MPI_INT, MPI_SUM, 0, w, &r[2]);
  MPI_Iallreduce(in[3], outb[3], 1, MPI_INT, MPI_SUM, w, &r[3]);
  MPI_Igather(in[4], 1, MPI_INT, outb[4], 1, MPI_INT, 0, w, &r[4]);
  MPI_Igatherv(in[5], 1, MPI_INT, outb[5], one, disp, MPI_INT, 0, w, &r[5]);
  MPI_Iscatter(in[6], 1, MPI_INT, outb[6], 1, MPI_INT, 0, w, &r[6]);
  MPI_Iscatterv(in[7], one, disp, MPI_INT, outb[7], 1, MPI_INT, 0, w, &r[7]);
  MPI_Iallgather(in[8], 1, MPI_INT, outb[8], 1, MPI_INT, w, &r[8]);
  MPI_Iallgatherv(in[9], 1, MPI_INT, outb[9], one, disp, MPI_INT, w, &r[9]);
  MPI_Ialltoall(in[10], 1, MPI_INT, outb[10], 1, MPI_INT, w, &r[10]);
  MPI_Ialltoallv(in[11], one, disp, MPI_INT, outb[11], one, disp, MPI_INT, w,
                 &r[11]);
  MPI_Ialltoallw(in[12], one, bdisp, ints, outb[12], one, bdisp, ints, w,
                 &r[12]);
  MPI_Ireduce_scatter(in[13], outb[13], one, MPI_INT, MPI_SUM, w, &r[13]);
  MPI_Ireduce_scatter_block(in[14], outb[14], 1, MPI_INT, MPI_SUM, w, &r[14]);
  MPI_Iscan(in[15], outb[15], 1, MPI_INT, MPI_SUM, w, &r[15]);
  MPI_Iexscan(in[16], outb[16], 1, MPI_INT, MPI_SUM, w, &r[16]);
  MPI_Waitall(NBC, r, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv) {
  int rank, size, buf[64] = {0}, in[64];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int i = 0; i < K; i++) {
    /* Even ranks send first, odd ranks receive first: no cycle waits. */
    if (rank % 2 == 0) {
      MPI_Send(buf, 64, MPI_INT, right, i, MPI_COMM_WORLD);
      MPI_Recv(in, 64, MPI_INT, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in, 64, MPI_INT, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, 64, MPI_INT, right, i, MPI_COMM_WORLD);
    }
  }
  MPI_Request *req = malloc(sizeof *req * 2 * M * (size_t)size);
  int *rbuf = malloc(sizeof(int) * 1024 * M * (size_t)size);
  int *sbuf = calloc(1024, sizeof(int));
  int n = 0;
  for (int p = 0; p < size; p++)
    for (int j = 0; p != rank && j < M; j++) {
      MPI_Irecv(rbuf + 1024 * (p * M + j), 1024, MPI_INT, p, 100 + j,
                MPI_COMM_WORLD, &req[n++]);
      MPI_Isend(sbuf, 1024, MPI_INT, p, 100 + j, MPI_COMM_WORLD, &req[n++]);
    }
  MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  requests_once(rank, size);
  collectives_once(size);
  free(req), free(rbuf), free(sbuf);
  MPI_Finalize();
  return 0;
}
