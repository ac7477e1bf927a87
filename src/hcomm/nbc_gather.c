/*
 * The schedules of Gather(v), Scatter(v) and Allgather(v), and their I- and
 * persistent forms (hcomm_i*, hcomm_*_init).
 * Each builder appends its rounds to a schedule of nbc.c (nbc_impl.h);
 * the builders pick pointers at build time, e.g. swapping two temporaries
 * instead of copying one into the other.  Everything here runs with the
 * engine lock held, or on a schedule no other thread sees yet.
 */
#include "hcomm/nbc.h"

#include <stdbool.h>
#include <string.h>

#include "hcomm/coll.h"
#include "hcomm/comm.h"
#include "hcomm/nbc_impl.h"

/* ---- gather -------------------------------------------------------------- */

/* What every rooted schedule checks before it is built: a valid root,
 * HCOMM_IN_PLACE only at the root (in_place_off_root: the caller saw it
 * elsewhere), and the per-rank tables of a v-form at the root. */
static hc_status_t nbc_rooted_new(hcomm_comm_t *comm, int root,
                                  bool in_place_off_root, bool tables_missing,
                                  hcomm_request_t **req, hc_nbc_sched_t **s) {
  hc_status_t rc = hc_nbc_check_root(comm, root, req);
  if (rc != HC_OK)
    return rc;
  if (comm->rank != root ? in_place_off_root : tables_missing)
    return HC_ERR_ARG;
  return hc_nbc_new(comm, NULL, s);
}

/* Root posts every receive at once: fine while p is small, and the only
 * sensible choice for varying block sizes.  Up to
 * HCMPI_COLL_GATHER_RECV_FIRST_MAX it posts them before it copies its own
 * block, so that a sender whose message is under way meets a posted
 * receive (2 ranks, 64 KiB near 6.5 -> 4.7 us, 256 KiB far 35 -> 27,
 * 512 KiB far 62-66 -> 49-50); above, its copy goes first: a far pair's
 * 1 MiB, read with CMA, lost 3.5x with the receives first in coll28 and
 * was level in a2a30 (bench/NOTES.md). */
static void nbc_build_gatherv(hc_nbc_sched_t *s, const void *mine,
                              size_t sbytes, char *recvbuf,
                              const size_t *rbytes, const size_t *rdispls,
                              int root) {
  if (s->rank != root) {
    hc_nbc_add_send(s, mine, sbytes, root);
    hc_nbc_end_round(s);
    return;
  }
  size_t largest = 0;
  for (int r = 0; r < s->size; r++)
    if (r != root && rbytes[r] > largest)
      largest = rbytes[r];
  size_t first_max = hc_coll_tuning.gather_recv_first_max;
  bool recv_first = first_max > 0 && largest <= first_max;
  if (!recv_first && mine != HCOMM_IN_PLACE)
    hc_nbc_add_copy(s, mine, recvbuf + rdispls[root], rbytes[root]);
  for (int r = 0; r < s->size; r++)
    if (r != root)
      hc_nbc_add_recv(s, recvbuf + rdispls[r], rbytes[r], r);
  if (recv_first && mine != HCOMM_IN_PLACE)
    hc_nbc_add_copy(s, mine, recvbuf + rdispls[root], rbytes[root]);
  hc_nbc_end_round(s);
}

/* Binomial: each virtual rank collects its subtree's blocks in virtual
 * order and passes them up in one message (log p hops instead of p
 * messages into the root). */
static void nbc_build_gather_binomial(hc_nbc_sched_t *s, const void *mine,
                                      size_t bytes, char *recvbuf, int root) {
  int size = s->size, v = hc_coll_virtual(s->rank, root, size);
  int low = hc_coll_lowbit(v, size);
  int extent = low < size - v ? low : size - v;
  if (extent == 1) {
    hc_nbc_add_send(s, mine, bytes, hc_coll_real(v - low, root, size));
    hc_nbc_end_round(s);
    return;
  }
  char *col =
      (v == 0 && root == 0) ? recvbuf : hc_nbc_tmp(s, (size_t)extent * bytes);
  if (col == NULL)
    return;
  hc_nbc_add_copy(s, mine, col, bytes);
  for (int mask = 1; mask < extent; mask <<= 1) {
    int nblk = extent - mask < mask ? extent - mask : mask;
    hc_nbc_add_recv(s, col + (size_t)mask * bytes, (size_t)nblk * bytes,
                    hc_coll_real(v + mask, root, size));
  }
  hc_nbc_end_round(s);
  if (v != 0) {
    hc_nbc_add_send(s, col, (size_t)extent * bytes,
                    hc_coll_real(v - low, root, size));
    hc_nbc_end_round(s);
  } else if (col != recvbuf) {
    /* virtual v is rank (v + root) % size: two contiguous runs */
    size_t head = (size_t)(size - root) * bytes;
    hc_nbc_add_copy(s, col, recvbuf + (size_t)root * bytes, head);
    hc_nbc_add_copy(s, col + head, recvbuf, (size_t)root * bytes);
  }
}

static hc_status_t nbc_coll_gather(const void *sendbuf, size_t bytes,
                                   void *recvbuf, int root, hcomm_comm_t *comm,
                                   hcomm_request_t **req,
                                   enum hc_nbc_mode mode) {
  hc_nbc_sched_t *s;
  hc_status_t rc = nbc_rooted_new(comm, root, sendbuf == HCOMM_IN_PLACE,
                                  false, req, &s);
  if (rc != HC_OK)
    return rc;
  int size = comm->size;
  char *own = (char *)recvbuf + (size_t)comm->rank * bytes;
  if (hc_coll_gather_alg(bytes, size) == HC_COLL_ALG_BINOMIAL) {
    nbc_build_gather_binomial(s, sendbuf == HCOMM_IN_PLACE ? own : sendbuf,
                              bytes, recvbuf, root);
  } else {
    size_t *arr = hc_nbc_even_blocks(s, bytes);
    if (arr != NULL)
      nbc_build_gatherv(s, sendbuf, bytes, recvbuf, arr, arr + size, root);
  }
  return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
}

static hc_status_t nbc_coll_gatherv(const void *sendbuf, size_t sbytes,
                                    void *recvbuf, const size_t *rbytes,
                                    const size_t *rdispls, int root,
                                    hcomm_comm_t *comm, hcomm_request_t **req,
                                    enum hc_nbc_mode mode) {
  hc_nbc_sched_t *s;
  hc_status_t rc =
      nbc_rooted_new(comm, root, sendbuf == HCOMM_IN_PLACE,
                     rbytes == NULL || rdispls == NULL, req, &s);
  if (rc != HC_OK)
    return rc;
  nbc_build_gatherv(s, sendbuf, sbytes, recvbuf, rbytes, rdispls, root);
  return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
}

/* ---- scatter ------------------------------------------------------------- */

void hc_nbc_build_scatterv(hc_nbc_sched_t *s, const char *sendbuf,
                           const size_t *sbytes, const size_t *sdispls,
                           void *recvbuf, size_t rbytes, int root) {
  if (s->rank != root) {
    hc_nbc_add_recv(s, recvbuf, rbytes, root);
    hc_nbc_end_round(s);
    return;
  }
  /* The messages before the root's own block, so that a receiver that
   * reads the root's buffer (a CMA rendezvous) or copies out what the
   * send put in the transport's cells works while the root copies. */
  for (int r = 0; r < s->size; r++)
    if (r != root)
      hc_nbc_add_send(s, sendbuf + sdispls[r], sbytes[r], r);
  if (recvbuf != HCOMM_IN_PLACE)
    hc_nbc_add_copy(s, sendbuf + sdispls[root], recvbuf, sbytes[root]);
  hc_nbc_end_round(s);
}

/* Binomial, the mirror of the gather: each virtual rank receives its
 * subtree's blocks in one message and forwards the children's parts. */
static void nbc_build_scatter_binomial(hc_nbc_sched_t *s, const char *sendbuf,
                                       size_t bytes, void *recvbuf, int root) {
  int size = s->size, v = hc_coll_virtual(s->rank, root, size);
  int low = hc_coll_lowbit(v, size);
  int extent = low < size - v ? low : size - v;
  const char *col = sendbuf;
  if (v == 0 && root != 0) {
    char *rot = hc_nbc_tmp(s, (size_t)size * bytes);
    if (rot == NULL)
      return;
    hc_nbc_add_rotate(s, sendbuf, rot, bytes, root);
    col = rot;
  } else if (v != 0) {
    char *in = extent == 1 ? recvbuf : hc_nbc_tmp(s, (size_t)extent * bytes);
    if (in == NULL)
      return;
    hc_nbc_add_recv(s, in, (size_t)extent * bytes,
                    hc_coll_real(v - low, root, size));
    hc_nbc_end_round(s);
    col = in;
  }
  for (int mask = low >> 1; mask > 0; mask >>= 1) {
    if (v + mask >= size)
      continue;
    int nblk = size - v - mask < mask ? size - v - mask : mask;
    hc_nbc_add_send(s, col + (size_t)mask * bytes, (size_t)nblk * bytes,
                    hc_coll_real(v + mask, root, size));
  }
  hc_nbc_end_round(s);
  if (recvbuf != HCOMM_IN_PLACE)
    hc_nbc_add_copy(s, col, recvbuf, bytes);
}

static hc_status_t nbc_coll_scatter(const void *sendbuf, size_t bytes,
                                    void *recvbuf, int root, hcomm_comm_t *comm,
                                    hcomm_request_t **req,
                                    enum hc_nbc_mode mode) {
  hc_nbc_sched_t *s;
  hc_status_t rc = nbc_rooted_new(comm, root, recvbuf == HCOMM_IN_PLACE,
                                  false, req, &s);
  if (rc != HC_OK)
    return rc;
  int size = comm->size;
  if (hc_coll_gather_alg(bytes, size) == HC_COLL_ALG_BINOMIAL) {
    nbc_build_scatter_binomial(s, sendbuf, bytes, recvbuf, root);
  } else {
    size_t *arr = hc_nbc_even_blocks(s, bytes);
    if (arr != NULL)
      hc_nbc_build_scatterv(s, sendbuf, arr, arr + size, recvbuf, bytes, root);
  }
  return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
}

static hc_status_t nbc_coll_scatterv(const void *sendbuf, const size_t *sbytes,
                                     const size_t *sdispls, void *recvbuf,
                                     size_t rbytes, int root,
                                     hcomm_comm_t *comm, hcomm_request_t **req,
                                     enum hc_nbc_mode mode) {
  hc_nbc_sched_t *s;
  hc_status_t rc =
      nbc_rooted_new(comm, root, recvbuf == HCOMM_IN_PLACE,
                     sbytes == NULL || sdispls == NULL, req, &s);
  if (rc != HC_OK)
    return rc;
  hc_nbc_build_scatterv(s, sendbuf, sbytes, sdispls, recvbuf, rbytes, root);
  return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
}

/* ---- gather and scatter of packed streams -------------------------------- */

/* Chunks of the root's own block, packed from one stream and unpacked into
 * the other. */
#define NBC_STREAM_COPY_CHUNK ((size_t)64 << 10)

typedef struct nbc_stream_copy {
  hcomm_accessor_t from, to;
  size_t from_off, to_off, bytes;
  unsigned char *chunk; /* min(bytes, NBC_STREAM_COPY_CHUNK) */
} nbc_stream_copy_t;

static void nbc_stream_copy_run(hc_nbc_sched_t *s, void *arg) {
  (void)s;
  const nbc_stream_copy_t *c = arg;
  for (size_t at = 0; at < c->bytes; at += NBC_STREAM_COPY_CHUNK) {
    size_t len = c->bytes - at < NBC_STREAM_COPY_CHUNK ? c->bytes - at
                                                       : NBC_STREAM_COPY_CHUNK;
    c->from.pack(c->from.ctx, c->from_off + at, c->chunk, len);
    c->to.unpack(c->to.ctx, c->to_off + at, c->chunk, len);
  }
}

/* The root's own block from one stream into the other, through one chunk
 * (a call step: persistent forms copy it again at every start). */
static void nbc_add_stream_copy(hc_nbc_sched_t *s, const hcomm_accessor_t *from,
                                size_t from_off, const hcomm_accessor_t *to,
                                size_t to_off, size_t bytes) {
  if (bytes == 0)
    return;
  nbc_stream_copy_t *c = hc_nbc_tmp(s, sizeof *c);
  size_t chunk = bytes < NBC_STREAM_COPY_CHUNK ? bytes : NBC_STREAM_COPY_CHUNK;
  unsigned char *buf = c != NULL ? hc_nbc_tmp(s, chunk) : NULL;
  if (buf == NULL)
    return;
  *c = (nbc_stream_copy_t){*from, *to, from_off, to_off, bytes, buf};
  hc_nbc_add_call(s, nbc_stream_copy_run, c);
}

/* The linear gatherv's pattern, each side a stream: the same messages as
 * the plain schedule (a receiver cannot tell), moved in fragments. */
static void nbc_build_gatherv_acc(hc_nbc_sched_t *s,
                                  const hcomm_accessor_t *sacc, size_t sbytes,
                                  const hcomm_accessor_t *racc,
                                  const size_t *rbytes, const size_t *roffs,
                                  int root) {
  if (s->rank != root) {
    hc_nbc_add_send_acc(s, sacc, 0, sbytes, root);
    hc_nbc_end_round(s);
    return;
  }
  if (sacc != NULL)
    nbc_add_stream_copy(s, sacc, 0, racc, roffs[root], rbytes[root]);
  for (int r = 0; r < s->size; r++)
    if (r != root)
      hc_nbc_add_recv_acc(s, racc, roffs[r], rbytes[r], r);
  hc_nbc_end_round(s);
}

static void nbc_build_scatterv_acc(hc_nbc_sched_t *s,
                                   const hcomm_accessor_t *sacc,
                                   const size_t *sbytes, const size_t *soffs,
                                   const hcomm_accessor_t *racc, size_t rbytes,
                                   int root) {
  if (s->rank != root) {
    hc_nbc_add_recv_acc(s, racc, 0, rbytes, root);
    hc_nbc_end_round(s);
    return;
  }
  if (racc != NULL)
    nbc_add_stream_copy(s, sacc, soffs[root], racc, 0, sbytes[root]);
  for (int r = 0; r < s->size; r++)
    if (r != root)
      hc_nbc_add_send_acc(s, sacc, soffs[r], sbytes[r], r);
  hc_nbc_end_round(s);
}

/* Per-rank tables of bytes and stream offsets for gather/scatter (vform
 * 0): block r of bytes at r * bytes. */
static int nbc_stream_tables(hc_nbc_sched_t *s, size_t bytes,
                             const size_t **len, const size_t **offs) {
  size_t *arr = hc_nbc_even_blocks(s, bytes);
  *len = arr;
  *offs = arr != NULL ? arr + s->size : NULL;
  return arr != NULL;
}

hc_status_t hcomm_gatherv_acc(const hcomm_accessor_t *sacc, size_t sbytes,
                              const hcomm_accessor_t *racc, int vform,
                              const size_t *rbytes, const size_t *roffs,
                              int root, hcomm_comm_t *comm, int persistent,
                              hcomm_request_t **req) {
  if (!vform && hc_coll_gather_alg(sbytes, comm != NULL ? comm->size : 0) ==
                    HC_COLL_ALG_BINOMIAL)
    return HC_ERR_NOT_SUPPORTED; /* only the linear pattern streams */
  hc_nbc_sched_t *s;
  int is_root = comm != NULL && comm->rank == root;
  hc_status_t rc = nbc_rooted_new(
      comm, root, sacc == NULL,
      (vform && (rbytes == NULL || roffs == NULL)) || racc == NULL, req, &s);
  if (rc != HC_OK)
    return rc;
  if (!is_root || vform || nbc_stream_tables(s, sbytes, &rbytes, &roffs))
    nbc_build_gatherv_acc(s, sacc, sbytes, racc, rbytes, roffs, root);
  return hc_nbc_launch(s, persistent, req);
}

hc_status_t hcomm_scatterv_acc(const hcomm_accessor_t *sacc, int vform,
                               const size_t *sbytes, const size_t *soffs,
                               const hcomm_accessor_t *racc, size_t rbytes,
                               int root, hcomm_comm_t *comm, int persistent,
                               hcomm_request_t **req) {
  if (!vform && hc_coll_gather_alg(rbytes, comm != NULL ? comm->size : 0) ==
                    HC_COLL_ALG_BINOMIAL)
    return HC_ERR_NOT_SUPPORTED;
  hc_nbc_sched_t *s;
  int is_root = comm != NULL && comm->rank == root;
  hc_status_t rc = nbc_rooted_new(
      comm, root, racc == NULL,
      (vform && (sbytes == NULL || soffs == NULL)) || sacc == NULL, req, &s);
  if (rc != HC_OK)
    return rc;
  if (!is_root || vform || nbc_stream_tables(s, rbytes, &sbytes, &soffs))
    nbc_build_scatterv_acc(s, sacc, sbytes, soffs, racc, rbytes, root);
  return hc_nbc_launch(s, persistent, req);
}

/* ---- allgather ----------------------------------------------------------- */

/* Ring: p-1 rounds, each passing one block to the right; bandwidth-optimal
 * for any p and any block sizes. */
static void nbc_build_allgatherv_ring(hc_nbc_sched_t *s, char *recvbuf,
                                      const size_t *rbytes,
                                      const size_t *rdispls) {
  int size = s->size, rank = s->rank;
  int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  for (int st = 0; st < size - 1; st++) {
    int sb = (rank - st + size) % size, rb = (rank - st - 1 + 2 * size) % size;
    hc_nbc_add_recv(s, recvbuf + rdispls[rb], rbytes[rb], left);
    hc_nbc_add_send(s, recvbuf + rdispls[sb], rbytes[sb], right);
    hc_nbc_end_round(s);
  }
}

/* Power-of-two sizes, small totals: log p rounds, swapping the blocks
 * gathered so far with rank ^ 2^k (both runs contiguous). */
static void nbc_build_allgather_rd(hc_nbc_sched_t *s, char *recvbuf,
                                   size_t bytes) {
  for (int mask = 1; mask < s->size; mask <<= 1) {
    int peer = s->rank ^ mask;
    size_t mine = (size_t)(s->rank & ~(mask - 1)) * bytes;
    size_t theirs = (size_t)(peer & ~(mask - 1)) * bytes;
    hc_nbc_add_recv(s, recvbuf + theirs, (size_t)mask * bytes, peer);
    hc_nbc_add_send(s, recvbuf + mine, (size_t)mask * bytes, peer);
    hc_nbc_end_round(s);
  }
}

static hc_status_t nbc_coll_allgather(const void *sendbuf, size_t bytes,
                                      void *recvbuf, hcomm_comm_t *comm,
                                      hcomm_request_t **req,
                                      enum hc_nbc_mode mode) {
  hc_nbc_sched_t *s;
  hc_status_t rc = hc_nbc_check(comm, req);
  if (rc == HC_OK)
    rc = hc_nbc_new(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  int size = comm->size;
  hc_shmcoll_op_t shm;
  if (hc_nbc_use_shmcoll(s, &shm,
                         hc_shmcoll_iallgather_prepare(
                             &shm, sendbuf, bytes, recvbuf, NULL, NULL, comm),
                         mode))
    return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
  char *own = (char *)recvbuf + (size_t)comm->rank * bytes;
  if (sendbuf != HCOMM_IN_PLACE)
    hc_nbc_add_copy(s, sendbuf, own, bytes);
  enum hc_coll_alg alg = hc_coll_allgather_alg(bytes, size);
  if (alg == HC_COLL_ALG_RECURSIVE_DOUBLING) {
    nbc_build_allgather_rd(s, recvbuf, bytes);
  } else if (alg != HC_COLL_ALG_TRIVIAL) {
    size_t *arr = hc_nbc_even_blocks(s, bytes);
    if (arr != NULL)
      nbc_build_allgatherv_ring(s, recvbuf, arr, arr + size);
  }
  return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
}

static hc_status_t nbc_coll_allgatherv(const void *sendbuf, size_t sbytes,
                                       void *recvbuf, const size_t *rbytes,
                                       const size_t *rdispls,
                                       hcomm_comm_t *comm,
                                       hcomm_request_t **req,
                                       enum hc_nbc_mode mode) {
  hc_nbc_sched_t *s;
  hc_status_t rc = hc_nbc_check(comm, req);
  if (rc == HC_OK && (rbytes == NULL || rdispls == NULL))
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = hc_nbc_new(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  /* The segment's step reads the tables as it runs: copies of them. */
  size_t *tables = hc_nbc_tmp(s, 2 * (size_t)comm->size * sizeof *tables);
  hc_shmcoll_op_t shm;
  if (tables != NULL) {
    memcpy(tables, rbytes, (size_t)comm->size * sizeof *tables);
    memcpy(tables + comm->size, rdispls, (size_t)comm->size * sizeof *tables);
    if (hc_nbc_use_shmcoll(
            s, &shm,
            hc_shmcoll_iallgather_prepare(&shm, sendbuf, sbytes, recvbuf,
                                          tables, tables + comm->size, comm),
            mode))
      return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
  }
  char *own = (char *)recvbuf + rdispls[comm->rank];
  if (sendbuf != HCOMM_IN_PLACE)
    hc_nbc_add_copy(s, sendbuf, own, sbytes);
  if (comm->size > 1)
    nbc_build_allgatherv_ring(s, recvbuf, rbytes, rdispls);
  return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
}

/* ---- the public forms: started now (hcomm_i*) or kept (hcomm_*_init) ---- */

hc_status_t hcomm_igather(const void *sendbuf, size_t bytes, void *recvbuf,
                          int root, hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_gather(sendbuf, bytes, recvbuf, root, comm, req,
                         HC_NBC_START);
}

hc_status_t hcomm_gather_init(const void *sendbuf, size_t bytes, void *recvbuf,
                              int root, hcomm_comm_t *comm,
                              hcomm_request_t **req) {
  return nbc_coll_gather(sendbuf, bytes, recvbuf, root, comm, req, HC_NBC_PLAN);
}

hc_status_t hcomm_igatherv(const void *sendbuf, size_t sbytes, void *recvbuf,
                           const size_t *rbytes, const size_t *rdispls,
                           int root, hcomm_comm_t *comm,
                           hcomm_request_t **req) {
  return nbc_coll_gatherv(sendbuf, sbytes, recvbuf, rbytes, rdispls, root, comm,
                          req, HC_NBC_START);
}

hc_status_t hcomm_gatherv_init(const void *sendbuf, size_t sbytes,
                               void *recvbuf, const size_t *rbytes,
                               const size_t *rdispls, int root,
                               hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_gatherv(sendbuf, sbytes, recvbuf, rbytes, rdispls, root, comm,
                          req, HC_NBC_PLAN);
}

hc_status_t hcomm_iscatter(const void *sendbuf, size_t bytes, void *recvbuf,
                           int root, hcomm_comm_t *comm,
                           hcomm_request_t **req) {
  return nbc_coll_scatter(sendbuf, bytes, recvbuf, root, comm, req,
                          HC_NBC_START);
}

hc_status_t hcomm_scatter_init(const void *sendbuf, size_t bytes, void *recvbuf,
                               int root, hcomm_comm_t *comm,
                               hcomm_request_t **req) {
  return nbc_coll_scatter(sendbuf, bytes, recvbuf, root, comm, req,
                          HC_NBC_PLAN);
}

hc_status_t hcomm_iscatterv(const void *sendbuf, const size_t *sbytes,
                            const size_t *sdispls, void *recvbuf, size_t rbytes,
                            int root, hcomm_comm_t *comm,
                            hcomm_request_t **req) {
  return nbc_coll_scatterv(sendbuf, sbytes, sdispls, recvbuf, rbytes, root,
                           comm, req, HC_NBC_START);
}

hc_status_t hcomm_scatterv_init(const void *sendbuf, const size_t *sbytes,
                                const size_t *sdispls, void *recvbuf,
                                size_t rbytes, int root, hcomm_comm_t *comm,
                                hcomm_request_t **req) {
  return nbc_coll_scatterv(sendbuf, sbytes, sdispls, recvbuf, rbytes, root,
                           comm, req, HC_NBC_PLAN);
}

hc_status_t hcomm_iallgather(const void *sendbuf, size_t bytes, void *recvbuf,
                             hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_allgather(sendbuf, bytes, recvbuf, comm, req, HC_NBC_START);
}

hc_status_t hcomm_allgather_init(const void *sendbuf, size_t bytes,
                                 void *recvbuf, hcomm_comm_t *comm,
                                 hcomm_request_t **req) {
  return nbc_coll_allgather(sendbuf, bytes, recvbuf, comm, req, HC_NBC_PLAN);
}

hc_status_t hcomm_iallgatherv(const void *sendbuf, size_t sbytes, void *recvbuf,
                              const size_t *rbytes, const size_t *rdispls,
                              hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_allgatherv(sendbuf, sbytes, recvbuf, rbytes, rdispls, comm,
                             req, HC_NBC_START);
}

hc_status_t hcomm_allgatherv_init(const void *sendbuf, size_t sbytes,
                                  void *recvbuf, const size_t *rbytes,
                                  const size_t *rdispls, hcomm_comm_t *comm,
                                  hcomm_request_t **req) {
  return nbc_coll_allgatherv(sendbuf, sbytes, recvbuf, rbytes, rdispls, comm,
                             req, HC_NBC_PLAN);
}

/* ---- building blocks of other schedules (nbc.h) ------------------------- */

void hc_nbc_add_gatherv(hc_nbc_sched_t *s, const void *mine, size_t bytes,
                        void *recvbuf, const size_t *rbytes,
                        const size_t *rdispls, int root) {
  hc_nbc_end_round(s);
  nbc_build_gatherv(s, mine, bytes, recvbuf, rbytes, rdispls, root);
  hc_nbc_end_round(s);
}

void hc_nbc_add_scatterv(hc_nbc_sched_t *s, const void *sendbuf,
                         const size_t *sbytes, const size_t *sdispls,
                         void *recvbuf, size_t bytes, int root) {
  hc_nbc_end_round(s);
  hc_nbc_build_scatterv(s, sendbuf, sbytes, sdispls, recvbuf, bytes, root);
  hc_nbc_end_round(s);
}
