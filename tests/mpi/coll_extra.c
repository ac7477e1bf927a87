/* The collective cases coll_full.c leaves out, each against a serial
 * reference: messages above 1 MiB (run on 5 and 8 ranks too), v-forms,
 * Alltoallw and Reduce_scatter with large uneven blocks (zero-sized ones
 * among them), MPI_IN_PLACE in Gatherv, Scatterv, Alltoallv and Alltoallw,
 * Alltoallv's negative displacements, NULL buffers and bad arguments,
 * Allgatherv in place and with negative displacements, Alltoallw with
 * a type per block and its bad types,
 * derived datatypes in Scatter, Alltoall, Ibcast and Iallgather, the pair,
 * bool and complex types and MPI_REPLACE / MPI_NO_OP through collectives,
 * and MPI_BOTTOM with a type of absolute addresses. */
#include "mpitest.h"

#include <complex.h>
#include <stdbool.h>

#define BIG (300 * 1024) /* ints: 1.2 MiB */
#define GAP (-7)

static int rank, size;
static MPI_Comm world = MPI_COMM_WORLD;

static int val(int r, int i) { return (r * 131 + i * 7) % 1000 - 300; }
static int *ialloc(size_t n) { return mt_malloc((n ? n : 1) * sizeof(int)); }

static void ok(int rc, const char *what) {
  CHECK(rc == MPI_SUCCESS, "%s: %s", what, mt_errstr(rc));
}

static void wait_ok(MPI_Request *r, const char *what) {
  ok(MPI_Wait(r, MPI_STATUS_IGNORE), what);
}

/* ---- above 1 MiB ----------------------------------------------------------
 */

static void t_big(void) {
  int root = size - 1;
  int *a = ialloc(BIG), *b = ialloc(BIG);
  for (int i = 0; i < BIG; i++)
    a[i] = rank == root ? val(root, i) : GAP;
  ok(MPI_Bcast(a, BIG, MPI_INT, root, world), "big bcast");
  for (int i = 0; i < BIG; i++)
    CHECK(a[i] == val(root, i), "big bcast [%d] = %d", i, a[i]);
  for (int i = 0; i < BIG; i++)
    a[i] = val(rank, i);
  ok(MPI_Allreduce(a, b, BIG, MPI_INT, MPI_MAX, world), "big allreduce");
  for (int i = 0; i < BIG; i += 97) {
    int want = val(0, i);
    for (int q = 1; q < size; q++)
      want = val(q, i) > want ? val(q, i) : want;
    CHECK(b[i] == want, "big allreduce [%d] = %d want %d", i, b[i], want);
  }
  /* Allgather and Alltoall: 1.2 MiB in all, spread over the ranks. */
  int n = BIG / size;
  ok(MPI_Allgather(a, n, MPI_INT, b, n, MPI_INT, world), "big allgather");
  for (int q = 0; q < size; q++)
    for (int i = 0; i < n; i += 31)
      CHECK(b[(size_t)q * n + i] == val(q, i), "big allgather %d [%d]", q, i);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < n; i++)
      a[(size_t)q * n + i] = val(rank * 64 + q, i);
  ok(MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, world), "big alltoall");
  for (int q = 0; q < size; q++)
    for (int i = 0; i < n; i += 31)
      CHECK(b[(size_t)q * n + i] == val(q * 64 + rank, i), "big alltoall");
  free(a);
  free(b);
}

/* ---- large uneven v-forms -------------------------------------------------
 */

/* Block of rank a for rank b: zero for some pairs, up to ~40k ints. */
static int uneven(int a, int b) {
  return (a * 5 + b * 3) % 4 == 0 ? 0 : (a * 7919 + b * 104729) % 40000 + 1;
}

static void t_uneven_v(void) {
  int cnt[64] = {0}, dsp[64] = {0}, total = 0;
  for (int q = size - 1; q >= 0; q--) { /* reverse order, gap of 3 */
    cnt[q] = uneven(q, 0);
    dsp[q] = total;
    total += cnt[q] + 3;
  }
  int root = size / 2;
  int *s = ialloc((size_t)cnt[rank]), *g = ialloc((size_t)total);
  for (int i = 0; i < cnt[rank]; i++)
    s[i] = val(rank, i);
  for (int i = 0; i < total; i++)
    g[i] = GAP;
  ok(MPI_Gatherv(s, cnt[rank], MPI_INT, g, cnt, dsp, MPI_INT, root, world),
     "uneven gatherv");
  for (int q = 0; rank == root && q < size; q++) {
    for (int i = 0; i < cnt[q]; i++)
      CHECK(g[dsp[q] + i] == val(q, i), "uneven gatherv %d [%d]", q, i);
    CHECK(g[dsp[q] + cnt[q]] == GAP, "gatherv wrote a gap");
  }
  ok(MPI_Allgatherv(s, cnt[rank], MPI_INT, g, cnt, dsp, MPI_INT, world),
     "uneven allgatherv");
  for (int q = 0; q < size; q++)
    for (int i = 0; i < cnt[q]; i++)
      CHECK(g[dsp[q] + i] == val(q, i), "uneven allgatherv %d [%d]", q, i);
  for (int i = 0; i < cnt[rank]; i++)
    s[i] = GAP;
  ok(MPI_Scatterv(g, cnt, dsp, MPI_INT, s, cnt[rank], MPI_INT, root, world),
     "uneven scatterv");
  for (int i = 0; i < cnt[rank]; i++)
    CHECK(s[i] == val(rank, i), "uneven scatterv [%d]", i);
  free(s);
  free(g);
}

/* Allgatherv in place and with negative displacements (blocks before the
 * receive buffer's address, in reverse rank order), the int and
 * large-count forms. */
static void t_allgatherv_edges(void) {
  int cnt[64], dsp[64];
  MPI_Count cntw[64];
  MPI_Aint dspw[64];
  int *g = ialloc((size_t)size * 2 + 1), *end = g + 2 * size;
  for (int q = 0; q < size; q++) {
    cnt[q] = cntw[q] = 2;
    dsp[q] = dspw[q] = -2 * (q + 1);
  }
  int mine[2] = {val(rank, 0), val(rank, 1)};
  for (int form = 0; form < 3; form++) {
    for (int i = 0; i < 2 * size + 1; i++)
      g[i] = GAP;
    if (form == 2) { /* in place: this rank's block is in the buffer */
      end[dsp[rank]] = mine[0];
      end[dsp[rank] + 1] = mine[1];
    }
    int e = form == 0 ? MPI_Allgatherv(mine, 2, MPI_INT, end, cnt, dsp, MPI_INT,
                                       world)
            : form == 1 ? MPI_Allgatherv_c(mine, 2, MPI_INT, end, cntw, dspw,
                                           MPI_INT, world)
                        : MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
                                         end, cnt, dsp, MPI_INT, world);
    ok(e, "allgatherv, negative displacements");
    for (int q = 0; q < size; q++)
      for (int i = 0; i < 2; i++)
        CHECK(end[dsp[q] + i] == val(q, i),
              "allgatherv form %d from %d [%d] = %d", form, q, i,
              end[dsp[q] + i]);
    CHECK(*end == GAP, "allgatherv form %d wrote past its blocks", form);
  }
  free(g);
}

/* Alltoallv beyond the plain layout, the int and large-count forms:
 * negative displacements (blocks before the buffer's address) move the
 * same data; NULL buffers move nothing where every count is 0; and each
 * bad argument alone, the same on every rank, returns its error class
 * (MPI_ERRORS_RETURN). */
static void t_alltoallv_edges(void) {
  int sc[64], sd[64], rc[64], rd[64];
  MPI_Count scw[64], rcw[64];
  MPI_Aint sdw[64], rdw[64];
  int *s = ialloc((size_t)size * 2), *d = ialloc((size_t)size * 2 + 1);
  for (int q = 0; q < size; q++) {
    sc[q] = rc[q] = 2;
    sd[q] = rd[q] = -2 * (size - q); /* from the end of the buffers */
    scw[q] = rcw[q] = 2;
    sdw[q] = rdw[q] = sd[q];
    for (int i = 0; i < 2; i++)
      s[2 * q + i] = val(rank * 64 + q, i);
  }
  for (int large = 0; large < 2; large++) {
    for (int i = 0; i < 2 * size + 1; i++)
      d[i] = GAP;
    int e = large ? MPI_Alltoallv_c(s + 2 * size, scw, sdw, MPI_INT,
                                    d + 2 * size, rcw, rdw, MPI_INT, world)
                  : MPI_Alltoallv(s + 2 * size, sc, sd, MPI_INT, d + 2 * size,
                                  rc, rd, MPI_INT, world);
    ok(e, large ? "alltoallv_c, negative displacements"
                : "alltoallv, negative displacements");
    for (int q = 0; q < size; q++)
      for (int i = 0; i < 2; i++)
        CHECK(d[2 * q + i] == val(q * 64 + rank, i),
              "alltoallv%s negative displacements from %d [%d] = %d",
              large ? "_c" : "", q, i, d[2 * q + i]);
    CHECK(d[2 * size] == GAP, "alltoallv%s wrote past its blocks",
          large ? "_c" : "");
  }
  int zero[64] = {0};
  ok(MPI_Alltoallv(NULL, zero, zero, MPI_INT, NULL, zero, zero, MPI_INT, world),
     "alltoallv of nothing, NULL buffers");

  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  for (int q = 0; q < size; q++)
    sd[q] = rd[q] = 2 * q;
  struct {
    const char *what;
    int err;
  } bad[] = {{"NULL sendcounts", MPI_ERR_ARG},
             {"NULL rdispls", MPI_ERR_ARG},
             {"a send count of -1", MPI_ERR_COUNT},
             {"a receive count of -1", MPI_ERR_COUNT},
             {"NULL sendbuf with data", MPI_ERR_BUFFER},
             {"NULL recvbuf with data", MPI_ERR_BUFFER},
             {"MPI_DATATYPE_NULL received", MPI_ERR_TYPE}};
  for (int k = 0; k < (int)(sizeof bad / sizeof bad[0]); k++) {
    int last = size - 1, saved_sc = sc[last], saved_rc = rc[last];
    if (k == 2)
      sc[last] = -1;
    if (k == 3)
      rc[last] = -1;
    int e = MPI_Alltoallv(k == 4 ? NULL : s, k == 0 ? NULL : sc, sd, MPI_INT,
                          k == 5 ? NULL : d, rc, k == 1 ? NULL : rd,
                          k == 6 ? MPI_DATATYPE_NULL : MPI_INT, world);
    int cls = MPI_SUCCESS;
    MPI_Error_class(e, &cls);
    CHECK(cls == bad[k].err, "alltoallv with %s: %s", bad[k].what,
          mt_errstr(e));
    sc[last] = saved_sc;
    rc[last] = saved_rc;
  }
  MPI_Comm_set_errhandler(world, MPI_ERRORS_ARE_FATAL);
  free(s);
  free(d);
}

/* Alltoallw with a type per block: 2 ints to each rank, received as one
 * contiguous pair where the sender is odd (a second dense type after the
 * first block), as a strided pair (not dense: packed) where vec is set;
 * then the types array NULL, and an uncommitted type on the last block,
 * each the same on every rank, return their error classes. */
static void t_alltoallw_types(void) {
  int sc[64], rc[64], sdb[64], rdb[64];
  MPI_Datatype st[64], rt[64], pair, strided, loose;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  int *s = ialloc((size_t)size * 2), *d = ialloc((size_t)size * 4 + 1);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < 2; i++)
      s[2 * q + i] = val(rank * 64 + q, i);
  for (int vec = 0; vec < 2; vec++) {
    for (int q = 0; q < size; q++) {
      sc[q] = 2;
      st[q] = MPI_INT;
      sdb[q] = 2 * q * (int)sizeof(int);
      rc[q] = q % 2 ? 1 : 2;
      rt[q] = q % 2 ? (vec ? strided : pair) : MPI_INT;
      rdb[q] = 4 * q * (int)sizeof(int);
    }
    for (int i = 0; i < 4 * size + 1; i++)
      d[i] = GAP;
    ok(MPI_Alltoallw(s, sc, sdb, st, d, rc, rdb, rt, world),
       vec ? "alltoallw, strided pairs" : "alltoallw, contiguous pairs");
    for (int q = 0; q < size; q++)
      for (int i = 0; i < 2; i++) {
        int at = 4 * q + (q % 2 && vec ? 2 * i : i);
        CHECK(d[at] == val(q * 64 + rank, i),
              "alltoallw vec %d from %d [%d] = %d", vec, q, i, d[at]);
      }
    CHECK(d[4 * size] == GAP, "alltoallw vec %d wrote past its blocks", vec);
  }
  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  int cls = MPI_SUCCESS;
  for (int q = 0; q < size; q++)
    rt[q] = MPI_INT;
  rc[size - 1] = 2;
  MPI_Error_class(MPI_Alltoallw(s, sc, sdb, NULL, d, rc, rdb, rt, world), &cls);
  CHECK(cls == MPI_ERR_ARG, "alltoallw with NULL sendtypes: class %d", cls);
  MPI_Type_contiguous(2, MPI_INT, &loose); /* never committed */
  rt[size - 1] = loose;
  rc[size - 1] = 1;
  MPI_Error_class(MPI_Alltoallw(s, sc, sdb, st, d, rc, rdb, rt, world), &cls);
  CHECK(cls == MPI_ERR_TYPE, "alltoallw with an uncommitted type: class %d",
        cls);
  MPI_Comm_set_errhandler(world, MPI_ERRORS_ARE_FATAL);
  MPI_Type_free(&loose);
  MPI_Type_free(&pair);
  MPI_Type_free(&strided);
  free(s);
  free(d);
}

/* Alltoallv (w = 0) or Alltoallw (w = 1) of uneven(a, b) ints a -> b. */
static void t_uneven_a2a(int w, int in_place) {
  int sc[64] = {0}, sd[64] = {0}, rc[64] = {0}, rd[64] = {0}, sdb[64], rdb[64];
  int so = 0, ro = 0;
  MPI_Datatype ty[64];
  for (int q = 0; q < size; q++) {
    /* In place, what goes to q is replaced by what comes from q: the
     * counts of a pair agree both ways. */
    int lo = rank < q ? rank : q, hi = rank < q ? q : rank;
    sc[q] = in_place ? uneven(lo, hi) : uneven(rank, q);
    rc[q] = in_place ? uneven(lo, hi) : uneven(q, rank);
    sd[q] = so;
    rd[q] = ro;
    so += sc[q] + 1;
    ro += rc[q] + 1;
    sdb[q] = sd[q] * (int)sizeof(int);
    rdb[q] = rd[q] * (int)sizeof(int);
    ty[q] = MPI_INT;
  }
  int *s = ialloc((size_t)so), *d = ialloc((size_t)ro);
  for (int i = 0; i < ro; i++)
    d[i] = GAP;
  for (int q = 0; q < size; q++)
    for (int i = 0; i < sc[q]; i++)
      (in_place ? d + rd[q] : s + sd[q])[i] = val(rank * 64 + q, i);
  const void *sb = in_place ? MPI_IN_PLACE : s;
  int e = w ? MPI_Alltoallw(sb, sc, sdb, ty, d, rc, rdb, ty, world)
            : MPI_Alltoallv(sb, sc, sd, MPI_INT, d, rc, rd, MPI_INT, world);
  ok(e, w ? "uneven alltoallw" : "uneven alltoallv");
  for (int q = 0; q < size; q++) {
    for (int i = 0; i < rc[q]; i++)
      CHECK(d[rd[q] + i] == val(q * 64 + rank, i),
            "alltoall%s ip %d from %d [%d] = %d", w ? "w" : "v", in_place, q, i,
            d[rd[q] + i]);
    CHECK(d[rd[q] + rc[q]] == GAP, "alltoall%s wrote a gap", w ? "w" : "v");
  }
  free(s);
  free(d);
}

static void t_uneven_reduce_scatter(void) {
  int cnt[64] = {0}, total = 0, off = 0;
  for (int q = 0; q < size; q++) {
    cnt[q] = uneven(q, q + 1);
    off += q < rank ? cnt[q] : 0;
    total += cnt[q];
  }
  int *s = ialloc((size_t)total), *d = ialloc((size_t)cnt[rank]);
  for (int i = 0; i < total; i++)
    s[i] = val(rank, i);
  ok(MPI_Reduce_scatter(s, d, cnt, MPI_INT, MPI_SUM, world),
     "uneven reduce_scatter");
  for (int i = 0; i < cnt[rank]; i++) {
    int want = 0;
    for (int q = 0; q < size; q++)
      want += val(q, off + i);
    CHECK(d[i] == want, "uneven reduce_scatter [%d] = %d want %d", i, d[i],
          want);
  }
  free(s);
  free(d);
}

/* ---- MPI_IN_PLACE in Gatherv and Scatterv ---------------------------------
 */

static void t_in_place_v(void) {
  int cnt[64] = {0}, dsp[64] = {0}, total = 0;
  for (int q = size - 1; q >= 0; q--) {
    cnt[q] = q % 3 + 2;
    dsp[q] = total;
    total += cnt[q] + 1;
  }
  int *g = ialloc((size_t)total), s[8];
  for (int root = 0; root < size; root++) {
    for (int i = 0; i < total; i++)
      g[i] = GAP;
    for (int i = 0; i < cnt[rank]; i++)
      (rank == root ? g + dsp[rank] : s)[i] = val(rank, i);
    const void *sb = rank == root ? MPI_IN_PLACE : s;
    ok(MPI_Gatherv(sb, cnt[rank], MPI_INT, g, cnt, dsp, MPI_INT, root, world),
       "in-place gatherv");
    for (int q = 0; rank == root && q < size; q++)
      for (int i = 0; i < cnt[q]; i++)
        CHECK(g[dsp[q] + i] == val(q, i), "in-place gatherv %d [%d]", q, i);
    for (int i = 0; i < 8; i++)
      s[i] = GAP;
    if (rank == root)
      for (int q = 0; q < size; q++)
        for (int i = 0; i < cnt[q]; i++)
          g[dsp[q] + i] = val(q + 50, i);
    void *rb = rank == root ? MPI_IN_PLACE : s;
    ok(MPI_Scatterv(g, cnt, dsp, MPI_INT, rb, cnt[rank], MPI_INT, root, world),
       "in-place scatterv");
    const int *got = rank == root ? g + dsp[rank] : s;
    for (int i = 0; i < cnt[rank]; i++)
      CHECK(got[i] == val(rank + 50, i), "in-place scatterv [%d]", i);
  }
  free(g);
}

/* ---- derived datatypes ----------------------------------------------------
 */

/* n ints at stride 2 (a vector) on one side, contiguous on the other. */
static void t_derived(void) {
  enum { N = 500 };
  MPI_Datatype vec;
  MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int *strided = ialloc((size_t)2 * N * size), *flat = ialloc((size_t)N * size);
  int root = size - 1;
  /* Scatter: the root sends vec blocks; ranks receive N contiguous ints.
   * vec's extent is 2N - 1 ints, so block q starts at 2N q only through a
   * resized type. */
  MPI_Datatype vecr;
  MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * N * sizeof(int)), &vecr);
  MPI_Type_commit(&vecr);
  for (int i = 0; i < 2 * N * size; i++)
    strided[i] = i % 2 ? GAP : val(i / (2 * N), i % (2 * N) / 2);
  ok(MPI_Scatter(strided, 1, vecr, flat, N, MPI_INT, root, world),
     "scatter vector");
  for (int i = 0; i < N; i++)
    CHECK(flat[i] == val(rank, i), "scatter vector [%d] = %d", i, flat[i]);
  /* Alltoall: send contiguous, receive vector blocks. */
  for (int q = 0; q < size; q++)
    for (int i = 0; i < N; i++)
      flat[q * N + i] = val(rank * 64 + q, i);
  for (int i = 0; i < 2 * N * size; i++)
    strided[i] = GAP;
  ok(MPI_Alltoall(flat, N, MPI_INT, strided, 1, vecr, world),
     "alltoall vector");
  for (int q = 0; q < size; q++)
    for (int i = 0; i < 2 * N; i++)
      CHECK(strided[q * 2 * N + i] == (i % 2 ? GAP : val(q * 64 + rank, i / 2)),
            "alltoall vector from %d [%d]", q, i);
  /* Ibcast and Iallgather of vector blocks. */
  MPI_Request r;
  for (int i = 0; i < 2 * N; i++)
    strided[i] = rank == root ? (i % 2 ? GAP : val(root, i / 2)) : GAP;
  ok(MPI_Ibcast(strided, 1, vec, root, world, &r), "ibcast vector");
  wait_ok(&r, "ibcast vector");
  for (int i = 0; i < 2 * N; i++)
    CHECK(strided[i] == (i % 2 ? GAP : val(root, i / 2)), "ibcast [%d]", i);
  for (int i = 0; i < N; i++)
    flat[i] = val(rank, i);
  for (int i = 0; i < 2 * N * size; i++)
    strided[i] = GAP;
  ok(MPI_Iallgather(flat, N, MPI_INT, strided, 1, vecr, world, &r),
     "iallgather vector");
  wait_ok(&r, "iallgather vector");
  for (int q = 0; q < size; q++)
    for (int i = 0; i < 2 * N; i++)
      CHECK(strided[q * 2 * N + i] == (i % 2 ? GAP : val(q, i / 2)),
            "iallgather from %d [%d]", q, i);
  MPI_Type_free(&vecr);
  MPI_Type_free(&vec);
  free(strided);
  free(flat);
}

/* ---- op x type: pairs, bool, complex, REPLACE, NO_OP ----------------------
 */

/* Value of rank q in pair i: ties across ranks, so the lower rank wins. */
static int pv(int q, int i) { return (q * 3 + i) % 4; }

/* want = MINLOC (min 1) or MAXLOC (min 0) of pv over the ranks. */
static void pair_ref(int i, int min, int *v, int *k) {
  *v = pv(0, i);
  *k = 0;
  for (int q = 1; q < size; q++)
    if (min ? pv(q, i) < *v : pv(q, i) > *v) {
      *v = pv(q, i);
      *k = q;
    }
}

#define PAIR_CASE(T, VT, H)                                                    \
  {                                                                            \
    T in[4], out[4];                                                           \
    for (int m = 0; m < 2; m++) {                                              \
      for (int i = 0; i < 4; i++)                                              \
        in[i] = (T){(VT)pv(rank, i), rank};                                    \
      ok(MPI_Allreduce(in, out, 4, H, m ? MPI_MINLOC : MPI_MAXLOC, world),     \
         #H);                                                                  \
      for (int i = 0; i < 4; i++) {                                            \
        int v, k;                                                              \
        pair_ref(i, m, &v, &k);                                                \
        CHECK(out[i].v == (VT)v && out[i].k == k, #H " %s [%d]: (%g, %d)",     \
              m ? "minloc" : "maxloc", i, (double)out[i].v, out[i].k);         \
      }                                                                        \
    }                                                                          \
  }

typedef struct {
  float v;
  int k;
} float_int;
typedef struct {
  long v;
  int k;
} long_int;
typedef struct {
  int v;
  int k;
} two_int;
typedef struct {
  short v;
  int k;
} short_int;
typedef struct {
  long double v;
  int k;
} ldouble_int;

static void t_pairs(void) {
  PAIR_CASE(float_int, float, MPI_FLOAT_INT)
  PAIR_CASE(long_int, long, MPI_LONG_INT)
  PAIR_CASE(two_int, int, MPI_2INT)
  PAIR_CASE(short_int, short, MPI_SHORT_INT)
  PAIR_CASE(ldouble_int, long double, MPI_LONG_DOUBLE_INT)
}

static void t_bool_complex(void) {
  bool b[3] = {rank % 2 == 0, true, rank == 0}, land[3], lor[3], lxor[3];
  int root = 0;
  ok(MPI_Reduce(b, land, 3, MPI_C_BOOL, MPI_LAND, root, world), "bool land");
  ok(MPI_Allreduce(b, lor, 3, MPI_C_BOOL, MPI_LOR, world), "bool lor");
  ok(MPI_Allreduce(b, lxor, 3, MPI_C_BOOL, MPI_LXOR, world), "bool lxor");
  int odd = size / 2; /* ranks with b[0] false */
  if (rank == root)
    CHECK(land[0] == (size == 1) && land[1] && land[2] == (size == 1),
          "bool land %d %d %d", land[0], land[1], land[2]);
  CHECK(lor[0] && lor[1] && lor[2], "bool lor");
  CHECK(lxor[0] == ((size - odd) % 2 == 1) && lxor[1] == (size % 2 == 1) &&
            lxor[2],
        "bool lxor %d %d %d", lxor[0], lxor[1], lxor[2]);
  double _Complex z = (rank + 1) + 1.0 * I, sum, prod, want_p = 1;
  float _Complex f = (float)rank - 2.0f * I, fsum;
  ok(MPI_Allreduce(&z, &sum, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, world),
     "complex sum");
  ok(MPI_Allreduce(&z, &prod, 1, MPI_C_DOUBLE_COMPLEX, MPI_PROD, world),
     "complex prod");
  ok(MPI_Allreduce(&f, &fsum, 1, MPI_C_FLOAT_COMPLEX, MPI_SUM, world),
     "float complex sum");
  for (int q = 0; q < size; q++)
    want_p *= (q + 1) + 1.0 * I; /* small integers: exact in any order */
  CHECK(creal(sum) == size * (size + 1) / 2.0 && cimag(sum) == size,
        "complex sum %g%+gi", creal(sum), cimag(sum));
  CHECK(creal(prod) == creal(want_p) && cimag(prod) == cimag(want_p),
        "complex prod %g%+gi want %g%+gi", creal(prod), cimag(prod),
        creal(want_p), cimag(want_p));
  CHECK(crealf(fsum) == size * (size - 1) / 2.0f &&
            cimagf(fsum) == -2.0f * size,
        "float complex sum %g%+gi", crealf(fsum), cimagf(fsum));
}

/* REPLACE and NO_OP keep one rank's contribution per element (which one
 * is the implementation's order); every rank ends with the same. */
static void t_replace_noop(void) {
  enum { N = 64 };
  int in[N], out[N], all[N * 64];
  MPI_Op ops[2] = {MPI_REPLACE, MPI_NO_OP};
  for (int o = 0; o < 2; o++) {
    for (int i = 0; i < N; i++) {
      in[i] = 1000 * rank + i;
      out[i] = GAP;
    }
    ok(MPI_Allreduce(in, out, N, MPI_INT, ops[o], world),
       o ? "allreduce no_op" : "allreduce replace");
    for (int i = 0; i < N; i++) {
      int q = out[i] / 1000;
      CHECK(q >= 0 && q < size && out[i] == 1000 * q + i,
            "%s [%d] = %d: no rank's value", o ? "no_op" : "replace", i,
            out[i]);
    }
    ok(MPI_Allgather(out, N, MPI_INT, all, N, MPI_INT, world), "allgather");
    for (int q = 1; q < size; q++)
      CHECK(memcmp(all, all + q * N, sizeof out) == 0,
            "%s: ranks 0 and %d differ", o ? "no_op" : "replace", q);
  }
}

/* ---- MPI_BOTTOM ------------------------------------------------------------
 */

static void t_bottom(void) {
  int a[3], b[2], *g = ialloc((size_t)5 * size);
  MPI_Aint disp[2];
  int lens[2] = {3, 2};
  MPI_Datatype types[2] = {MPI_INT, MPI_INT}, abs_t;
  MPI_Get_address(a, &disp[0]);
  MPI_Get_address(b, &disp[1]);
  MPI_Type_create_struct(2, lens, disp, types, &abs_t);
  MPI_Type_commit(&abs_t);
  int root = size - 1;
  for (int i = 0; i < 3; i++)
    a[i] = rank == root ? val(root, i) : GAP;
  for (int i = 0; i < 2; i++)
    b[i] = rank == root ? val(root, 3 + i) : GAP;
  ok(MPI_Bcast(MPI_BOTTOM, 1, abs_t, root, world), "bcast MPI_BOTTOM");
  CHECK(a[0] == val(root, 0) && a[2] == val(root, 2) && b[1] == val(root, 4),
        "bcast MPI_BOTTOM: %d %d %d", a[0], a[2], b[1]);
  for (int i = 0; i < 3; i++)
    a[i] = val(rank, i);
  for (int i = 0; i < 2; i++)
    b[i] = val(rank, 3 + i);
  ok(MPI_Allgather(MPI_BOTTOM, 1, abs_t, g, 5, MPI_INT, world),
     "allgather MPI_BOTTOM");
  for (int q = 0; q < size; q++)
    for (int i = 0; i < 5; i++)
      CHECK(g[q * 5 + i] == val(q, i), "allgather MPI_BOTTOM %d [%d]", q, i);
  /* Reductions through the same type, in place into a and b: a predefined
   * op on a derived type, which MPICH 4.0 refuses. */
  if (mt_mpich_quirks()) {
    MPI_Type_free(&abs_t);
    free(g);
    return;
  }
  ok(MPI_Allreduce(MPI_IN_PLACE, MPI_BOTTOM, 1, abs_t, MPI_SUM, world),
     "allreduce MPI_BOTTOM");
  for (int i = 0; i < 5; i++) {
    int want = 0, got = i < 3 ? a[i] : b[i - 3];
    for (int q = 0; q < size; q++)
      want += val(q, i);
    CHECK(got == want, "allreduce MPI_BOTTOM [%d] = %d want %d", i, got, want);
  }
  for (int i = 0; i < 3; i++)
    a[i] = val(rank, i);
  for (int i = 0; i < 2; i++)
    b[i] = val(rank, 3 + i);
  ok(MPI_Reduce(rank == 0 ? MPI_IN_PLACE : MPI_BOTTOM, MPI_BOTTOM, 1, abs_t,
                MPI_MAX, 0, world),
     "reduce MPI_BOTTOM");
  for (int i = 0; rank == 0 && i < 5; i++) {
    int want = val(0, i), got = i < 3 ? a[i] : b[i - 3];
    for (int q = 1; q < size; q++)
      want = val(q, i) > want ? val(q, i) : want;
    CHECK(got == want, "reduce MPI_BOTTOM [%d] = %d want %d", i, got, want);
  }
  MPI_Type_free(&abs_t);
  free(g);
}

/* ---- the blocking collectives' fast path ---------------------------------
 * Calls the fast path takes (a predefined type and op on an
 * intracommunicator, host memory) beside those it must leave to the general
 * path, on a communicator whose earlier calls were fast: the type or op
 * changed, a user op, a derived type, MPI_IN_PLACE, an intercommunicator,
 * and each bad argument, which keeps its class; Allgather and Alltoall
 * the same way. */

static void fast_user_max(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  for (int i = 0; i < *len; i++)
    if (((double *)in)[i] > ((double *)inout)[i])
      ((double *)inout)[i] = ((double *)in)[i];
}

/* One bad call (all ranks alike): its error class; what names the fault. */
static void fast_bad(MPI_Comm c, int call, int count, MPI_Datatype type,
                     MPI_Op op, int root, const void *sb, void *rb, int err,
                     const char *what) {
  int e = call == 0   ? MPI_Allreduce(sb, rb, count, type, op, c)
          : call == 1 ? MPI_Reduce(sb, rb, count, type, op, root, c)
                      : MPI_Bcast(rb, count, type, root, c);
  CHECK(mt_class(e) == err, "fast path call %d with %s: class %d, want %d",
        call, what, mt_class(e), err);
}

static void fast_good(MPI_Comm c, int n, int r) {
  double in = r + 1.5, out = -1, want = 0;
  for (int q = 0; q < n; q++)
    want += q + 1.5;
  ok(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, c), "fast allreduce");
  CHECK(out == want, "fast allreduce %g, want %g", out, want);
  out = -1;
  ok(MPI_Reduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, n - 1, c), "fast reduce");
  CHECK(r != n - 1 || out == want, "fast reduce %g, want %g", out, want);
  CHECK(r == n - 1 || out == -1, "fast reduce wrote %g off the root", out);
  long long b = r == 0 ? 0x0102030405060708LL : 0;
  ok(MPI_Bcast(&b, 1, MPI_LONG_LONG, 0, c), "fast bcast");
  CHECK(b == 0x0102030405060708LL, "fast bcast 0x%llx", b);
}

/* Allgather and Alltoall of one int (or two per rank) on c: plain, in
 * place, with a different type of the same size each side, and bad
 * arguments by class (errors returned on c). */
static void fast_exchanges(MPI_Comm c, int n, int r) {
  int *blocks = ialloc(2 * (size_t)n), *got = ialloc(2 * (size_t)n);
  int mine = r * 10 + 1;
  ok(MPI_Allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, c), "fast allgather");
  for (int q = 0; q < n; q++)
    CHECK(got[q] == q * 10 + 1, "allgather block %d: %d", q, got[q]);
  for (int q = 0; q < n; q++)
    got[q] = q == r ? mine : -1;
  ok(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, got, 1, MPI_INT, c),
     "allgather in place");
  for (int q = 0; q < n; q++)
    CHECK(got[q] == q * 10 + 1, "in-place allgather block %d: %d", q, got[q]);
  for (int q = 0; q < n; q++) {
    blocks[2 * q] = r * 100 + q;
    blocks[2 * q + 1] = -(r * 100 + q);
  }
  /* Two ints sent as one double's bytes: the same signature size. */
  ok(MPI_Alltoall(blocks, 1, MPI_DOUBLE, got, 2, MPI_INT, c), "fast alltoall");
  for (int q = 0; q < n; q++)
    CHECK(got[2 * q] == q * 100 + r && got[2 * q + 1] == -(q * 100 + r),
          "alltoall block %d: %d %d", q, got[2 * q], got[2 * q + 1]);
  ok(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, blocks, 2, MPI_INT, c),
     "alltoall in place");
  for (int q = 0; q < n; q++)
    CHECK(blocks[2 * q] == q * 100 + r, "in-place alltoall block %d: %d", q,
          blocks[2 * q]);
  int e = MPI_Allgather(&mine, 2, MPI_INT, got, 1, MPI_INT, c);
  CHECK(mt_class(e) == MPI_ERR_TRUNCATE, "allgather 2 into 1: %s",
        mt_errstr(e));
  e = MPI_Allgather(&mine, 1, MPI_INT, NULL, 1, MPI_INT, c);
  CHECK(mt_class(e) == MPI_ERR_BUFFER, "allgather NULL recvbuf: %s",
        mt_errstr(e));
  e = MPI_Alltoall(blocks, 1, MPI_INT, NULL, 1, MPI_INT, c);
  CHECK(mt_class(e) == MPI_ERR_BUFFER, "alltoall NULL recvbuf: %s",
        mt_errstr(e));
  e = MPI_Alltoall(blocks, -1, MPI_INT, got, 1, MPI_INT, c);
  CHECK(mt_class(e) == MPI_ERR_COUNT, "alltoall count -1: %s", mt_errstr(e));
  e = MPI_Allgather(&mine, 1, MPI_DATATYPE_NULL, got, 1, MPI_INT, c);
  CHECK(mt_class(e) == MPI_ERR_TYPE, "allgather MPI_DATATYPE_NULL: %s",
        mt_errstr(e));
  free(blocks);
  free(got);
}

static void t_fast_path(void) {
  MPI_Comm dup;
  MPI_Comm_dup(world, &dup);
  MPI_Comm cs[2] = {world, dup};
  for (int k = 0; k < 2; k++) {
    MPI_Comm c = cs[k];
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    /* On dup the first calls are errors: nothing decided yet. */
    for (int round = 0; round < 2; round++) {
      if (round == 1 || k == 0)
        fast_good(c, size, rank);
      double x = rank, y = 0;
      fast_bad(c, 0, 1, MPI_DOUBLE, MPI_OP_NULL, 0, &x, &y, MPI_ERR_OP,
               "MPI_OP_NULL");
      fast_bad(c, 0, 1, MPI_DOUBLE, MPI_BAND, 0, &x, &y, MPI_ERR_OP,
               "MPI_BAND on doubles");
      fast_bad(c, 1, 1, MPI_DOUBLE, MPI_SUM, size, &x, &y, MPI_ERR_ROOT,
               "root = size");
      fast_bad(c, 2, 1, MPI_DOUBLE, MPI_SUM, -1, &x, &y, MPI_ERR_ROOT,
               "root = -1");
      fast_bad(c, 0, -1, MPI_DOUBLE, MPI_SUM, 0, &x, &y, MPI_ERR_COUNT,
               "count -1");
      fast_bad(c, 2, -1, MPI_DOUBLE, MPI_SUM, 0, &x, &y, MPI_ERR_COUNT,
               "count -1");
      fast_bad(c, 0, 1, MPI_DATATYPE_NULL, MPI_SUM, 0, &x, &y, MPI_ERR_TYPE,
               "MPI_DATATYPE_NULL");
      fast_bad(c, 0, 1, MPI_DOUBLE, MPI_SUM, 0, &x, &x, MPI_ERR_BUFFER,
               "sendbuf == recvbuf");
      fast_bad(c, 0, 1, MPI_DOUBLE, MPI_SUM, 0, &x, NULL, MPI_ERR_BUFFER,
               "recvbuf NULL");
      fast_bad(c, 2, 1, MPI_DOUBLE, MPI_SUM, 0, &x, MPI_IN_PLACE,
               MPI_ERR_BUFFER, "MPI_IN_PLACE buffer");
      fast_bad(c, 0, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_IN_PLACE, MPI_IN_PLACE,
               MPI_ERR_BUFFER, "MPI_IN_PLACE both");
    }
    /* In place, another type and op, a user op, a derived type. */
    int v = rank + 1, vmax = 0;
    ok(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MAX, c), "in place");
    CHECK(v == size, "in-place max %d, want %d", v, size);
    v = rank + 1;
    ok(MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &v, &v, 1, MPI_INT, MPI_MAX, 0, c),
       "reduce in place");
    CHECK(rank != 0 || v == size, "reduce in place %d, want %d", v, size);
    v = rank + 1;
    ok(MPI_Allreduce(&v, &vmax, 1, MPI_INT, MPI_SUM, c), "int sum");
    CHECK(vmax == size * (size + 1) / 2, "int sum %d", vmax);
    MPI_Op umax;
    MPI_Op_create(fast_user_max, 1, &umax);
    double d = rank * 2.0, dmax = -1;
    ok(MPI_Allreduce(&d, &dmax, 1, MPI_DOUBLE, umax, c), "user op");
    CHECK(dmax == (size - 1) * 2.0, "user op %g", dmax);
    MPI_Op_free(&umax);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    double p[2] = {rank, 1}, psum[2] = {0, 0};
    ok(MPI_Allreduce(p, psum, 1, pair, MPI_SUM, c), "derived type");
    CHECK(psum[0] == size * (size - 1) / 2.0 && psum[1] == size,
          "derived type %g %g", psum[0], psum[1]);
    double pb[2] = {rank == 0 ? 7.0 : 0, rank == 0 ? 8.0 : 0};
    ok(MPI_Bcast(pb, 1, pair, 0, c), "derived bcast");
    CHECK(pb[0] == 7.0 && pb[1] == 8.0, "derived bcast %g %g", pb[0], pb[1]);
    fast_bad(c, 2, 1, pair, MPI_SUM, size, pb, pb, MPI_ERR_ROOT, "a derived type and root = size");
    fast_exchanges(c, size, rank);
    MPI_Type_free(&pair);
    fast_good(c, size, rank);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_ARE_FATAL);
  }
  MPI_Comm_free(&dup);
  if (size < 2)
    return;
  /* An intercommunicator between the lower and the upper half: each side
   * gets the other's sum, a Bcast from rank 0 of the lower one. */
  MPI_Comm half, inter;
  int low = rank < size / 2;
  MPI_Comm_split(world, low, rank, &half);
  MPI_Intercomm_create(half, 0, world, low ? size / 2 : 0, 9, &inter);
  double mine = rank, other = -1, want = 0;
  for (int q = 0; q < size; q++)
    if ((q < size / 2) != low)
      want += q;
  ok(MPI_Allreduce(&mine, &other, 1, MPI_DOUBLE, MPI_SUM, inter),
     "inter allreduce");
  CHECK(other == want, "inter allreduce %g, want %g", other, want);
  int hrank;
  MPI_Comm_rank(half, &hrank);
  long long b = low ? 42 : 0;
  int root = low ? (hrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  ok(MPI_Bcast(&b, 1, MPI_LONG_LONG, root, inter), "inter bcast");
  CHECK(!low ? b == 42 : 1, "inter bcast %lld", b);
  int remote, *all;
  MPI_Comm_remote_size(inter, &remote);
  all = ialloc((size_t)remote);
  int me = rank + 1;
  ok(MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, inter),
     "inter allgather");
  for (int q = 0; q < remote; q++)
    CHECK(all[q] == (low ? size / 2 : 0) + q + 1, "inter allgather %d: %d", q,
          all[q]);
  free(all);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  CHECK(size <= 64, "at most 64 ranks");
  t_big();
  t_uneven_v();
  for (int w = 0; w < 2; w++)
    for (int ip = 0; ip < 2; ip++)
      t_uneven_a2a(w, ip);
  t_alltoallv_edges();
  t_allgatherv_edges();
  t_alltoallw_types();
  t_uneven_reduce_scatter();
  t_in_place_v();
  t_derived();
  t_pairs();
  t_bool_complex();
  /* MPICH refuses MPI_REPLACE / MPI_NO_OP outside one-sided calls; hcmpi
   * takes them in reductions too (as the issue asks). */
  if (!mt_mpich_quirks())
    t_replace_noop();
  t_bottom();
  t_fast_path();
  if (rank == 0)
    printf("coll_extra: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
