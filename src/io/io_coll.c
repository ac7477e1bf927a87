/*
 * Collective buffering (two-phase I/O) for the _all, _at_all and split
 * collective calls.
 *
 * Every rank turns its access into file runs (io_view.c) and shares the
 * first and last byte it touches.  When the ranks' ranges interleave (or
 * romio_cb_* = enable), the span they cover is cut into one file domain
 * per aggregator, and each domain is moved in rounds of at most
 * cb_buffer_size bytes: in a write round every rank sends each aggregator
 * the pieces of its runs that fall in that aggregator's window (an
 * MPI_Alltoallv of offset/length headers followed by data), and the
 * aggregator writes the window with one pwrite, reading it first only
 * when the pieces leave holes; a read round sends the requests, the
 * aggregator reads its window once and sends back each rank's pieces.  So
 * N ranks writing an interleaved subarray become a few large contiguous
 * accesses per aggregator.  When the ranges do not interleave, or with
 * romio_cb_* = disable, every rank accesses the file on its own (with
 * data sieving, io_posix.c).
 *
 * Where the kernel has io_uring (io_ring.c), an aggregator's window write
 * that needs no byte-range lock (no holes, not atomic) goes on the ring
 * and the next round's exchange runs while the kernel writes; two window
 * buffers alternate, and a buffer is reused only after its write is done.
 *
 * Aggregators: cb_nodes ranks spread evenly over the communicator when the
 * hint is given, else the first rank of each node (MPI_Comm_split_type).
 * Every rank learns the outcome: the worst error class of any rank.  The
 * exchanges run over f->coll_comm, on whichever thread moves the access
 * (the caller, or the file's thread: io_collq.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/io.h"
#include "io/io_ring.h"

int hc_io_coll_setup(MPI_File f) {
  int n = 0, *aggr = malloc(sizeof(int) * (size_t)f->size);
  if (!aggr)
    return -1;
  /* The first rank of each node: the default aggregators, and the count
   * of nodes (the shared pointer's side file needs it). */
  MPI_Comm node;
  int node_rank = 0;
  if (PMPI_Comm_split_type(f->comm, MPI_COMM_TYPE_SHARED, f->rank,
                           MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    PMPI_Comm_rank(node, &node_rank);
    PMPI_Comm_free(&node);
  }
  int first = node_rank == 0;
  PMPI_Allgather(&first, 1, MPI_INT, aggr, 1, MPI_INT, f->comm);
  for (int r = 0; r < f->size; r++)
    if (aggr[r])
      aggr[n++] = r;
  f->nodes = n;
  if (f->hints.cb_nodes > 0) {
    n = f->hints.cb_nodes < f->size ? f->hints.cb_nodes : f->size;
    for (int i = 0; i < n; i++)
      aggr[i] = (int)((long)i * f->size / n);
  }
  free(f->aggr);
  f->aggr = aggr;
  f->naggr = n > 0 ? n : 1; /* rank 0 at least (aggr[0] is 0 then) */
  if (n == 0)
    aggr[0] = 0;
  return 0;
}

/* ---- the runs of one rank's access --------------------------------------- */

typedef struct seg {
  MPI_Offset off, len, at;
} seg_t;

typedef struct segs {
  seg_t *s;
  size_t n, cap;
} segs_t;

static int segs_add(void *ctx, MPI_Offset off, MPI_Offset len, MPI_Offset at) {
  segs_t *l = ctx;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    seg_t *ns = realloc(l->s, cap * sizeof(*ns));
    if (!ns)
      return 1;
    l->s = ns;
    l->cap = cap;
  }
  l->s[l->n++] = (seg_t){off, len, at};
  return 0;
}

/* The first run that ends after lo. */
static size_t segs_find(const segs_t *l, MPI_Offset lo) {
  size_t a = 0, b = l->n;
  while (a < b) {
    size_t mid = (a + b) / 2;
    if (l->s[mid].off + l->s[mid].len <= lo)
      a = mid + 1;
    else
      b = mid;
  }
  return a;
}

/* Calls fn for every piece of l inside [lo, hi). */
typedef void (*piece_cb)(void *ctx, MPI_Offset off, MPI_Offset len,
                         MPI_Offset at);
static void segs_clip(const segs_t *l, MPI_Offset lo, MPI_Offset hi,
                      piece_cb fn, void *ctx) {
  for (size_t i = segs_find(l, lo); i < l->n && l->s[i].off < hi; i++) {
    MPI_Offset a = l->s[i].off > lo ? l->s[i].off : lo;
    MPI_Offset e = l->s[i].off + l->s[i].len;
    if (e > hi)
      e = hi;
    fn(ctx, a, e - a, l->s[i].at + (a - l->s[i].off));
  }
}

/* ---- the plan shared by all ranks --------------------------------------- */

typedef struct plan {
  MPI_File f;
  segs_t mine;
  MPI_Offset lo, hi; /* the span of every rank's runs */
  MPI_Offset dsize;  /* bytes of one file domain */
  MPI_Offset rounds;
  int *scount, *sdisp, *rcount, *rdisp; /* per rank, for Alltoallv */
  char *sbuf, *rbuf;
  size_t scap, rcap;
} plan_t;

static void plan_free(plan_t *p) {
  free(p->mine.s);
  free(p->scount);
  free(p->sbuf);
  free(p->rbuf);
}

/* The window of aggregator a in round r: [*wlo, *whi), possibly empty. */
static void plan_window(const plan_t *p, int a, MPI_Offset r, MPI_Offset *wlo,
                        MPI_Offset *whi) {
  MPI_Offset dlo = p->lo + a * p->dsize, dhi = dlo + p->dsize;
  if (dhi > p->hi)
    dhi = p->hi;
  MPI_Offset cb = p->f->hints.cb_buffer_size;
  *wlo = dlo + r * cb;
  *whi = *wlo + cb < dhi ? *wlo + cb : dhi;
  if (*whi < *wlo)
    *whi = *wlo;
}

/* Builds the plan; *use_cb 0 when every rank should go on its own. */
static int plan_make(plan_t *p, MPI_File f, MPI_Offset pos, MPI_Offset n,
                     int cb_hint, int *use_cb) {
  memset(p, 0, sizeof(*p));
  p->f = f;
  int bad = hc_io_view_walk(f, pos, n, segs_add, &p->mine);
  MPI_Offset range[2] = {-1, -1};
  if (p->mine.n)
    range[0] = p->mine.s[0].off,
    range[1] = p->mine.s[p->mine.n - 1].off + p->mine.s[p->mine.n - 1].len;
  MPI_Offset *all = malloc(sizeof(MPI_Offset) * 2 * (size_t)f->size);
  p->scount = malloc(sizeof(int) * 4 * (size_t)f->size);
  /* Runs out of file order (a read-only view that overlaps) cannot be cut
   * into domains: every rank then reads on its own. */
  /* flags[2]: this rank's runs are small, or not on a local file system. */
  int flags[3] = {bad || !all || !p->scount, !f->ordered,
                  !hc_io_view_runs_large(f)},
      any[3] = {0, 0, 0};
  int arc = PMPI_Allreduce(flags, any, 3, MPI_INT, MPI_MAX, f->coll_comm);
  if (arc != MPI_SUCCESS || any[0]) {
    free(all);
    return arc != MPI_SUCCESS ? hc_io_class_of_code(arc) : MPI_ERR_NO_MEM;
  }
  p->sdisp = p->scount + f->size;
  p->rcount = p->sdisp + f->size;
  p->rdisp = p->rcount + f->size;
  int rc =
      PMPI_Allgather(range, 2, MPI_OFFSET, all, 2, MPI_OFFSET, f->coll_comm);
  if (rc != MPI_SUCCESS) {
    free(all);
    return hc_io_class_of_code(rc);
  }
  p->lo = -1;
  p->hi = -1;
  int interleaved = 0;
  for (int r = 0; r < f->size; r++) {
    if (all[2 * r] < 0)
      continue;
    /* Ranges that cross, in whatever order the ranks come. */
    for (int q = 0; q < r && !interleaved; q++)
      interleaved = all[2 * q] >= 0 && all[2 * q] < all[2 * r + 1] &&
                    all[2 * r] < all[2 * q + 1];
    if (p->lo < 0 || all[2 * r] < p->lo)
      p->lo = all[2 * r];
    if (all[2 * r + 1] > p->hi)
      p->hi = all[2 * r + 1];
  }
  free(all);
  /* Automatic: two-phase for ranges that interleave, except where every
   * rank is on one node with the file on its local file system, nobody
   * asked for aggregators (cb_nodes) and every rank's runs are at least a
   * page: there the page cache merges the runs and the exchange would only
   * add copies (bench/RESULTS.md, "MPI-IO (issue 20)"). */
  int cb_gains = !(f->nodes == 1 && f->hints.cb_nodes == 0 && !any[2]);
  *use_cb =
      p->lo >= 0 && cb_hint != IO_CB_DISABLE && !any[1] &&
      (cb_hint == IO_CB_ENABLE || (interleaved && f->size > 1 && cb_gains));
  if (*use_cb) {
    p->dsize = (p->hi - p->lo + f->naggr - 1) / f->naggr;
    MPI_Offset cb = f->hints.cb_buffer_size;
    p->rounds = (p->dsize + cb - 1) / cb;
  }
  return MPI_SUCCESS;
}

/* Grows *buf to at least want bytes. */
static int grow(char **buf, size_t *cap, size_t want) {
  if (want <= *cap)
    return 0;
  char *nb = realloc(*buf, want);
  if (!nb)
    return -1;
  *buf = nb;
  *cap = want;
  return 0;
}

/* ---- one round ------------------------------------------------------------
 */

/* A message to one aggregator: npieces, then (off, len) pairs, then for a
 * write the data of each piece in order. */
typedef struct packer {
  char *out; /* NULL: only count */
  MPI_Offset npieces;
  MPI_Offset bytes; /* data bytes */
  const char *src;  /* the rank's stream (writes) */
} packer_t;

static void pack_count(void *ctx, MPI_Offset off, MPI_Offset len,
                       MPI_Offset at) {
  packer_t *k = ctx;
  (void)off;
  (void)at;
  k->npieces++;
  k->bytes += len;
}

static void pack_header(void *ctx, MPI_Offset off, MPI_Offset len,
                        MPI_Offset at) {
  packer_t *k = ctx;
  MPI_Offset *h = (MPI_Offset *)(void *)k->out + 1 + 2 * k->npieces;
  h[0] = off;
  h[1] = len;
  (void)at;
  k->npieces++;
}

static void pack_data(void *ctx, MPI_Offset off, MPI_Offset len,
                      MPI_Offset at) {
  packer_t *k = ctx;
  (void)off;
  memcpy(k->out + k->bytes, k->src + at, (size_t)len);
  k->bytes += len;
}

/* Fills the send side of round r: to each aggregator the pieces of this
 * rank's runs in its window, with data when with_data. */
static int round_send(plan_t *p, MPI_Offset r, const char *src, int with_data) {
  MPI_File f = p->f;
  memset(p->scount, 0, sizeof(int) * (size_t)f->size);
  size_t total = 0;
  for (int a = 0; a < f->naggr; a++) {
    MPI_Offset wlo, whi;
    plan_window(p, a, r, &wlo, &whi);
    packer_t k = {0};
    segs_clip(&p->mine, wlo, whi, pack_count, &k);
    /* Padded to whole offsets: the aggregator reads the headers of the
     * next rank's message in place. */
    size_t data = with_data ? (size_t)k.bytes : 0,
           pad = (sizeof(MPI_Offset) - data % sizeof(MPI_Offset)) %
                 sizeof(MPI_Offset);
    if (k.npieces)
      p->scount[f->aggr[a]] =
          (int)(sizeof(MPI_Offset) * (size_t)(1 + 2 * k.npieces) + data + pad);
  }
  for (int q = 0; q < f->size; q++) {
    p->sdisp[q] = (int)total;
    total += (size_t)p->scount[q];
  }
  if (grow(&p->sbuf, &p->scap, total ? total : 1))
    return -1;
  for (int a = 0; a < f->naggr; a++) {
    int q = f->aggr[a];
    if (!p->scount[q])
      continue;
    MPI_Offset wlo, whi;
    plan_window(p, a, r, &wlo, &whi);
    packer_t k = {p->sbuf + p->sdisp[q], 0, 0, src};
    segs_clip(&p->mine, wlo, whi, pack_header, &k);
    ((MPI_Offset *)(void *)k.out)[0] = k.npieces;
    k.out += sizeof(MPI_Offset) * (size_t)(1 + 2 * k.npieces);
    if (with_data)
      segs_clip(&p->mine, wlo, whi, pack_data, &k);
  }
  return 0;
}

/* Exchanges the round's messages: counts, then the bytes.  A class. */
static int round_exchange(plan_t *p) {
  MPI_File f = p->f;
  int rc =
      PMPI_Alltoall(p->scount, 1, MPI_INT, p->rcount, 1, MPI_INT, f->coll_comm);
  if (rc != MPI_SUCCESS)
    return hc_io_class_of_code(rc);
  size_t total = 0;
  for (int q = 0; q < f->size; q++) {
    p->rdisp[q] = (int)total;
    total += (size_t)p->rcount[q];
  }
  if (grow(&p->rbuf, &p->rcap, total ? total : 1))
    return MPI_ERR_NO_MEM;
  return hc_io_class_of_code(PMPI_Alltoallv(p->sbuf, p->scount, p->sdisp,
                                            MPI_BYTE, p->rbuf, p->rcount,
                                            p->rdisp, MPI_BYTE, f->coll_comm));
}

/* The span [*lo, *hi) and data bytes of every piece the aggregator got. */
static void round_span(const plan_t *p, MPI_Offset *lo, MPI_Offset *hi,
                       MPI_Offset *bytes) {
  *lo = -1;
  *hi = -1;
  *bytes = 0;
  for (int q = 0; q < p->f->size; q++) {
    if (!p->rcount[q])
      continue;
    const MPI_Offset *h =
        (const MPI_Offset *)(const void *)(p->rbuf + p->rdisp[q]);
    for (MPI_Offset i = 0; i < h[0]; i++) {
      MPI_Offset off = h[1 + 2 * i], len = h[2 + 2 * i];
      if (*lo < 0 || off < *lo)
        *lo = off;
      if (off + len > *hi)
        *hi = off + len;
      *bytes += len;
    }
  }
}

/* ---- window writes on the ring ------------------------------------------ */

/* One window's write in flight on the ring. */
typedef struct window_write {
  hc_io_ring_op_t *op; /* NULL: nothing in flight */
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int done;
  int err;
} window_write_t;

#define WINDOW_WRITE_INIT \
  {NULL, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0}

/* On the ring's thread: the write is done. */
static void window_write_done(void *arg) {
  window_write_t *w = arg;
  MPI_Offset moved = 0;
  pthread_mutex_lock(&w->lock);
  w->err = hc_io_ring_result(w->op, &moved);
  w->done = 1;
  pthread_cond_signal(&w->cond);
  pthread_mutex_unlock(&w->lock);
}

/* Waits until w's write, if any, is done; its errno. */
static int window_write_wait(window_write_t *w) {
  if (!w->op)
    return 0;
  pthread_mutex_lock(&w->lock);
  while (!w->done)
    pthread_cond_wait(&w->cond, &w->lock);
  int err = w->err;
  pthread_mutex_unlock(&w->lock);
  hc_io_ring_free(w->op);
  w->op = NULL;
  w->done = 0;
  return err;
}

/* Puts the write of len bytes of buf at file offset off on the ring; 0,
 * or -1 when the caller writes them itself. */
static int window_write_start(window_write_t *w, int fd, char *buf,
                              MPI_Offset len, MPI_Offset off) {
  if (!hc_io_ring_usable())
    return -1;
  hc_io_ring_op_t *op = hc_io_ring_new(fd, 1, buf, 1, window_write_done, w);
  if (!op)
    return -1;
  hc_io_ring_add(op, off, len, 0);
  w->op = op;
  if (hc_io_ring_start(op) != 0) {
    w->op = NULL;
    hc_io_ring_free(op);
    return -1;
  }
  return 0;
}

/* The aggregator's part of a write round: one write of the window's
 * pieces (read first when they leave holes), left in flight on w when it
 * needs no lock.  Returns an errno. */
static int round_write(plan_t *p, char **win, size_t *wcap,
                       window_write_t *w) {
  MPI_Offset lo, hi, bytes;
  round_span(p, &lo, &hi, &bytes);
  if (lo < 0)
    return 0;
  MPI_File f = p->f;
  int holes = bytes < hi - lo, err = 0;
  if (grow(win, wcap, (size_t)(hi - lo)))
    return ENOMEM;
  if (holes || f->atomic)
    hc_io_lock(f->fd, 1, lo, hi - lo);
  MPI_Offset got = 0;
  if (holes && f->readable)
    err = hc_io_pread_all(f->fd, *win, hi - lo, lo, &got);
  if (holes && !err)
    memset(*win + got, 0, (size_t)(hi - lo - got));
  for (int q = 0; q < f->size && !err; q++) {
    if (!p->rcount[q])
      continue;
    const char *m = p->rbuf + p->rdisp[q];
    const MPI_Offset *h = (const MPI_Offset *)(const void *)m;
    const char *data = m + sizeof(MPI_Offset) * (size_t)(1 + 2 * h[0]);
    for (MPI_Offset i = 0; i < h[0]; i++) {
      memcpy(*win + (h[1 + 2 * i] - lo), data, (size_t)h[2 + 2 * i]);
      data += h[2 + 2 * i];
    }
  }
  if (!err && holes && !f->readable) {
    /* A write-only file cannot be patched: the pieces go one by one. */
    for (int q = 0; q < f->size && !err; q++) {
      const MPI_Offset *h =
          (const MPI_Offset *)(const void *)(p->rbuf + p->rdisp[q]);
      for (MPI_Offset i = 0; p->rcount[q] && i < h[0] && !err; i++)
        err = hc_io_pwrite_all(f->fd, *win + (h[1 + 2 * i] - lo), h[2 + 2 * i],
                               h[1 + 2 * i]);
    }
  } else if (!err && (holes || f->atomic ||
                      window_write_start(w, f->fd, *win, hi - lo, lo) != 0)) {
    err = hc_io_pwrite_all(f->fd, *win, hi - lo, lo);
  }
  if (holes || f->atomic)
    hc_io_unlock(f->fd, lo, hi - lo);
  return err;
}

/* The aggregator's part of a read round: reads the window once and turns
 * the received requests into replies in p->sbuf.  Each reply starts with
 * the end of the file as the aggregator met it, so the requester leaves
 * the bytes of its buffer past that end as they were.  Returns an errno. */
static int round_read_serve(plan_t *p, char **win, size_t *wcap) {
  MPI_Offset lo, hi, bytes;
  round_span(p, &lo, &hi, &bytes);
  MPI_File f = p->f;
  int err = 0;
  MPI_Offset got = 0;
  if (lo >= 0 && grow(win, wcap, (size_t)(hi - lo)))
    return ENOMEM;
  if (lo >= 0) {
    if (f->atomic)
      hc_io_lock(f->fd, 0, lo, hi - lo);
    err = hc_io_pread_all(f->fd, *win, hi - lo, lo, &got);
    if (f->atomic)
      hc_io_unlock(f->fd, lo, hi - lo);
    memset(*win + got, 0, (size_t)(hi - lo - got)); /* past the end */
  }
  MPI_Offset file_end = lo + got;
  size_t total = 0;
  for (int q = 0; q < f->size; q++) {
    MPI_Offset want = 0;
    const MPI_Offset *h =
        (const MPI_Offset *)(const void *)(p->rbuf + p->rdisp[q]);
    for (MPI_Offset i = 0; p->rcount[q] && i < h[0]; i++)
      want += h[2 + 2 * i];
    p->sdisp[q] = (int)total;
    p->scount[q] = p->rcount[q] ? (int)(sizeof(file_end) + (size_t)want) : 0;
    total += (size_t)p->scount[q];
  }
  if (grow(&p->sbuf, &p->scap, total ? total : 1))
    return ENOMEM;
  for (int q = 0; q < f->size; q++) {
    const MPI_Offset *h =
        (const MPI_Offset *)(const void *)(p->rbuf + p->rdisp[q]);
    char *out = p->sbuf + p->sdisp[q];
    if (!p->rcount[q])
      continue;
    memcpy(out, &file_end, sizeof(file_end));
    out += sizeof(file_end);
    for (MPI_Offset i = 0; i < h[0]; i++) {
      memcpy(out, *win + (h[1 + 2 * i] - lo), (size_t)h[2 + 2 * i]);
      out += h[2 + 2 * i];
    }
  }
  return err;
}

/* Scatters the replies of round r into this rank's stream dst, up to the
 * end of the file each aggregator met. */
typedef struct unpacker {
  char *dst;
  const char *in;
  MPI_Offset file_end;
} unpacker_t;

static void unpack_piece(void *ctx, MPI_Offset off, MPI_Offset len,
                         MPI_Offset at) {
  unpacker_t *u = ctx;
  MPI_Offset have = u->file_end - off;
  if (have > 0)
    memcpy(u->dst + at, u->in, (size_t)(have < len ? have : len));
  u->in += len;
}

static void round_read_take(plan_t *p, MPI_Offset r, char *dst) {
  for (int a = 0; a < p->f->naggr; a++) {
    int q = p->f->aggr[a];
    if (!p->rcount[q])
      continue;
    MPI_Offset wlo, whi;
    plan_window(p, a, r, &wlo, &whi);
    unpacker_t u = {dst, p->rbuf + p->rdisp[q] + sizeof(MPI_Offset), 0};
    memcpy(&u.file_end, p->rbuf + p->rdisp[q], sizeof(u.file_end));
    segs_clip(&p->mine, wlo, whi, unpack_piece, &u);
  }
}

/* ---- the collective calls --------------------------------------------------
 */

/* Every rank's worst class: a file errno of any rank, or the failure of
 * the agreement itself. */
static int agree(MPI_File f, int err) {
  int cls = err ? hc_io_class_of_errno(err) : MPI_SUCCESS, worst = cls;
  int rc = PMPI_Allreduce(&cls, &worst, 1, MPI_INT, MPI_MAX, f->coll_comm);
  return rc != MPI_SUCCESS ? hc_io_class_of_code(rc) : worst;
}

int hc_io_coll_write(MPI_File f, MPI_Offset pos, const void *buf,
                     MPI_Offset n) {
  plan_t p;
  int use_cb = 0, err = 0;
  int cls = plan_make(&p, f, pos, n, f->hints.cb_write, &use_cb);
  if (cls == MPI_SUCCESS && !use_cb)
    err = hc_io_stream_write(f, pos, buf, n);
  char *win[2] = {NULL, NULL};
  size_t wcap[2] = {0, 0};
  window_write_t writes[2] = {WINDOW_WRITE_INIT, WINDOW_WRITE_INIT};
  for (MPI_Offset r = 0; cls == MPI_SUCCESS && use_cb && r < p.rounds; r++) {
    cls = round_send(&p, r, buf, 1) ? MPI_ERR_NO_MEM : round_exchange(&p);
    int b = (int)(r & 1), e = window_write_wait(&writes[b]);
    if (cls == MPI_SUCCESS && !e)
      e = round_write(&p, &win[b], &wcap[b], &writes[b]);
    if (!err)
      err = e;
  }
  for (int b = 0; b < 2; b++) {
    int e = window_write_wait(&writes[b]);
    if (!err)
      err = e;
    free(win[b]);
  }
  plan_free(&p);
  return cls != MPI_SUCCESS ? cls : agree(f, err);
}

int hc_io_coll_read(MPI_File f, MPI_Offset pos, void *buf, MPI_Offset n,
                    MPI_Offset *done) {
  plan_t p;
  int use_cb = 0, err = 0;
  int cls = plan_make(&p, f, pos, n, f->hints.cb_read, &use_cb);
  if (cls == MPI_SUCCESS && !use_cb)
    err = hc_io_stream_read(f, pos, buf, n, done);
  char *win = NULL;
  size_t wcap = 0;
  for (MPI_Offset r = 0; cls == MPI_SUCCESS && use_cb && r < p.rounds; r++) {
    cls = round_send(&p, r, NULL, 0) ? MPI_ERR_NO_MEM : round_exchange(&p);
    int e = cls == MPI_SUCCESS ? round_read_serve(&p, &win, &wcap) : 0;
    if (!err)
      err = e;
    /* The replies travel back: round_read_serve left them in sbuf. */
    if (cls == MPI_SUCCESS)
      cls = round_exchange(&p);
    if (cls == MPI_SUCCESS)
      round_read_take(&p, r, buf);
  }
  if (use_cb && cls == MPI_SUCCESS) {
    struct stat st;
    MPI_Offset avail = fstat(f->fd, &st) == 0
                           ? hc_io_view_stream_before(f, st.st_size) - pos
                           : n;
    *done = avail < 0 ? 0 : avail < n ? avail : n;
  }
  free(win);
  plan_free(&p);
  return cls != MPI_SUCCESS ? cls : agree(f, err);
}
