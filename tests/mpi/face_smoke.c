/*
 * Smoke test of the MPI face over every call it binds: argument errors
 * under MPI_ERRORS_RETURN, point-to-point in every mode, requests, probes,
 * persistent and buffered sends, communicators, attributes, statuses.
 * Run with 2 or more ranks (face_smoke.sh: 2, 3 and 4); prints
 * "face_smoke: OK" on rank 0.  Beyond the single-topic tests it covers a
 * user error handler freed while installed, MPI_Comm_call_errhandler,
 * error-handler inheritance on dup, MPI_ERR_IN_STATUS per-request errors
 * and the MPI_ERROR field left alone by single completions.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

static int failures;
static int me, np;

static void expect(int cond, const char *what, int line) {
  if (!cond) {
    fprintf(stderr, "[%d] face_smoke:%d: FAILED: %s\n", me, line, what);
    failures++;
  }
}
#define EXPECT(c) expect((c), #c, __LINE__)

/* MPI implementations may return codes that carry more than the class. */
static int cls(int code) {
  int c = -1;
  MPI_Error_class(code, &c);
  return c;
}

static int handler_calls;
static int handler_last;
static void count_errors(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  handler_calls++;
  handler_last = *code;
}

static void test_argument_errors(void) {
  int buf[4] = {0};
  MPI_Request req = (MPI_Request)MPI_COMM_WORLD; /* wrong object type */
  MPI_Status st;
  EXPECT(cls(MPI_Send(buf, 1, MPI_INT, np, 0, MPI_COMM_WORLD)) == MPI_ERR_RANK);
  EXPECT(cls(MPI_Send(buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD)) == MPI_ERR_TAG);
  EXPECT(cls(MPI_Recv(buf, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, &st)) ==
         MPI_ERR_TAG);
  EXPECT(cls(MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD)) ==
         MPI_ERR_COUNT);
  EXPECT(cls(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD)) ==
         MPI_ERR_TYPE);
#ifdef HCMPI /* a builtin-looking handle that names no type */
  EXPECT(cls(MPI_Send(buf, 1, (MPI_Datatype)0x4c00ff7f, 0, 0,
                      MPI_COMM_WORLD)) == MPI_ERR_TYPE);
#endif
  EXPECT(cls(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL)) == MPI_ERR_COMM);
  EXPECT(cls(MPI_Send(NULL, 1, MPI_INT, 0, 0, MPI_COMM_WORLD)) ==
         MPI_ERR_BUFFER);
  EXPECT(cls(MPI_Wait(&req, &st)) == MPI_ERR_REQUEST);
  EXPECT(cls(MPI_Bcast(buf, 1, MPI_INT, np, MPI_COMM_WORLD)) == MPI_ERR_ROOT);
  EXPECT(cls(MPI_Comm_rank(MPI_COMM_WORLD, NULL)) == MPI_ERR_ARG);
  int eclass = -1;
  EXPECT(MPI_Error_class(MPI_ERR_RANK, &eclass) == MPI_SUCCESS &&
         eclass == MPI_ERR_RANK);
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  EXPECT(MPI_Error_string(MPI_ERR_TRUNCATE, text, &len) == MPI_SUCCESS);
  EXPECT(len > 0 && strstr(text, "truncat") != NULL);
#ifdef HCMPI
  EXPECT(MPI_Error_string(12345, text, &len) == MPI_SUCCESS &&
         strcmp(text, "unknown error code 12345") == 0);
#endif

  MPI_Errhandler eh;
  EXPECT(MPI_Comm_create_errhandler(count_errors, &eh) == MPI_SUCCESS);
  EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh) == MPI_SUCCESS);
  EXPECT(MPI_Errhandler_free(&eh) == MPI_SUCCESS && eh == MPI_ERRHANDLER_NULL);
  EXPECT(cls(MPI_Send(buf, 1, MPI_INT, -9, 0, MPI_COMM_WORLD)) == MPI_ERR_RANK);
  EXPECT(handler_calls == 1 && cls(handler_last) == MPI_ERR_RANK);
  EXPECT(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER) ==
         MPI_SUCCESS);
  EXPECT(handler_calls == 2 && cls(handler_last) == MPI_ERR_OTHER);
  MPI_Errhandler got;
  EXPECT(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got) == MPI_SUCCESS);
  EXPECT(MPI_Errhandler_free(&got) == MPI_SUCCESS);
  EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) ==
         MPI_SUCCESS);
  EXPECT(MPI_Errhandler_get(MPI_COMM_WORLD, &got) == MPI_SUCCESS &&
         got == MPI_ERRORS_RETURN);
}

static void test_ring(void) {
  int right = (me + 1) % np, left = (me + np - 1) % np;
  double out[8], in[8];
  for (int i = 0; i < 8; i++)
    out[i] = me * 100 + i;
  MPI_Status st;
  memset(&st, 0x55, sizeof(st));
  int rc = MPI_Sendrecv(out, 8, MPI_DOUBLE, right, 3, in, 8, MPI_DOUBLE, left,
                        3, MPI_COMM_WORLD, &st);
  EXPECT(rc == MPI_SUCCESS);
  EXPECT(in[7] == left * 100 + 7);
  EXPECT(st.MPI_SOURCE == left && st.MPI_TAG == 3);
  EXPECT(st.MPI_ERROR == 0x55555555); /* untouched by single completion */
  int count = -1;
  EXPECT(MPI_Get_count(&st, MPI_DOUBLE, &count) == MPI_SUCCESS && count == 8);
  EXPECT(MPI_Get_count(&st, MPI_LONG_DOUBLE, &count) == MPI_SUCCESS &&
         count == 4);

  int v = me;
  rc = MPI_Sendrecv_replace(&v, 1, MPI_INT, right, 4, left, 4, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE);
  EXPECT(rc == MPI_SUCCESS && v == left);

  MPI_Request reqs[4];
  int a[2] = {me, -me}, b[2] = {0, 0}, c = 0;
  MPI_Irecv(b, 2, MPI_INT, left, 5, MPI_COMM_WORLD, &reqs[0]);
  MPI_Irecv(&c, 1, MPI_INT, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &reqs[1]);
  MPI_Isend(a, 2, MPI_INT, right, 5, MPI_COMM_WORLD, &reqs[2]);
  MPI_Issend(&me, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &reqs[3]);
  MPI_Status sts[4];
  EXPECT(MPI_Waitall(4, reqs, sts) == MPI_SUCCESS);
  EXPECT(b[0] == left && b[1] == -left && c == right);
  EXPECT(sts[1].MPI_SOURCE == right && sts[1].MPI_TAG == 6);
  for (int i = 0; i < 4; i++)
    EXPECT(reqs[i] == MPI_REQUEST_NULL);
}

static void test_proc_null_and_empty(void) {
  MPI_Status st;
  int x = 7;
  EXPECT(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == 0);
  EXPECT(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st) == 0);
  int n = -1;
  MPI_Get_count(&st, MPI_INT, &n);
  EXPECT(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG &&
         n == 0 && x == 7);
  MPI_Request r = MPI_REQUEST_NULL;
  EXPECT(MPI_Wait(&r, &st) == MPI_SUCCESS);
  EXPECT(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG);
  int idx = 0, flag = 0;
  MPI_Request rs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  EXPECT(MPI_Waitany(2, rs, &idx, &st) == 0 && idx == MPI_UNDEFINED);
  EXPECT(MPI_Testany(2, rs, &idx, &flag, &st) == 0 && flag == 1 &&
         idx == MPI_UNDEFINED);
  int outc = 0, ind[2];
  EXPECT(MPI_Waitsome(2, rs, &outc, ind, MPI_STATUSES_IGNORE) == 0 &&
         outc == MPI_UNDEFINED);
  MPI_Message m;
  EXPECT(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st) == 0 &&
         m == MPI_MESSAGE_NO_PROC);
  EXPECT(MPI_Mrecv(&x, 1, MPI_INT, &m, &st) == 0 && m == MPI_MESSAGE_NULL &&
         st.MPI_SOURCE == MPI_PROC_NULL);
}

static void test_probe_mprobe_truncate(void) {
  int right = (me + 1) % np, left = (me + np - 1) % np;
  int data[3] = {me, me + 1, me + 2};
  MPI_Request r;
  MPI_Isend(data, 3, MPI_INT, right, 9, MPI_COMM_WORLD, &r);
  MPI_Status st;
  EXPECT(MPI_Probe(left, 9, MPI_COMM_WORLD, &st) == 0);
  int n = 0;
  MPI_Get_count(&st, MPI_INT, &n);
  EXPECT(n == 3 && st.MPI_SOURCE == left);
  MPI_Message m;
  EXPECT(MPI_Mprobe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &m, &st) == 0);
  int got[3] = {0};
  EXPECT(MPI_Mrecv(got, 3, MPI_INT, &m, &st) == 0 && got[2] == left + 2);
  MPI_Wait(&r, MPI_STATUS_IGNORE);

  MPI_Isend(data, 3, MPI_INT, right, 10, MPI_COMM_WORLD, &r);
  int small[2];
  int rc = MPI_Recv(small, 2, MPI_INT, left, 10, MPI_COMM_WORLD, &st);
  EXPECT(cls(rc) == MPI_ERR_TRUNCATE);
  MPI_Wait(&r, MPI_STATUS_IGNORE);

  int flag = 1;
  EXPECT(MPI_Iprobe(left, 11, MPI_COMM_WORLD, &flag, &st) == 0 && flag == 0);
  MPI_Request rr;
  MPI_Irecv(small, 1, MPI_INT, left, 12, MPI_COMM_WORLD, &rr);
  EXPECT(MPI_Cancel(&rr) == 0);
  EXPECT(MPI_Wait(&rr, &st) == 0);
  EXPECT(MPI_Test_cancelled(&st, &flag) == 0 && flag == 1);
}

static void test_persistent(void) {
  int right = (me + 1) % np, left = (me + np - 1) % np;
  int out = 0, in = -1;
  MPI_Request r[2];
  MPI_Recv_init(&in, 1, MPI_INT, left, 20, MPI_COMM_WORLD, &r[0]);
  MPI_Send_init(&out, 1, MPI_INT, right, 20, MPI_COMM_WORLD, &r[1]);
  MPI_Status st;
  EXPECT(MPI_Wait(&r[0], &st) == 0 && r[0] != MPI_REQUEST_NULL &&
         st.MPI_TAG == MPI_ANY_TAG); /* inactive: returns at once */
  for (int it = 0; it < 3; it++) {
    out = me * 10 + it;
    EXPECT(MPI_Startall(2, r) == 0);
    EXPECT(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == 0);
    EXPECT(in == left * 10 + it);
    EXPECT(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL);
  }
  EXPECT(MPI_Start(&r[0]) == 0);
  EXPECT(cls(MPI_Start(&r[0])) == MPI_ERR_REQUEST); /* already active */
  MPI_Send(&out, 1, MPI_INT, right, 20, MPI_COMM_WORLD);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  EXPECT(MPI_Request_free(&r[0]) == 0 && r[0] == MPI_REQUEST_NULL);
  EXPECT(MPI_Request_free(&r[1]) == 0);
}

static void test_bsend(void) {
  int right = (me + 1) % np, left = (me + np - 1) % np;
  int size = 2 * (4 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
  char *buf = malloc((size_t)size);
  int data[4] = {me, 1, 2, 3}, got[4];
  EXPECT(cls(MPI_Bsend(data, 4, MPI_INT, right, 30, MPI_COMM_WORLD)) ==
         MPI_ERR_BUFFER); /* nothing attached */
  EXPECT(MPI_Buffer_attach(buf, size) == 0);
  EXPECT(MPI_Bsend(data, 4, MPI_INT, right, 30, MPI_COMM_WORLD) == 0);
  MPI_Request r;
  EXPECT(MPI_Ibsend(data, 4, MPI_INT, right, 31, MPI_COMM_WORLD, &r) == 0);
  /* A third message fits only if one of the first two already left the
   * buffer: either outcome is right, but it must be one of the two, and
   * the right neighbour must then get the message or not get it. */
  int rc32 = MPI_Bsend(data, 4, MPI_INT, right, 32, MPI_COMM_WORLD);
  EXPECT(rc32 == MPI_SUCCESS || cls(rc32) == MPI_ERR_BUFFER);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_Recv(got, 4, MPI_INT, left, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  EXPECT(got[0] == left);
  MPI_Recv(got, 4, MPI_INT, left, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  EXPECT(got[0] == left && got[3] == 3);
  void *back = NULL;
  int backsize = 0;
  EXPECT(MPI_Buffer_detach(&back, &backsize) == 0);
  EXPECT(back == buf && backsize == size);
  int sent32 = rc32 == MPI_SUCCESS, left_sent32 = -1, flag = 1;
  MPI_Sendrecv(&sent32, 1, MPI_INT, right, 33, &left_sent32, 1, MPI_INT, left,
               33, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (left_sent32 == 1) {
    got[0] = -1;
    MPI_Recv(got, 4, MPI_INT, left, 32, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT(got[0] == left);
  } else {
    MPI_Iprobe(left, 32, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    EXPECT(left_sent32 == 0 && flag == 0);
  }
  free(buf);
}

static void test_multi_completion(void) {
  int right = (me + 1) % np, left = (me + np - 1) % np;
  int big[4] = {1, 2, 3, 4}, small = 0, ok = 0;
  MPI_Request r[4];
  MPI_Status st[4];
  MPI_Irecv(&small, 1, MPI_INT, left, 40, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(&ok, 1, MPI_INT, left, 41, MPI_COMM_WORLD, &r[1]);
  MPI_Isend(big, 4, MPI_INT, right, 40, MPI_COMM_WORLD, &r[2]);
  MPI_Isend(big, 1, MPI_INT, right, 41, MPI_COMM_WORLD, &r[3]);
  for (int i = 0; i < 4; i++)
    st[i].MPI_ERROR = -1;
  EXPECT(cls(MPI_Waitall(4, r, st)) == MPI_ERR_IN_STATUS);
  EXPECT(cls(st[0].MPI_ERROR) == MPI_ERR_TRUNCATE);
#ifdef HCMPI /* the standard's rule; MPICH may leave these PENDING */
  EXPECT(st[1].MPI_ERROR == MPI_SUCCESS && ok == 1);
  EXPECT(st[2].MPI_ERROR == MPI_SUCCESS && st[3].MPI_ERROR == MPI_SUCCESS);
#endif

  enum { N = 6 };
  int in[N], out[N];
  MPI_Request rq[2 * N];
  for (int i = 0; i < N; i++) {
    out[i] = me * 1000 + i;
    MPI_Irecv(&in[i], 1, MPI_INT, left, 50 + i, MPI_COMM_WORLD, &rq[i]);
  }
  for (int i = 0; i < N; i++)
    MPI_Isend(&out[i], 1, MPI_INT, right, 50 + i, MPI_COMM_WORLD, &rq[N + i]);
  int done = 0, outc, idx[2 * N];
  MPI_Status sts[2 * N];
  while (done < 2 * N) {
    EXPECT(MPI_Testsome(2 * N, rq, &outc, idx, sts) == MPI_SUCCESS);
    if (outc == MPI_UNDEFINED)
      break;
    for (int k = 0; k < outc; k++)
      EXPECT(rq[idx[k]] == MPI_REQUEST_NULL);
    done += outc;
  }
  EXPECT(done == 2 * N);
  for (int i = 0; i < N; i++)
    EXPECT(in[i] == left * 1000 + i);

  for (int i = 0; i < N; i++)
    MPI_Irecv(&in[i], 1, MPI_INT, left, 60 + i, MPI_COMM_WORLD, &rq[i]);
  for (int i = 0; i < N; i++)
    MPI_Isend(&out[i], 1, MPI_INT, right, 60 + i, MPI_COMM_WORLD, &rq[N + i]);
  done = 0;
  int index = -1, flag = 0;
  while (done < 2 * N) {
    EXPECT(MPI_Waitany(2 * N, rq, &index, &sts[0]) == MPI_SUCCESS);
    EXPECT(index >= 0 && rq[index] == MPI_REQUEST_NULL);
    done++;
  }
  EXPECT(MPI_Waitany(2 * N, rq, &index, &sts[0]) == 0 &&
         index == MPI_UNDEFINED);
  EXPECT(MPI_Testall(2 * N, rq, &flag, MPI_STATUSES_IGNORE) == 0 && flag);
  MPI_Request gs;
  MPI_Isend(&out[0], 1, MPI_INT, me, 70, MPI_COMM_WORLD, &gs);
  MPI_Recv(&in[0], 1, MPI_INT, me, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  do {
    EXPECT(MPI_Request_get_status(gs, &flag, MPI_STATUS_IGNORE) == 0);
  } while (!flag);
  EXPECT(gs != MPI_REQUEST_NULL);
  EXPECT(MPI_Wait(&gs, MPI_STATUS_IGNORE) == 0 && gs == MPI_REQUEST_NULL);
}

static void test_comms(void) {
  MPI_Comm dup, half;
  EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == 0);
  int res = -1;
  EXPECT(MPI_Comm_compare(MPI_COMM_WORLD, dup, &res) == 0 &&
         res == MPI_CONGRUENT);
  EXPECT(MPI_Comm_compare(dup, dup, &res) == 0 && res == MPI_IDENT);
  MPI_Errhandler eh;
  MPI_Comm_get_errhandler(dup, &eh);
  EXPECT(eh == MPI_ERRORS_RETURN); /* inherited */
  EXPECT(MPI_Comm_split(MPI_COMM_WORLD, me == 0 ? MPI_UNDEFINED : me % 2, -me,
                        &half) == 0);
  if (me == 0) {
    EXPECT(half == MPI_COMM_NULL);
  } else {
    /* Ranks 1..np-1 of my parity, ordered by descending world rank. */
    int hs, hr, want_size = 0, want_rank = 0;
    for (int r = 1; r < np; r++) {
      want_size += r % 2 == me % 2;
      want_rank += r % 2 == me % 2 && r > me;
    }
    MPI_Comm_size(half, &hs);
    MPI_Comm_rank(half, &hr);
    EXPECT(hs == want_size && hr == want_rank);
    EXPECT(MPI_Comm_free(&half) == 0 && half == MPI_COMM_NULL);
  }
  int *tag_ub = NULL, flag = 0;
  EXPECT(MPI_Comm_get_attr(dup, MPI_TAG_UB, &tag_ub, &flag) == 0 && flag &&
         *tag_ub == 268435455);
  EXPECT(MPI_Comm_get_attr(dup, MPI_WTIME_IS_GLOBAL, &tag_ub, &flag) == 0 &&
         flag && *tag_ub == 0);
  MPI_Comm world = MPI_COMM_WORLD;
  EXPECT(cls(MPI_Comm_free(&world)) == MPI_ERR_COMM);
  EXPECT(MPI_Comm_free(&dup) == 0 && dup == MPI_COMM_NULL);
}

int main(int argc, char **argv) {
  int provided = -1, flag = 0;
  EXPECT(MPI_Initialized(&flag) == 0 && flag == 0);
  EXPECT(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) == 0);
  MPI_Query_thread(&flag);
  EXPECT(flag == provided);
  MPI_Is_thread_main(&flag);
  EXPECT(flag == 1);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  char name[MPI_MAX_PROCESSOR_NAME];
  int len;
  EXPECT(MPI_Get_processor_name(name, &len) == 0 && len > 0);
  char ver[MPI_MAX_LIBRARY_VERSION_STRING];
  EXPECT(MPI_Get_library_version(ver, &len) == 0 && len > 0);
#ifdef HCMPI
  EXPECT(strncmp(ver, "hcmpi ", 6) == 0);
#endif
  EXPECT(MPI_Wtime() > 0 && MPI_Wtick() > 0);

  test_argument_errors();
  test_ring();
  test_proc_null_and_empty();
  test_probe_mprobe_truncate();
  test_persistent();
  test_bsend();
  test_multi_completion();
  test_comms();

  EXPECT(MPI_Finalize() == 0);
  EXPECT(MPI_Finalized(&flag) == 0 && flag == 1);
  if (me == 0 && failures == 0)
    printf("face_smoke: OK (%d ranks)\n", np);
  return failures ? 1 : 0;
}
