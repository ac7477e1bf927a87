/* Operations that complete inside the call that starts them.
 * Sends (small standard-mode messages the library puts on the wire at
 * once) next to sends that take the long way (queued behind a full queue,
 * rendezvous, synchronous, non-contiguous), all to one peer with one tag:
 *  - order: rank 1 receives every message in the order rank 0 sent it,
 *    with the right size and bytes, also when sends that could leave at
 *    once find older ones still queued at the sender;
 *  - the request such a send returns behaves as any completed send
 *    request under Test, Request_get_status, Cancel + Wait, Request_free,
 *    Waitany and Testsome;
 *  - sends to self.
 * Receives posted after their message arrived (taken from the arrived
 * messages at once): status source, tag and count, with wildcards and
 * through MPI_Irecv; a synchronous send they match completes; a message
 * larger than the buffer still fails with MPI_ERR_TRUNCATE.
 * With more than 2 ranks the others only join the barriers. */
#include <unistd.h>

#include "mpitest.h"

#define ORDER_MSGS 600
#define ORDER_TAG 5
#define REQ_TAG 6
#define BIG_BYTES 70000 /* above every eager limit: rendezvous */

/* Bytes of message i: mostly small, some empty, some large. */
static int order_size(int i) {
  static const int sizes[] = {8, 0, 200, 1, 5000, 8, 64, BIG_BYTES};
  return sizes[i % 8];
}

static unsigned char order_byte(int i, int k) {
  return (unsigned char)(i * 31 + k * 7 + 1);
}

static void fill(unsigned char *p, int i, int n) {
  for (int k = 0; k < n; k++)
    p[k] = order_byte(i, k);
}

/* Every 7th message synchronous, every 11th through a vector type (packed,
 * so never the immediate path). */
static void order_send(MPI_Datatype every_other_int, unsigned char *buf, int i,
                       MPI_Request *req) {
  int n = order_size(i);
  if (i % 11 == 3) {
    /* 2 ints from every other int of 4: 8 bytes of data */
    int ints[4] = {i, -1, i * 3, -1};
    memcpy(buf, ints, sizeof ints);
    MPI_Isend(buf, 1, every_other_int, 1, ORDER_TAG, MPI_COMM_WORLD, req);
  } else if (i % 7 == 0) {
    fill(buf, i, n);
    MPI_Issend(buf, n, MPI_BYTE, 1, ORDER_TAG, MPI_COMM_WORLD, req);
  } else {
    fill(buf, i, n);
    MPI_Isend(buf, n, MPI_BYTE, 1, ORDER_TAG, MPI_COMM_WORLD, req);
  }
}

static void order_check(unsigned char *buf, int i) {
  MPI_Status st;
  int got = -1;
  MPI_Recv(buf, BIG_BYTES, MPI_BYTE, 0, ORDER_TAG, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_BYTE, &got);
  if (i % 11 == 3) {
    int ints[2];
    CHECK(got == (int)sizeof ints, "message %d: %d bytes, want 8", i, got);
    memcpy(ints, buf, sizeof ints);
    CHECK(ints[0] == i && ints[1] == i * 3, "message %d: vector %d %d", i,
          ints[0], ints[1]);
    return;
  }
  CHECK(got == order_size(i), "message %d: %d bytes, want %d", i, got,
        order_size(i));
  for (int k = 0; k < got; k++)
    CHECK(buf[k] == order_byte(i, k), "message %d byte %d: %d, want %d", i, k,
          buf[k], order_byte(i, k));
}

static void test_order(int rank) {
  MPI_Datatype every_other_int;
  MPI_Type_vector(2, 1, 2, MPI_INT, &every_other_int);
  MPI_Type_commit(&every_other_int);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    unsigned char *bufs = malloc((size_t)ORDER_MSGS * BIG_BYTES);
    MPI_Request *reqs = malloc(ORDER_MSGS * sizeof *reqs);
    MPI_Status *sts = malloc(ORDER_MSGS * sizeof *sts);
    CHECK(bufs && reqs && sts, "out of memory");
    /* Rank 1 sleeps first, so the first half overflows the queue and the
     * rest waits here; while this rank sleeps (no progress) rank 1 empties
     * the queue, so the second half finds room in it with older messages
     * still waiting here: those must still arrive first.  The sleeps only
     * make that case likely; nothing depends on how long they take. */
    for (int i = 0; i < ORDER_MSGS; i++) {
      if (i == ORDER_MSGS / 2)
        usleep(300 * 1000);
      order_send(every_other_int, bufs + (size_t)i * BIG_BYTES, i, &reqs[i]);
    }
    MPI_Send(NULL, 0, MPI_BYTE, 1, ORDER_TAG + 100, MPI_COMM_WORLD);
    CHECK(MPI_Waitall(ORDER_MSGS, reqs, sts) == MPI_SUCCESS, "Waitall failed");
    for (int i = 0; i < ORDER_MSGS; i++)
      CHECK(reqs[i] == MPI_REQUEST_NULL, "request %d not freed", i);
    free(bufs);
    free(reqs);
    free(sts);
  } else if (rank == 1) {
    unsigned char *buf = malloc(BIG_BYTES);
    CHECK(buf, "out of memory");
    usleep(100 * 1000);
    /* Rank 0 posts everything before this receive matches anything. */
    MPI_Recv(NULL, 0, MPI_BYTE, 0, ORDER_TAG + 100, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    for (int i = 0; i < ORDER_MSGS; i++)
      order_check(buf, i);
    free(buf);
  }
  MPI_Type_free(&every_other_int);
}

/* ---- the requests of sends that completed at once ---------------------- */

static void small_isend(int value, int *slot, MPI_Request *req) {
  *slot = value;
  CHECK(MPI_Isend(slot, 1, MPI_INT, 1, REQ_TAG, MPI_COMM_WORLD, req) ==
            MPI_SUCCESS,
        "Isend of %d failed", value);
  CHECK(*req != MPI_REQUEST_NULL, "Isend gave MPI_REQUEST_NULL");
}

static void requests_sender(void) {
  int slots[8];
  MPI_Request r, two[2];
  MPI_Status st;
  int flag = 0, outcount = -1, idx[2], index = -1;

  small_isend(100, &slots[0], &r);
  CHECK(MPI_Request_get_status(r, &flag, &st) == MPI_SUCCESS && flag == 1,
        "Request_get_status: flag %d", flag);
  CHECK(r != MPI_REQUEST_NULL, "get_status freed the request");
  flag = 0;
  CHECK(MPI_Test(&r, &flag, &st) == MPI_SUCCESS && flag == 1, "Test: flag %d",
        flag);
  CHECK(r == MPI_REQUEST_NULL, "Test left the request");

  small_isend(101, &slots[1], &r);
  CHECK(MPI_Cancel(&r) == MPI_SUCCESS, "Cancel failed");
  CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS, "Wait after Cancel failed");
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 0, "a delivered send reads as cancelled");

  small_isend(102, &slots[2], &r);
  CHECK(MPI_Request_free(&r) == MPI_SUCCESS && r == MPI_REQUEST_NULL,
        "Request_free");

  small_isend(103, &slots[3], &two[0]);
  small_isend(104, &slots[4], &two[1]);
  CHECK(MPI_Waitany(2, two, &index, &st) == MPI_SUCCESS && index >= 0,
        "Waitany: index %d", index);
  CHECK(two[index] == MPI_REQUEST_NULL, "Waitany left request %d", index);
  CHECK(MPI_Testsome(2, two, &outcount, idx, MPI_STATUSES_IGNORE) ==
                MPI_SUCCESS &&
            outcount == 1 && idx[0] == 1 - index,
        "Testsome: %d done", outcount);
  CHECK(two[0] == MPI_REQUEST_NULL && two[1] == MPI_REQUEST_NULL,
        "Testsome left a request");
  for (int v = 105; v < 108; v++) /* blocking sends */
    MPI_Send(&v, 1, MPI_INT, 1, REQ_TAG, MPI_COMM_WORLD);
}

static void requests_receiver(void) {
  for (int want = 100; want < 108; want++) {
    int v = -1;
    MPI_Recv(&v, 1, MPI_INT, 0, REQ_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(v == want, "received %d, want %d", v, want);
  }
}

static void test_self(int rank) {
  enum { N = 100 };
  int out[N], in[N];
  MPI_Request reqs[N];
  for (int i = 0; i < N; i++) {
    out[i] = rank * 1000 + i;
    MPI_Isend(&out[i], 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &reqs[i]);
  }
  for (int i = 0; i < N; i++) {
    MPI_Recv(&in[i], 1, MPI_INT, rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(in[i] == rank * 1000 + i, "self message %d: %d", i, in[i]);
  }
  CHECK(MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS,
        "self Waitall");
}

/* ---- receives of messages that already arrived ------------------------ */

#define ARRIVED_TAG 20

static void arrived_sender(void) {
  int small = 41, sync = 42, last = 44;
  char big[100];
  MPI_Request sreq;
  memset(big, 'b', sizeof big);
  MPI_Send(&small, 1, MPI_INT, 1, ARRIVED_TAG + 1, MPI_COMM_WORLD);
  MPI_Issend(&sync, 1, MPI_INT, 1, ARRIVED_TAG + 2, MPI_COMM_WORLD, &sreq);
  MPI_Send(big, sizeof big, MPI_CHAR, 1, ARRIVED_TAG + 3, MPI_COMM_WORLD);
  MPI_Send(&last, 1, MPI_INT, 1, ARRIVED_TAG + 4, MPI_COMM_WORLD);
  /* Completes only once rank 1 matched it. */
  CHECK(MPI_Wait(&sreq, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Issend failed");
}

static void arrived_receiver(void) {
  MPI_Status st;
  MPI_Request r;
  int v = 0, count = -1;
  char small_buf[10];
  /* Every message has arrived once the last one is visible (pair order). */
  MPI_Probe(0, ARRIVED_TAG + 4, MPI_COMM_WORLD, &st);
  MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(v == 41 && st.MPI_SOURCE == 0 && st.MPI_TAG == ARRIVED_TAG + 1 &&
            count == 1,
        "wildcard Recv: value %d source %d tag %d count %d", v, st.MPI_SOURCE,
        st.MPI_TAG, count);
  CHECK(MPI_Irecv(&v, 4, MPI_INT, 0, ARRIVED_TAG + 2, MPI_COMM_WORLD, &r) ==
            MPI_SUCCESS,
        "Irecv failed");
  CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS && r == MPI_REQUEST_NULL,
        "Wait on the Irecv");
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(v == 42 && st.MPI_SOURCE == 0 && st.MPI_TAG == ARRIVED_TAG + 2 &&
            count == 1,
        "Irecv: value %d source %d tag %d count %d", v, st.MPI_SOURCE,
        st.MPI_TAG, count);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Recv(small_buf, sizeof small_buf, MPI_CHAR, 0, ARRIVED_TAG + 3,
                    MPI_COMM_WORLD, &st);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "100 bytes into 10: class %d",
        mt_class(rc));
  MPI_Recv(&v, 1, MPI_INT, 0, ARRIVED_TAG + 4, MPI_COMM_WORLD, &st);
  CHECK(v == 44, "last message: %d", v);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");
  test_order(rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    requests_sender();
  else if (rank == 1)
    requests_receiver();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    arrived_sender();
  else if (rank == 1)
    arrived_receiver();
  MPI_Barrier(MPI_COMM_WORLD);
  test_self(rank);
  MPI_Finalize();
  if (rank == 0)
    printf("immediate: OK (%d ranks)\n", size);
  return 0;
}
