/*
 * The schedule engine of the collectives started with hcomm_i* (see nbc.h
 * for the model).  A schedule is built whole at the start, from the rank,
 * the size and the arguments, so a step names plain pointers (user buffers
 * or temporaries the schedule owns); the builders below pick pointers at
 * build time, e.g. swapping two temporaries instead of copying one into the
 * other.  Everything here runs with the engine lock held: the sends and
 * receives are the engine's locked ones on the collective context.
 */
#include "hcomm/nbc.h"

#include <stdlib.h>
#include <string.h>

#include "hcomm/coll.h"
#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/engine.h"
#include "hcomm/part.h"
#include "hcomm/proto.h"

enum nbc_kind {
  NBC_SEND = 1,
  NBC_RECV,
  NBC_COPY,   /* n bytes src -> dst */
  NBC_REDUCE, /* dst = src op dst, n elements */
  NBC_ROUND,  /* the end of a round */
  NBC_CALL    /* call(s, dst): local work that may append steps */
};

typedef struct nbc_step {
  int kind;
  int peer;
  hcomm_comm_t *comm; /* whose ranks peer names (hc_nbc_set_comm) */
  const void *src;
  void *dst;
  size_t n;
  hc_nbc_call_fn call;
} nbc_step_t;

typedef struct nbc_sched {
  struct nbc_sched *next;
  hcomm_comm_t *comm;
  hcomm_comm_t *group; /* the steps added now address it; rank, size: ours */
  hcomm_request_t *req; /* what the caller waits on */
  hcomm_reduce_op_t op;
  int tag;
  int rank, size;
  nbc_step_t *steps;
  size_t nsteps, cap, pos;
  hcomm_request_t **reqs; /* the current round's sends and receives */
  size_t nreqs, reqcap;
  void **bufs; /* temporaries, freed with the schedule */
  size_t nbufs, bufcap;
  hc_status_t error;
  hcomm_coll_done_fn done_fn; /* hcomm_icoll_on_complete */
  void *done_arg;
  void (*cleanup_fn)(void *arg); /* hc_nbc_set_cleanup */
  void *cleanup_arg;
  int yield;      /* hc_nbc_yield: stop after this round until the next pass */
  int persistent; /* hcomm_*_init: kept after a run, replayed by hcomm_start */
} nbc_sched_t;

/* What the builder of a collective does with the schedule it built. */
enum nbc_mode {
  NBC_START, /* start it now: hcomm_i* */
  NBC_PLAN   /* keep it inactive for hcomm_start: hcomm_*_init */
};

static nbc_sched_t *nbc_active;
int hc_nbc_nactive;

/* ---- building ------------------------------------------------------------ */

static nbc_sched_t *nbc_new(hcomm_comm_t *comm, const hcomm_reduce_op_t *op) {
  nbc_sched_t *s = calloc(1, sizeof *s);
  if (s == NULL)
    return NULL;
  s->comm = comm;
  s->group = comm;
  s->rank = comm->rank;
  s->size = comm->size;
  if (op != NULL)
    s->op = *op;
  return s;
}

static void nbc_free(nbc_sched_t *s) {
  if (s->cleanup_fn != NULL)
    s->cleanup_fn(s->cleanup_arg);
  for (size_t i = 0; i < s->nbufs; i++)
    free(s->bufs[i]);
  free(s->bufs);
  free(s->steps);
  free(s->reqs);
  free(s);
}

static void nbc_add(nbc_sched_t *s, int kind, int peer, const void *src,
                    void *dst, size_t n) {
  if (s->error != HC_OK)
    return;
  if (s->nsteps == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 16;
    nbc_step_t *st = realloc(s->steps, cap * sizeof *st);
    if (st == NULL) {
      s->error = HC_ERR_NOMEM;
      return;
    }
    s->steps = st;
    s->cap = cap;
  }
  s->steps[s->nsteps++] = (nbc_step_t){kind, peer, s->group, src, dst, n, NULL};
}

static void nbc_send(nbc_sched_t *s, const void *buf, size_t bytes, int peer) {
  nbc_add(s, NBC_SEND, peer, buf, NULL, bytes);
}

static void nbc_recv(nbc_sched_t *s, void *buf, size_t bytes, int peer) {
  nbc_add(s, NBC_RECV, peer, NULL, buf, bytes);
}

static void nbc_copy(nbc_sched_t *s, const void *src, void *dst, size_t n) {
  if (n > 0 && src != dst)
    nbc_add(s, NBC_COPY, 0, src, dst, n);
}

/* dst = src op dst over count elements: src holds the lower ranks. */
static void nbc_reduce(nbc_sched_t *s, const void *src, void *dst,
                       size_t count) {
  if (count > 0)
    nbc_add(s, NBC_REDUCE, 0, src, dst, count);
}

static void nbc_round(nbc_sched_t *s) {
  if (s->nsteps > 0 && s->steps[s->nsteps - 1].kind != NBC_ROUND)
    nbc_add(s, NBC_ROUND, 0, NULL, NULL, 0);
}

/* A temporary of bytes that lives as long as the schedule; NULL (and the
 * schedule failed) when memory ran out. */
static void *nbc_tmp(nbc_sched_t *s, size_t bytes) {
  if (s->error != HC_OK)
    return NULL;
  if (s->nbufs == s->bufcap) {
    size_t cap = s->bufcap ? 2 * s->bufcap : 4;
    void **b = realloc(s->bufs, cap * sizeof *b);
    if (b == NULL) {
      s->error = HC_ERR_NOMEM;
      return NULL;
    }
    s->bufs = b;
    s->bufcap = cap;
  }
  void *p = malloc(bytes > 0 ? bytes : 1);
  if (p == NULL) {
    s->error = HC_ERR_NOMEM;
    return NULL;
  }
  s->bufs[s->nbufs++] = p;
  return p;
}

/* The regular forms' layout for the v-form builders: one block of bytes
 * per rank, back to back; sizes, then displacements (size each), in the
 * schedule's memory.  NULL as for nbc_tmp. */
static size_t *nbc_even_blocks(nbc_sched_t *s, size_t bytes) {
  size_t *arr = nbc_tmp(s, 2 * (size_t)s->size * sizeof(size_t));
  for (int r = 0; arr != NULL && r < s->size; r++) {
    arr[r] = bytes;
    arr[s->size + r] = (size_t)r * bytes;
  }
  return arr;
}

/* ---- running ------------------------------------------------------------- */

/* Sizes the request array for the busiest round at the start (and again
 * when a call step appended rounds), so that posting never fails for want
 * of memory half-way through a round. */
static hc_status_t nbc_size_reqs(nbc_sched_t *s) {
  size_t most = 0, n = 0;
  for (size_t i = 0; i < s->nsteps; i++) {
    int kind = s->steps[i].kind;
    n = kind == NBC_ROUND ? 0 : n + (kind == NBC_SEND || kind == NBC_RECV);
    most = n > most ? n : most;
  }
  if (s->reqs != NULL && most <= s->reqcap)
    return HC_OK;
  hcomm_request_t **r =
      realloc(s->reqs, (most > 0 ? most : 1) * sizeof *s->reqs);
  if (r == NULL)
    return HC_ERR_NOMEM;
  s->reqs = r;
  s->reqcap = most;
  return HC_OK;
}

static void nbc_track(nbc_sched_t *s, hcomm_request_t *r) {
  s->reqs[s->nreqs++] = r;
}

static void nbc_exec(nbc_sched_t *s, const nbc_step_t *st) {
  hcomm_request_t *r = NULL;
  hc_status_t rc = HC_OK;
  switch (st->kind) {
  case NBC_SEND:
    rc = hc_isend_locked(st->src, st->n, st->peer, s->tag, st->comm,
                         HCOMM_SEND_STANDARD, 1, &r);
    break;
  case NBC_RECV:
    rc = hc_irecv_locked(st->dst, st->n, st->peer, s->tag, st->comm, 1, &r);
    break;
  case NBC_COPY:
    memmove(st->dst, st->src, st->n);
    break;
  case NBC_REDUCE:
    s->op.fn(st->src, st->dst, st->n, s->op.ctx);
    break;
  case NBC_CALL:
    st->call(s, st->dst);
    if (s->error == HC_OK)
      rc = nbc_size_reqs(s);
    break;
  default:
    break;
  }
  if (rc != HC_OK)
    s->error = rc;
  else if (r != NULL)
    nbc_track(s, r);
}

/* Runs the local steps and posts the messages of the next round. */
static void nbc_run_round(nbc_sched_t *s) {
  while (s->pos < s->nsteps && s->error == HC_OK) {
    /* A copy: a call step may append steps and move the array. */
    nbc_step_t st = s->steps[s->pos++];
    if (st.kind == NBC_ROUND)
      return;
    nbc_exec(s, &st);
  }
}

/* 0: waiting on the current round; 1: moved on; 2: finished. */
static int nbc_advance(nbc_sched_t *s) {
  int moved = 0;
  for (;;) {
    for (size_t i = 0; i < s->nreqs; i++) {
      if (!atomic_load(&s->reqs[i]->done)) {
        if (s->error != HC_OK)
          hc_proto_cancel(s->reqs[i]); /* nothing more will match it */
        return moved;
      }
    }
    for (size_t i = 0; i < s->nreqs; i++) {
      if (s->reqs[i]->status.error != HC_OK && s->error == HC_OK)
        s->error = s->reqs[i]->status.error;
      hc_request_release(s->reqs[i]);
    }
    s->nreqs = 0;
    if (s->error != HC_OK || s->pos >= s->nsteps)
      return 2;
    nbc_run_round(s);
    moved = 1;
    if (s->yield) {
      s->yield = 0;
      return moved;
    }
  }
}

/* A persistent schedule stays with its request (freed with it, through
 * hc_nbc_plan_free); any other ends here. */
static void nbc_complete(nbc_sched_t *s) {
  hcomm_request_t *req = s->req;
  hc_status_t error = s->error;
  if (s->done_fn != NULL)
    s->done_fn(s->done_arg, error); /* before anyone can see req done */
  if (!s->persistent)
    nbc_free(s);
  req->status.source = HCOMM_ANY_SOURCE;
  req->status.tag = HCOMM_ANY_TAG;
  req->status.bytes = 0;
  hc_request_complete(req, error); /* may free the communicator */
}

int hc_nbc_progress_locked(void) {
  int moved = 0;
  nbc_sched_t **link = &nbc_active;
  while (*link != NULL) {
    nbc_sched_t *s = *link;
    int r = nbc_advance(s);
    if (r == 2) {
      *link = s->next;
      hc_nbc_nactive--;
      nbc_complete(s);
    } else {
      link = &s->next;
    }
    moved += r > 0;
  }
  return moved;
}

/* With the lock held: the request that s completes, or NULL (s freed, *rc
 * set) when s failed to build or memory ran out. */
static hcomm_request_t *nbc_bind(nbc_sched_t *s, hc_status_t *rc) {
  hcomm_request_t *r = NULL;
  *rc = hc_engine_check();
  if (*rc == HC_OK)
    *rc = s->error;
  if (*rc == HC_OK)
    *rc = nbc_size_reqs(s);
  if (*rc == HC_OK && (r = hc_request_alloc(HC_REQ_USER)) == NULL)
    *rc = HC_ERR_NOMEM;
  if (*rc != HC_OK) {
    nbc_free(s);
    return NULL;
  }
  r->comm = s->comm;
  s->req = r;
  return r;
}

/* With the lock held: runs s from its first step, a persistent one under
 * the tag it took at init, any other under the communicator's next
 * collective tag (every rank starts those in one order). */
static void nbc_run(nbc_sched_t *s) {
  hc_comm_op_begin(s->comm);
  if (!s->persistent)
    s->tag = HC_NBC_TAG_BASE + (int)(s->comm->coll_seq++ % HC_NBC_SEQS);
  s->pos = 0;
  s->nreqs = 0;
  s->error = HC_OK;
  if (nbc_advance(s) == 2) {
    nbc_complete(s);
  } else {
    s->next = nbc_active;
    nbc_active = s;
    hc_nbc_nactive++;
  }
}

/* Takes s (frees it on failure); *req is the collective's request. */
static hc_status_t nbc_start(nbc_sched_t *s, hcomm_request_t **req) {
  hc_status_t rc;
  hc_engine_lock();
  hcomm_request_t *r = nbc_bind(s, &rc);
  if (r != NULL)
    nbc_run(s);
  hc_engine_unlock();
  if (r != NULL)
    *req = r;
  return rc;
}

/* Takes s (frees it on failure); *req is an inactive persistent request
 * that owns s from now on: complete (done) until hcomm_start. */
static hc_status_t nbc_plan(nbc_sched_t *s, hcomm_request_t **req) {
  hc_status_t rc;
  hc_engine_lock();
  hcomm_request_t *r = nbc_bind(s, &rc);
  if (r != NULL) {
    s->persistent = 1;
    s->tag = HC_NBC_PERSIST_TAG_BASE +
             (int)(s->comm->persist_seq++ % HC_NBC_PERSIST_SEQS);
    r->plan = s;
    r->status.source = HCOMM_ANY_SOURCE;
    r->status.tag = HCOMM_ANY_TAG;
    atomic_store(&r->done, 1);
  }
  hc_engine_unlock();
  if (r != NULL)
    *req = r;
  return rc;
}

static hc_status_t nbc_launch(nbc_sched_t *s, hcomm_request_t **req,
                              enum nbc_mode mode) {
  return mode == NBC_PLAN ? nbc_plan(s, req) : nbc_start(s, req);
}

hc_status_t hcomm_start(hcomm_request_t *req) {
  if (req == NULL)
    return HC_ERR_ARG;
  if (req->part != NULL) /* set at init, never changed */
    return hc_part_start(req);
  hc_engine_lock();
  hc_status_t rc = hc_engine_check();
  nbc_sched_t *s = req->plan;
  if (rc == HC_OK && (s == NULL || !atomic_load(&req->done) || req->user_freed))
    rc = HC_ERR_REQUEST;
  if (rc == HC_OK) {
    req->status.error = HC_OK;
    atomic_store(&req->done, 0);
    nbc_run(s);
  }
  hc_engine_unlock();
  return rc;
}

void hc_nbc_plan_free(hc_nbc_sched_t *s) { nbc_free(s); }

hc_status_t hcomm_coll_init_hooks(hcomm_request_t *req, hcomm_coll_done_fn fn,
                                  void (*release)(void *arg), void *arg) {
  if (req == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  nbc_sched_t *s = req->plan;
  hc_status_t rc = HC_OK;
  if (s == NULL || !atomic_load(&req->done) || s->done_fn != NULL)
    rc = HC_ERR_REQUEST;
  if (rc == HC_OK) {
    s->done_fn = fn;
    s->done_arg = arg;
    s->cleanup_fn = release;
    s->cleanup_arg = arg;
  }
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_icoll_on_complete(hcomm_request_t *req, hcomm_coll_done_fn fn,
                                    void *arg) {
  if (req == NULL || fn == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  nbc_sched_t *s = nbc_active;
  while (s != NULL && s->req != req)
    s = s->next;
  if (s != NULL && s->done_fn == NULL) {
    s->done_fn = fn;
    s->done_arg = arg;
  }
  hc_status_t rc = HC_OK;
  if (s == NULL && atomic_load(&req->done) && req->kind == HC_REQ_USER)
    fn(arg, req->status.error); /* finished while starting */
  else if (s == NULL || s->done_fn != fn || s->done_arg != arg)
    rc = HC_ERR_REQUEST;
  hc_engine_unlock();
  return rc;
}

/* ---- argument checks ----------------------------------------------------- */

/* An intercommunicator's collectives are intercoll.c's hcomm_inter_*. */
static hc_status_t nbc_check(hcomm_comm_t *comm, hcomm_request_t **req) {
  if (comm == NULL || comm->local != NULL)
    return HC_ERR_COMM;
  if (req == NULL)
    return HC_ERR_ARG;
  return HC_OK;
}

static hc_status_t nbc_check_root(hcomm_comm_t *comm, int root,
                                  hcomm_request_t **req) {
  hc_status_t rc = nbc_check(comm, req);
  if (rc == HC_OK && (root < 0 || root >= comm->size))
    rc = HC_ERR_RANK;
  return rc;
}

static hc_status_t nbc_check_op(hcomm_comm_t *comm, const hcomm_reduce_op_t *op,
                                hcomm_request_t **req) {
  hc_status_t rc = nbc_check(comm, req);
  if (rc == HC_OK && (op == NULL || op->fn == NULL || op->elem_size == 0))
    rc = HC_ERR_ARG;
  return rc;
}

static hc_status_t nbc_begin(hcomm_comm_t *comm, const hcomm_reduce_op_t *op,
                             nbc_sched_t **out) {
  *out = nbc_new(comm, op);
  return *out != NULL ? HC_OK : HC_ERR_NOMEM;
}

/* ---- schedules built outside this file (nbc.h) --------------------------- */

hc_status_t hc_nbc_new(hcomm_comm_t *comm, const hcomm_reduce_op_t *op,
                       hc_nbc_sched_t **out) {
  return nbc_begin(comm, op, out);
}

void hc_nbc_add_call(hc_nbc_sched_t *s, hc_nbc_call_fn fn, void *arg) {
  nbc_add(s, NBC_CALL, 0, NULL, arg, 0);
  if (s->error == HC_OK)
    s->steps[s->nsteps - 1].call = fn;
}

static void nbc_build_allreduce_rd(nbc_sched_t *s, void *buf, size_t count);

void hc_nbc_add_allreduce(hc_nbc_sched_t *s, void *buf, size_t count) {
  nbc_round(s);
  if (s->size > 1)
    nbc_build_allreduce_rd(s, buf, count);
  nbc_round(s);
}

void hc_nbc_set_cleanup(hc_nbc_sched_t *s, void (*fn)(void *arg), void *arg) {
  s->cleanup_fn = fn;
  s->cleanup_arg = arg;
}

void hc_nbc_yield(hc_nbc_sched_t *s) {
  nbc_add(s, NBC_ROUND, 0, NULL, NULL, 0);
  s->yield = 1;
}

void hc_nbc_fail(hc_nbc_sched_t *s, hc_status_t error) {
  if (s->error == HC_OK)
    s->error = error;
}

hc_status_t hc_nbc_start(hc_nbc_sched_t *s, hcomm_request_t **req) {
  return nbc_start(s, req);
}

hc_status_t hc_nbc_launch(hc_nbc_sched_t *s, int persistent,
                          hcomm_request_t **req) {
  return nbc_launch(s, req, persistent ? NBC_PLAN : NBC_START);
}

/* ---- small tree helpers -------------------------------------------------- */

static int nbc_real(int v, int base, int size) { return (v + base) % size; }

static int nbc_virtual(int rank, int base, int size) {
  return (rank - base + size) % size;
}

/* dst = the size blocks of bytes of src from block first on, wrapping
 * round: block i of dst is block (first + i) % size of src. */
static void nbc_rotate(nbc_sched_t *s, const char *src, char *dst, size_t bytes,
                       int first) {
  size_t head = (size_t)(s->size - first) * bytes;
  nbc_copy(s, src + (size_t)first * bytes, dst, head);
  nbc_copy(s, src, dst + head, (size_t)first * bytes);
}

/* The binomial parent of virtual rank v is v minus its lowest set bit;
 * at the root that bit is the smallest power of two >= size. */
static int nbc_lowbit(int v, int size) {
  if (v != 0)
    return v & -v;
  int p = 1;
  while (p < size)
    p <<= 1;
  return p;
}

/* ---- barrier ------------------------------------------------------------- */

/* Dissemination: ceil(log2 p) rounds for any p, no power-of-two fold-in. */
static void nbc_build_barrier(nbc_sched_t *s) {
  for (int dist = 1; dist < s->size; dist <<= 1) {
    nbc_recv(s, NULL, 0, (s->rank - dist + s->size) % s->size);
    nbc_send(s, NULL, 0, (s->rank + dist) % s->size);
    nbc_round(s);
  }
}

static hc_status_t nbc_coll_barrier(hcomm_comm_t *comm, hcomm_request_t **req,
                                    enum nbc_mode mode) {
  nbc_sched_t *s;
  hc_status_t rc = nbc_check(comm, req);
  if (rc == HC_OK)
    rc = nbc_begin(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  nbc_build_barrier(s);
  return nbc_launch(s, req, mode);
}

/* ---- bcast --------------------------------------------------------------- */

static void nbc_build_bcast_binomial(nbc_sched_t *s, void *buf, size_t bytes,
                                     int root) {
  int v = nbc_virtual(s->rank, root, s->size), low = nbc_lowbit(v, s->size);
  if (v != 0) {
    nbc_recv(s, buf, bytes, nbc_real(v - low, root, s->size));
    nbc_round(s);
  }
  for (int mask = low >> 1; mask > 0; mask >>= 1)
    if (v + mask < s->size)
      nbc_send(s, buf, bytes, nbc_real(v + mask, root, s->size));
  nbc_round(s);
}

/* Binomial scatter of blk-byte blocks (virtual rank v gets its subtree's
 * blocks), then a ring allgather of the blocks in virtual order. */
static void nbc_build_bcast_scatter_ring(nbc_sched_t *s, char *buf,
                                         size_t bytes, int root) {
  int size = s->size, v = nbc_virtual(s->rank, root, size);
  int low = nbc_lowbit(v, size);
  size_t blk = (bytes + (size_t)size - 1) / (size_t)size, lo, hi;
  if (v != 0) {
    hc_coll_span(bytes, blk, v, low, &lo, &hi);
    nbc_recv(s, buf + lo, hi - lo, nbc_real(v - low, root, size));
    nbc_round(s);
  }
  for (int mask = low >> 1; mask > 0; mask >>= 1) {
    if (v + mask >= size)
      continue;
    hc_coll_span(bytes, blk, v + mask, mask, &lo, &hi);
    nbc_send(s, buf + lo, hi - lo, nbc_real(v + mask, root, size));
  }
  nbc_round(s);
  int right = nbc_real(v + 1, root, size),
      left = nbc_real(v - 1 + size, root, size);
  for (int st = 0; st < size - 1; st++) {
    size_t slo, shi, rlo, rhi;
    hc_coll_span(bytes, blk, (v - st + size) % size, 1, &slo, &shi);
    hc_coll_span(bytes, blk, (v - st - 1 + 2 * size) % size, 1, &rlo, &rhi);
    nbc_recv(s, buf + rlo, rhi - rlo, left);
    nbc_send(s, buf + slo, shi - slo, right);
    nbc_round(s);
  }
}

static void nbc_build_bcast(nbc_sched_t *s, void *buf, size_t bytes, int root) {
  switch (hc_coll_bcast_alg(bytes, s->size)) {
  case HC_COLL_ALG_TRIVIAL:
    return;
  case HC_COLL_ALG_SCATTER_RING:
    nbc_build_bcast_scatter_ring(s, buf, bytes, root);
    return;
  default:
    nbc_build_bcast_binomial(s, buf, bytes, root);
  }
}

static hc_status_t nbc_coll_bcast(void *buf, size_t bytes, int root,
                                  hcomm_comm_t *comm, hcomm_request_t **req,
                                  enum nbc_mode mode) {
  nbc_sched_t *s;
  hc_status_t rc = nbc_check_root(comm, root, req);
  if (rc == HC_OK && buf == NULL && bytes > 0)
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = nbc_begin(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  nbc_build_bcast(s, buf, bytes, root);
  return nbc_launch(s, req, mode);
}

/* ---- reduce -------------------------------------------------------------- */

/*
 * Binomial reduction of mine (count elements) into out at root.  Virtual
 * rank v holds the combination of ranks [v, v + k) and appends the received
 * [v + k, v + 2k) on the right, so a tree based at rank 0 keeps rank order:
 * commutative ops reduce straight to the root, the others to rank 0 which
 * then sends the result to the root.
 */
static void nbc_build_reduce(nbc_sched_t *s, const void *mine, void *out,
                             size_t count, int root) {
  size_t bytes = count * s->op.elem_size;
  int size = s->size, base = s->op.commutative ? root : 0;
  int v = nbc_virtual(s->rank, base, size);
  const void *cur = mine;
  void *acc = NULL, *tmp = NULL;
  if (size == 1) {
    nbc_copy(s, mine, out, bytes);
    return;
  }
  for (int mask = 1; mask < size; mask <<= 1) {
    if (v & mask) {
      nbc_send(s, cur, bytes, nbc_real(v - mask, base, size));
      nbc_round(s);
      break;
    }
    if (v + mask >= size)
      continue;
    if (acc == NULL) {
      acc = nbc_tmp(s, bytes);
      tmp = nbc_tmp(s, bytes);
      if (tmp == NULL)
        return;
      nbc_copy(s, mine, acc, bytes);
    }
    nbc_recv(s, tmp, bytes, nbc_real(v + mask, base, size));
    nbc_round(s);
    nbc_reduce(s, acc, tmp, count);
    void *swap = acc; /* the combination is now in tmp */
    acc = tmp;
    tmp = swap;
    cur = acc;
  }
  if (v == 0 && base == root) {
    nbc_copy(s, acc, out, bytes);
  } else if (v == 0) {
    nbc_send(s, acc, bytes, root);
    nbc_round(s);
  } else if (s->rank == root) {
    nbc_recv(s, out, bytes, base);
    nbc_round(s);
  }
}

static hc_status_t nbc_coll_reduce(const void *sendbuf, void *recvbuf,
                                   size_t count, const hcomm_reduce_op_t *op,
                                   int root, hcomm_comm_t *comm,
                                   hcomm_request_t **req, enum nbc_mode mode) {
  nbc_sched_t *s;
  hc_status_t rc = nbc_check_root(comm, root, req);
  if (rc == HC_OK)
    rc = nbc_check_op(comm, op, req);
  if (rc == HC_OK && sendbuf == HCOMM_IN_PLACE && comm->rank != root)
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = nbc_begin(comm, op, &s);
  if (rc != HC_OK)
    return rc;
  const void *mine = sendbuf == HCOMM_IN_PLACE ? recvbuf : sendbuf;
  if (count > 0)
    nbc_build_reduce(s, mine, recvbuf, count, root);
  return nbc_launch(s, req, mode);
}

/* ---- allreduce ----------------------------------------------------------- */

/* Fold-in for a non-power-of-two size (rem = size - pof2): among the first
 * 2*rem ranks each even rank hands its vector to the odd rank above (the
 * lower rank first in the combination, so rank order holds) and gets the
 * result back at the end (nbc_fold_out).  Returns the rank's number among
 * the pof2 survivors, -1 for one that sat out. */
static int nbc_fold_in(nbc_sched_t *s, void *buf, void *tmp, size_t count,
                       int rem) {
  size_t bytes = count * s->op.elem_size;
  int rank = s->rank;
  if (rank >= 2 * rem)
    return rank - rem;
  if (rank % 2 == 0) {
    nbc_send(s, buf, bytes, rank + 1);
    nbc_round(s);
    nbc_recv(s, buf, bytes, rank + 1);
    nbc_round(s);
    return -1;
  }
  nbc_recv(s, tmp, bytes, rank - 1);
  nbc_round(s);
  nbc_reduce(s, tmp, buf, count);
  return rank / 2;
}

static void nbc_fold_out(nbc_sched_t *s, void *buf, size_t bytes, int rem) {
  if (s->rank < 2 * rem && s->rank % 2 == 1) {
    nbc_send(s, buf, bytes, s->rank - 1);
    nbc_round(s);
  }
}

/* The rank of survivor number v after the fold-in. */
static int nbc_survivor(int v, int rem) {
  return v < rem ? 2 * v + 1 : v + rem;
}

/* Recursive doubling after the fold-in: survivors swap ordered, adjacent
 * ranges, the lower range first in each combination, so rank order
 * holds. */
static void nbc_build_allreduce_rd(nbc_sched_t *s, void *buf, size_t count) {
  size_t bytes = count * s->op.elem_size;
  int pof2 = hc_coll_pof2_floor(s->size), rem = s->size - pof2;
  void *tmp = nbc_tmp(s, bytes), *acc = buf;
  if (tmp == NULL)
    return;
  int newrank = nbc_fold_in(s, buf, tmp, count, rem);
  if (newrank < 0)
    return;
  for (int mask = 1; mask < pof2; mask <<= 1) {
    int pnew = newrank ^ mask, peer = nbc_survivor(pnew, rem);
    nbc_recv(s, tmp, bytes, peer);
    nbc_send(s, acc, bytes, peer);
    nbc_round(s);
    if (pnew < newrank) {
      nbc_reduce(s, tmp, acc, count);
    } else {
      nbc_reduce(s, acc, tmp, count);
      void *swap = acc;
      acc = tmp;
      tmp = swap;
    }
  }
  nbc_copy(s, acc, buf, bytes);
  nbc_fold_out(s, buf, bytes, rem);
}

/* Elements [*off, *off + *len) of blocks [first, first + n) of the pof2
 * near-equal blocks of count elements. */
static void nbc_blocks(size_t count, int pof2, int first, int n, size_t *off,
                       size_t *len) {
  size_t last_off, last_len;
  hc_coll_block(count, pof2, first, off, len);
  hc_coll_block(count, pof2, first + n - 1, &last_off, &last_len);
  *len = last_off + last_len - *off;
}

/* Rabenseifner on a power-of-two size p: a reduce-scatter by recursive
 * halving (each round keeps the half of its share that its bit names and
 * sends the partner the other half) leaves rank v with block v combined;
 * an allgather by recursive doubling retraces the halving.  2 log p
 * rounds, 2(p-1)/p of the vector per rank.  Halves combine out of rank
 * order: commutative ops only. */
static void nbc_build_allreduce_rsag(nbc_sched_t *s, char *buf, size_t count) {
  size_t es = s->op.elem_size, off, len, poff, plen;
  int p = s->size, v = s->rank, first = 0;
  char *tmp = nbc_tmp(s, (count / 2 + (size_t)p) * es); /* a kept half */
  if (tmp == NULL)
    return;
  for (int n = p / 2; n >= 1; n /= 2) {
    int peer = v ^ n;
    int keep = (v & n) ? first + n : first, give = (v & n) ? first : first + n;
    nbc_blocks(count, p, keep, n, &off, &len);
    nbc_blocks(count, p, give, n, &poff, &plen);
    nbc_recv(s, tmp, len * es, peer);
    nbc_send(s, buf + poff * es, plen * es, peer);
    nbc_round(s);
    nbc_reduce(s, tmp, buf + off * es, len);
    first = keep;
  }
  for (int n = 1; n < p; n <<= 1) {
    int peer = v ^ n;
    nbc_blocks(count, p, v & ~(n - 1), n, &off, &len);
    nbc_blocks(count, p, peer & ~(n - 1), n, &poff, &plen);
    nbc_recv(s, buf + poff * es, plen * es, peer);
    nbc_send(s, buf + off * es, len * es, peer);
    nbc_round(s);
  }
}

/* Ring reduce-scatter, leaving rank r with block r+1 reduced, then a ring
 * allgather of the blocks.  Combines out of rank order: commutative only. */
static void nbc_build_allreduce_ring(nbc_sched_t *s, char *b, size_t count) {
  size_t es = s->op.elem_size, soff, slen, roff, rlen;
  int size = s->size, rank = s->rank;
  int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  char *tmp = nbc_tmp(s, (count / (size_t)size + 1) * es);
  if (tmp == NULL)
    return;
  for (int st = 0; st < size - 1; st++) {
    hc_coll_block(count, size, (rank - st + size) % size, &soff, &slen);
    hc_coll_block(count, size, (rank - st - 1 + 2 * size) % size, &roff, &rlen);
    nbc_recv(s, tmp, rlen * es, left);
    nbc_send(s, b + soff * es, slen * es, right);
    nbc_round(s);
    nbc_reduce(s, tmp, b + roff * es, rlen);
  }
  for (int st = 0; st < size - 1; st++) {
    hc_coll_block(count, size, (rank + 1 - st + size) % size, &soff, &slen);
    hc_coll_block(count, size, (rank - st + size) % size, &roff, &rlen);
    nbc_recv(s, b + roff * es, rlen * es, left);
    nbc_send(s, b + soff * es, slen * es, right);
    nbc_round(s);
  }
}

static hc_status_t nbc_coll_allreduce(const void *sendbuf, void *recvbuf,
                                      size_t count, const hcomm_reduce_op_t *op,
                                      hcomm_comm_t *comm, hcomm_request_t **req,
                                      enum nbc_mode mode) {
  nbc_sched_t *s;
  hc_status_t rc = nbc_check_op(comm, op, req);
  if (rc == HC_OK)
    rc = nbc_begin(comm, op, &s);
  if (rc != HC_OK)
    return rc;
  size_t bytes = count * op->elem_size;
  if (sendbuf != HCOMM_IN_PLACE)
    nbc_copy(s, sendbuf, recvbuf, bytes);
  switch (hc_coll_allreduce_alg(count, op->elem_size, op->commutative,
                                comm->size)) {
  case HC_COLL_ALG_TRIVIAL:
    break;
  case HC_COLL_ALG_RING:
    nbc_build_allreduce_ring(s, recvbuf, count);
    break;
  case HC_COLL_ALG_RABENSEIFNER:
    nbc_build_allreduce_rsag(s, recvbuf, count);
    break;
  case HC_COLL_ALG_REDUCE_BCAST:
    nbc_build_reduce(s, recvbuf, recvbuf, count, 0);
    nbc_build_bcast(s, recvbuf, bytes, 0);
    break;
  default:
    nbc_build_allreduce_rd(s, recvbuf, count);
  }
  return nbc_launch(s, req, mode);
}

/* ---- scan / exscan ------------------------------------------------------- */

/*
 * Recursive doubling: partial holds the combination of this rank's aligned
 * block of 2^k ranks and is swapped with the partner block's; contributions
 * of lower blocks are folded into the result on the left.  exclusive: the
 * result starts empty (rank 0's stays untouched).
 */
static void nbc_build_scan(nbc_sched_t *s, const void *mine, void *out,
                           size_t count, int exclusive) {
  size_t bytes = count * s->op.elem_size;
  int have = !exclusive;
  void *partial = nbc_tmp(s, bytes), *tmp = nbc_tmp(s, bytes);
  if (tmp == NULL)
    return;
  nbc_copy(s, mine, partial, bytes);
  if (!exclusive)
    nbc_copy(s, mine, out, bytes);
  for (int mask = 1; mask < s->size; mask <<= 1) {
    int partner = s->rank ^ mask;
    if (partner >= s->size)
      continue;
    nbc_recv(s, tmp, bytes, partner);
    nbc_send(s, partial, bytes, partner);
    nbc_round(s);
    if (partner < s->rank) {
      nbc_reduce(s, tmp, partial, count);
      if (have)
        nbc_reduce(s, tmp, out, count);
      else
        nbc_copy(s, tmp, out, bytes);
      have = 1;
    } else {
      nbc_reduce(s, partial, tmp, count);
      void *swap = partial;
      partial = tmp;
      tmp = swap;
    }
  }
}

static hc_status_t nbc_scan(const void *sendbuf, void *recvbuf, size_t count,
                            const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                            hcomm_request_t **req, int exclusive,
                            enum nbc_mode mode) {
  nbc_sched_t *s;
  hc_status_t rc = nbc_check_op(comm, op, req);
  if (rc == HC_OK)
    rc = nbc_begin(comm, op, &s);
  if (rc != HC_OK)
    return rc;
  const void *mine = sendbuf == HCOMM_IN_PLACE ? recvbuf : sendbuf;
  if (count > 0)
    nbc_build_scan(s, mine, recvbuf, count, exclusive);
  return nbc_launch(s, req, mode);
}

hc_status_t hcomm_iscan(const void *sendbuf, void *recvbuf, size_t count,
                        const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                        hcomm_request_t **req) {
  return nbc_scan(sendbuf, recvbuf, count, op, comm, req, 0, NBC_START);
}

hc_status_t hcomm_iexscan(const void *sendbuf, void *recvbuf, size_t count,
                          const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                          hcomm_request_t **req) {
  return nbc_scan(sendbuf, recvbuf, count, op, comm, req, 1, NBC_START);
}

/* ---- gather -------------------------------------------------------------- */

/* Root posts every receive at once: fine while p is small, and the only
 * sensible choice for varying block sizes. */
static void nbc_build_gatherv(nbc_sched_t *s, const void *mine, size_t sbytes,
                              char *recvbuf, const size_t *rbytes,
                              const size_t *rdispls, int root) {
  if (s->rank != root) {
    nbc_send(s, mine, sbytes, root);
    nbc_round(s);
    return;
  }
  if (mine != HCOMM_IN_PLACE)
    nbc_copy(s, mine, recvbuf + rdispls[root], rbytes[root]);
  for (int r = 0; r < s->size; r++)
    if (r != root)
      nbc_recv(s, recvbuf + rdispls[r], rbytes[r], r);
  nbc_round(s);
}

/* Binomial: each virtual rank collects its subtree's blocks in virtual
 * order and passes them up in one message (log p hops instead of p
 * messages into the root). */
static void nbc_build_gather_binomial(nbc_sched_t *s, const void *mine,
                                      size_t bytes, char *recvbuf, int root) {
  int size = s->size, v = nbc_virtual(s->rank, root, size);
  int low = nbc_lowbit(v, size);
  int extent = low < size - v ? low : size - v;
  if (extent == 1) {
    nbc_send(s, mine, bytes, nbc_real(v - low, root, size));
    nbc_round(s);
    return;
  }
  char *col =
      (v == 0 && root == 0) ? recvbuf : nbc_tmp(s, (size_t)extent * bytes);
  if (col == NULL)
    return;
  nbc_copy(s, mine, col, bytes);
  for (int mask = 1; mask < extent; mask <<= 1) {
    int nblk = extent - mask < mask ? extent - mask : mask;
    nbc_recv(s, col + (size_t)mask * bytes, (size_t)nblk * bytes,
             nbc_real(v + mask, root, size));
  }
  nbc_round(s);
  if (v != 0) {
    nbc_send(s, col, (size_t)extent * bytes, nbc_real(v - low, root, size));
    nbc_round(s);
  } else if (col != recvbuf) {
    /* virtual v is rank (v + root) % size: two contiguous runs */
    size_t head = (size_t)(size - root) * bytes;
    nbc_copy(s, col, recvbuf + (size_t)root * bytes, head);
    nbc_copy(s, col + head, recvbuf, (size_t)root * bytes);
  }
}

static hc_status_t nbc_coll_gather(const void *sendbuf, size_t bytes,
                                   void *recvbuf, int root, hcomm_comm_t *comm,
                                   hcomm_request_t **req, enum nbc_mode mode) {
  nbc_sched_t *s;
  hc_status_t rc = nbc_check_root(comm, root, req);
  if (rc == HC_OK && sendbuf == HCOMM_IN_PLACE && comm->rank != root)
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = nbc_begin(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  int size = comm->size;
  char *own = (char *)recvbuf + (size_t)comm->rank * bytes;
  if (hc_coll_gather_alg(bytes, size) == HC_COLL_ALG_BINOMIAL) {
    nbc_build_gather_binomial(s, sendbuf == HCOMM_IN_PLACE ? own : sendbuf,
                              bytes, recvbuf, root);
  } else {
    size_t *arr = nbc_even_blocks(s, bytes);
    if (arr != NULL)
      nbc_build_gatherv(s, sendbuf, bytes, recvbuf, arr, arr + size, root);
  }
  return nbc_launch(s, req, mode);
}

static hc_status_t nbc_coll_gatherv(const void *sendbuf, size_t sbytes,
                                    void *recvbuf, const size_t *rbytes,
                                    const size_t *rdispls, int root,
                                    hcomm_comm_t *comm, hcomm_request_t **req,
                                    enum nbc_mode mode) {
  nbc_sched_t *s;
  hc_status_t rc = nbc_check_root(comm, root, req);
  if (rc == HC_OK && sendbuf == HCOMM_IN_PLACE && comm->rank != root)
    rc = HC_ERR_ARG;
  if (rc == HC_OK && comm->rank == root && (rbytes == NULL || rdispls == NULL))
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = nbc_begin(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  nbc_build_gatherv(s, sendbuf, sbytes, recvbuf, rbytes, rdispls, root);
  return nbc_launch(s, req, mode);
}

/* ---- scatter ------------------------------------------------------------- */

static void nbc_build_scatterv(nbc_sched_t *s, const char *sendbuf,
                               const size_t *sbytes, const size_t *sdispls,
                               void *recvbuf, size_t rbytes, int root) {
  if (s->rank != root) {
    nbc_recv(s, recvbuf, rbytes, root);
    nbc_round(s);
    return;
  }
  if (recvbuf != HCOMM_IN_PLACE)
    nbc_copy(s, sendbuf + sdispls[root], recvbuf, sbytes[root]);
  for (int r = 0; r < s->size; r++)
    if (r != root)
      nbc_send(s, sendbuf + sdispls[r], sbytes[r], r);
  nbc_round(s);
}

/* Binomial, the mirror of the gather: each virtual rank receives its
 * subtree's blocks in one message and forwards the children's parts. */
static void nbc_build_scatter_binomial(nbc_sched_t *s, const char *sendbuf,
                                       size_t bytes, void *recvbuf, int root) {
  int size = s->size, v = nbc_virtual(s->rank, root, size);
  int low = nbc_lowbit(v, size);
  int extent = low < size - v ? low : size - v;
  const char *col = sendbuf;
  if (v == 0 && root != 0) {
    char *rot = nbc_tmp(s, (size_t)size * bytes);
    if (rot == NULL)
      return;
    nbc_rotate(s, sendbuf, rot, bytes, root);
    col = rot;
  } else if (v != 0) {
    char *in = extent == 1 ? recvbuf : nbc_tmp(s, (size_t)extent * bytes);
    if (in == NULL)
      return;
    nbc_recv(s, in, (size_t)extent * bytes, nbc_real(v - low, root, size));
    nbc_round(s);
    col = in;
  }
  for (int mask = low >> 1; mask > 0; mask >>= 1) {
    if (v + mask >= size)
      continue;
    int nblk = size - v - mask < mask ? size - v - mask : mask;
    nbc_send(s, col + (size_t)mask * bytes, (size_t)nblk * bytes,
             nbc_real(v + mask, root, size));
  }
  nbc_round(s);
  if (recvbuf != HCOMM_IN_PLACE)
    nbc_copy(s, col, recvbuf, bytes);
}

static hc_status_t nbc_coll_scatter(const void *sendbuf, size_t bytes,
                                    void *recvbuf, int root, hcomm_comm_t *comm,
                                    hcomm_request_t **req, enum nbc_mode mode) {
  nbc_sched_t *s;
  hc_status_t rc = nbc_check_root(comm, root, req);
  if (rc == HC_OK && recvbuf == HCOMM_IN_PLACE && comm->rank != root)
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = nbc_begin(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  int size = comm->size;
  if (hc_coll_gather_alg(bytes, size) == HC_COLL_ALG_BINOMIAL) {
    nbc_build_scatter_binomial(s, sendbuf, bytes, recvbuf, root);
  } else {
    size_t *arr = nbc_even_blocks(s, bytes);
    if (arr != NULL)
      nbc_build_scatterv(s, sendbuf, arr, arr + size, recvbuf, bytes, root);
  }
  return nbc_launch(s, req, mode);
}

static hc_status_t nbc_coll_scatterv(const void *sendbuf, const size_t *sbytes,
                                     const size_t *sdispls, void *recvbuf,
                                     size_t rbytes, int root,
                                     hcomm_comm_t *comm, hcomm_request_t **req,
                                     enum nbc_mode mode) {
  nbc_sched_t *s;
  hc_status_t rc = nbc_check_root(comm, root, req);
  if (rc == HC_OK && recvbuf == HCOMM_IN_PLACE && comm->rank != root)
    rc = HC_ERR_ARG;
  if (rc == HC_OK && comm->rank == root && (sbytes == NULL || sdispls == NULL))
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = nbc_begin(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  nbc_build_scatterv(s, sendbuf, sbytes, sdispls, recvbuf, rbytes, root);
  return nbc_launch(s, req, mode);
}

/* ---- allgather ----------------------------------------------------------- */

/* Ring: p-1 rounds, each passing one block to the right; bandwidth-optimal
 * for any p and any block sizes. */
static void nbc_build_allgatherv_ring(nbc_sched_t *s, char *recvbuf,
                                      const size_t *rbytes,
                                      const size_t *rdispls) {
  int size = s->size, rank = s->rank;
  int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  for (int st = 0; st < size - 1; st++) {
    int sb = (rank - st + size) % size, rb = (rank - st - 1 + 2 * size) % size;
    nbc_recv(s, recvbuf + rdispls[rb], rbytes[rb], left);
    nbc_send(s, recvbuf + rdispls[sb], rbytes[sb], right);
    nbc_round(s);
  }
}

/* Power-of-two sizes, small totals: log p rounds, swapping the blocks
 * gathered so far with rank ^ 2^k (both runs contiguous). */
static void nbc_build_allgather_rd(nbc_sched_t *s, char *recvbuf,
                                   size_t bytes) {
  for (int mask = 1; mask < s->size; mask <<= 1) {
    int peer = s->rank ^ mask;
    size_t mine = (size_t)(s->rank & ~(mask - 1)) * bytes;
    size_t theirs = (size_t)(peer & ~(mask - 1)) * bytes;
    nbc_recv(s, recvbuf + theirs, (size_t)mask * bytes, peer);
    nbc_send(s, recvbuf + mine, (size_t)mask * bytes, peer);
    nbc_round(s);
  }
}

static hc_status_t nbc_coll_allgather(const void *sendbuf, size_t bytes,
                                      void *recvbuf, hcomm_comm_t *comm,
                                      hcomm_request_t **req,
                                      enum nbc_mode mode) {
  nbc_sched_t *s;
  hc_status_t rc = nbc_check(comm, req);
  if (rc == HC_OK)
    rc = nbc_begin(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  int size = comm->size;
  char *own = (char *)recvbuf + (size_t)comm->rank * bytes;
  if (sendbuf != HCOMM_IN_PLACE)
    nbc_copy(s, sendbuf, own, bytes);
  enum hc_coll_alg alg = hc_coll_allgather_alg(bytes, size);
  if (alg == HC_COLL_ALG_RECURSIVE_DOUBLING) {
    nbc_build_allgather_rd(s, recvbuf, bytes);
  } else if (alg != HC_COLL_ALG_TRIVIAL) {
    size_t *arr = nbc_even_blocks(s, bytes);
    if (arr != NULL)
      nbc_build_allgatherv_ring(s, recvbuf, arr, arr + size);
  }
  return nbc_launch(s, req, mode);
}

static hc_status_t nbc_coll_allgatherv(const void *sendbuf, size_t sbytes,
                                       void *recvbuf, const size_t *rbytes,
                                       const size_t *rdispls,
                                       hcomm_comm_t *comm,
                                       hcomm_request_t **req,
                                       enum nbc_mode mode) {
  nbc_sched_t *s;
  hc_status_t rc = nbc_check(comm, req);
  if (rc == HC_OK && (rbytes == NULL || rdispls == NULL))
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = nbc_begin(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  char *own = (char *)recvbuf + rdispls[comm->rank];
  if (sendbuf != HCOMM_IN_PLACE)
    nbc_copy(s, sendbuf, own, sbytes);
  if (comm->size > 1)
    nbc_build_allgatherv_ring(s, recvbuf, rbytes, rdispls);
  return nbc_launch(s, req, mode);
}

/* ---- alltoall ------------------------------------------------------------ */

/*
 * Linear (hc_coll_alltoall_alg): every message in flight at once in one
 * round; pairwise: one partner per round (rank +- i).
 */
static void nbc_build_alltoallv(nbc_sched_t *s, const char *sendbuf,
                                const size_t *sbytes, const size_t *sdispls,
                                char *recvbuf, const size_t *rbytes,
                                const size_t *rdispls) {
  int size = s->size, rank = s->rank;
  size_t most = 0;
  for (int r = 0; r < size; r++)
    most = rbytes[r] > most ? rbytes[r] : most;
  if (sendbuf == HCOMM_IN_PLACE) {
    size_t span = 0;
    for (int r = 0; r < size; r++)
      if (rdispls[r] + rbytes[r] > span)
        span = rdispls[r] + rbytes[r];
    char *copy = nbc_tmp(s, span);
    if (copy == NULL)
      return;
    nbc_copy(s, recvbuf, copy, span); /* first step: the input of this run */
    sendbuf = copy;
    sbytes = rbytes;
    sdispls = rdispls;
  }
  nbc_copy(s, sendbuf + sdispls[rank], recvbuf + rdispls[rank], sbytes[rank]);
  int linear = hc_coll_alltoall_alg(most, size, 0) != HC_COLL_ALG_PAIRWISE;
  for (int i = 1; i < size; i++) {
    int to = (rank + i) % size, from = (rank - i + size) % size;
    nbc_recv(s, recvbuf + rdispls[from], rbytes[from], from);
    nbc_send(s, sendbuf + sdispls[to], sbytes[to], to);
    if (!linear)
      nbc_round(s);
  }
  nbc_round(s);
}

static hc_status_t nbc_coll_alltoallv(const void *sendbuf, const size_t *sbytes,
                                      const size_t *sdispls, void *recvbuf,
                                      const size_t *rbytes,
                                      const size_t *rdispls, hcomm_comm_t *comm,
                                      hcomm_request_t **req,
                                      enum nbc_mode mode) {
  nbc_sched_t *s;
  hc_status_t rc = nbc_check(comm, req);
  if (rc == HC_OK &&
      (rbytes == NULL || rdispls == NULL ||
       (sendbuf != HCOMM_IN_PLACE && (sbytes == NULL || sdispls == NULL))))
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = nbc_begin(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  nbc_build_alltoallv(s, sendbuf, sbytes, sdispls, recvbuf, rbytes, rdispls);
  return nbc_launch(s, req, mode);
}

/* Bruck, for small blocks on many ranks: log p rounds instead of p - 1
 * messages.  The blocks are rotated so that block i is bound for rank
 * rank + i; round k sends every block whose index has bit k set to rank + k
 * (packed into one message) and takes the same positions from rank - k;
 * after the last round block i came from rank - i.  Reads all of in before
 * writing out, so in may be out (in place). */
static void nbc_build_alltoall_bruck(nbc_sched_t *s, const char *in,
                                     size_t bytes, char *out) {
  int size = s->size, rank = s->rank, half = (size + 1) / 2;
  char *rot = nbc_tmp(s, (size_t)size * bytes);
  char *pack = nbc_tmp(s, (size_t)half * bytes);
  char *got = nbc_tmp(s, (size_t)half * bytes);
  if (got == NULL)
    return;
  nbc_rotate(s, in, rot, bytes, rank);
  for (int k = 1; k < size; k <<= 1) {
    size_t n = 0;
    for (int i = 1; i < size; i++)
      if (i & k)
        nbc_copy(s, rot + (size_t)i * bytes, pack + n++ * bytes, bytes);
    nbc_recv(s, got, n * bytes, (rank - k + size) % size);
    nbc_send(s, pack, n * bytes, (rank + k) % size);
    nbc_round(s);
    n = 0;
    for (int i = 1; i < size; i++)
      if (i & k)
        nbc_copy(s, got + n++ * bytes, rot + (size_t)i * bytes, bytes);
  }
  for (int i = 0; i < size; i++)
    nbc_copy(s, rot + (size_t)i * bytes,
             out + (size_t)((rank - i + size) % size) * bytes, bytes);
}

static hc_status_t nbc_coll_alltoall(const void *sendbuf, size_t bytes,
                                     void *recvbuf, hcomm_comm_t *comm,
                                     hcomm_request_t **req,
                                     enum nbc_mode mode) {
  nbc_sched_t *s;
  hc_status_t rc = nbc_check(comm, req);
  if (rc == HC_OK)
    rc = nbc_begin(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  int size = comm->size;
  size_t *arr = NULL;
  if (hc_coll_alltoall_alg(bytes, size, 1) == HC_COLL_ALG_BRUCK)
    nbc_build_alltoall_bruck(s, sendbuf == HCOMM_IN_PLACE ? recvbuf : sendbuf,
                             bytes, recvbuf);
  else if ((arr = nbc_even_blocks(s, bytes)) != NULL)
    nbc_build_alltoallv(s, sendbuf, arr, arr + size, recvbuf, arr, arr + size);
  return nbc_launch(s, req, mode);
}

/* ---- neighbourhood exchange --------------------------------------------- */

/*
 * One round: every receive posted, then every send, each list in the order
 * the caller gave it, so the messages between one pair of ranks (a rank may
 * be a neighbour twice) match in that order; HCOMM_PROC_NULL entries move
 * nothing.
 */
static void nbc_build_neighbor(nbc_sched_t *s, const char *sendbuf,
                               const hcomm_neighbors_t *send, char *recvbuf,
                               const hcomm_neighbors_t *recv) {
  for (int i = 0; i < recv->n; i++)
    if (recv->peers[i] != HCOMM_PROC_NULL)
      nbc_recv(s, recvbuf + recv->offs[i], recv->bytes[i], recv->peers[i]);
  for (int i = 0; i < send->n; i++)
    if (send->peers[i] != HCOMM_PROC_NULL)
      nbc_send(s, sendbuf + send->offs[i], send->bytes[i], send->peers[i]);
  nbc_round(s);
}

static int nbc_neighbors_ok(const hcomm_neighbors_t *side, int size) {
  if (side == NULL || side->n < 0 ||
      (side->n > 0 &&
       (side->peers == NULL || side->bytes == NULL || side->offs == NULL)))
    return 0;
  for (int i = 0; i < side->n; i++)
    if (side->peers[i] != HCOMM_PROC_NULL &&
        (side->peers[i] < 0 || side->peers[i] >= size))
      return 0;
  return 1;
}

static hc_status_t nbc_coll_neighbor(const void *sendbuf,
                                     const hcomm_neighbors_t *send,
                                     void *recvbuf,
                                     const hcomm_neighbors_t *recv,
                                     hcomm_comm_t *comm, hcomm_request_t **req,
                                     enum nbc_mode mode) {
  nbc_sched_t *s;
  hc_status_t rc = nbc_check(comm, req);
  if (rc == HC_OK && (!nbc_neighbors_ok(send, comm->size) ||
                      !nbc_neighbors_ok(recv, comm->size)))
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = nbc_begin(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  nbc_build_neighbor(s, sendbuf, send, recvbuf, recv);
  return nbc_launch(s, req, mode);
}

/* ---- reduce_scatter ------------------------------------------------------ */

/* Commutative: ring reduce-scatter over the caller's blocks (each rank
 * sends (p-1)/p of the vector).  Block r of the ring at step st is sent by
 * rank r+st+1 and ends fully combined at rank r. */
static void nbc_build_reduce_scatter_ring(nbc_sched_t *s, const void *mine,
                                          void *recvbuf, const size_t *counts,
                                          const size_t *displs, size_t total) {
  size_t es = s->op.elem_size, most = 0;
  int size = s->size, rank = s->rank;
  int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  for (int r = 0; r < size; r++)
    most = counts[r] > most ? counts[r] : most;
  char *acc = nbc_tmp(s, total * es), *tmp = nbc_tmp(s, most * es);
  if (tmp == NULL)
    return;
  nbc_copy(s, mine, acc, total * es);
  for (int st = 0; st < size - 1; st++) {
    int sb = (rank - st - 1 + 2 * size) % size;
    int rb = (rank - st - 2 + 2 * size) % size;
    nbc_recv(s, tmp, counts[rb] * es, left);
    nbc_send(s, acc + displs[sb] * es, counts[sb] * es, right);
    nbc_round(s);
    nbc_reduce(s, tmp, acc + displs[rb] * es, counts[rb]);
  }
  nbc_copy(s, acc + displs[rank] * es, recvbuf, counts[rank] * es);
}

static hc_status_t nbc_coll_reduce_scatter(const void *sendbuf, void *recvbuf,
                                           const size_t *counts,
                                           const hcomm_reduce_op_t *op,
                                           hcomm_comm_t *comm,
                                           hcomm_request_t **req,
                                           enum nbc_mode mode) {
  nbc_sched_t *s;
  hc_status_t rc = nbc_check_op(comm, op, req);
  if (rc == HC_OK && counts == NULL)
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = nbc_begin(comm, op, &s);
  if (rc != HC_OK)
    return rc;
  int size = comm->size;
  size_t es = op->elem_size, total = 0;
  size_t *arr = nbc_tmp(s, 3 * (size_t)size * sizeof(size_t));
  if (arr == NULL)
    return nbc_launch(s, req, mode); /* reports the failure */
  for (int r = 0; r < size; r++) {
    arr[r] = counts[r];
    arr[size + r] = total; /* element displacement */
    arr[2 * size + r] = counts[r] * es;
    total += counts[r];
  }
  const void *mine = sendbuf == HCOMM_IN_PLACE ? recvbuf : sendbuf;
  if (total == 0) {
    /* nothing to combine */
  } else if (size == 1) {
    nbc_copy(s, mine, recvbuf, total * es);
  } else if (op->commutative) {
    nbc_build_reduce_scatter_ring(s, mine, recvbuf, arr, arr + size, total);
  } else {
    /* Rank order: reduce the whole vector at rank 0, then scatter it. */
    char *full = nbc_tmp(s, total * es);
    size_t *bdispls = nbc_tmp(s, (size_t)size * sizeof(size_t));
    if (bdispls != NULL) {
      for (int r = 0; r < size; r++)
        bdispls[r] = arr[size + r] * es;
      nbc_build_reduce(s, mine, full, total, 0);
      nbc_build_scatterv(s, full, arr + 2 * size, bdispls, recvbuf,
                         counts[comm->rank] * es, 0);
    }
  }
  return nbc_launch(s, req, mode);
}

/* ---- the public forms: started now (hcomm_i*) or kept (hcomm_*_init) ---- */

hc_status_t hcomm_ibarrier(hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_barrier(comm, req, NBC_START);
}

hc_status_t hcomm_barrier_init(hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_barrier(comm, req, NBC_PLAN);
}

hc_status_t hcomm_ibcast(void *buf, size_t bytes, int root, hcomm_comm_t *comm,
                         hcomm_request_t **req) {
  return nbc_coll_bcast(buf, bytes, root, comm, req, NBC_START);
}

hc_status_t hcomm_bcast_init(void *buf, size_t bytes, int root,
                             hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_bcast(buf, bytes, root, comm, req, NBC_PLAN);
}

hc_status_t hcomm_ireduce(const void *sendbuf, void *recvbuf, size_t count,
                          const hcomm_reduce_op_t *op, int root,
                          hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_reduce(sendbuf, recvbuf, count, op, root, comm, req,
                         NBC_START);
}

hc_status_t hcomm_reduce_init(const void *sendbuf, void *recvbuf, size_t count,
                              const hcomm_reduce_op_t *op, int root,
                              hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_reduce(sendbuf, recvbuf, count, op, root, comm, req,
                         NBC_PLAN);
}

hc_status_t hcomm_iallreduce(const void *sendbuf, void *recvbuf, size_t count,
                             const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                             hcomm_request_t **req) {
  return nbc_coll_allreduce(sendbuf, recvbuf, count, op, comm, req, NBC_START);
}

hc_status_t hcomm_allreduce_init(const void *sendbuf, void *recvbuf,
                                 size_t count, const hcomm_reduce_op_t *op,
                                 hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_allreduce(sendbuf, recvbuf, count, op, comm, req, NBC_PLAN);
}

hc_status_t hcomm_igather(const void *sendbuf, size_t bytes, void *recvbuf,
                          int root, hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_gather(sendbuf, bytes, recvbuf, root, comm, req, NBC_START);
}

hc_status_t hcomm_gather_init(const void *sendbuf, size_t bytes, void *recvbuf,
                              int root, hcomm_comm_t *comm,
                              hcomm_request_t **req) {
  return nbc_coll_gather(sendbuf, bytes, recvbuf, root, comm, req, NBC_PLAN);
}

hc_status_t hcomm_igatherv(const void *sendbuf, size_t sbytes, void *recvbuf,
                           const size_t *rbytes, const size_t *rdispls,
                           int root, hcomm_comm_t *comm,
                           hcomm_request_t **req) {
  return nbc_coll_gatherv(sendbuf, sbytes, recvbuf, rbytes, rdispls, root, comm,
                          req, NBC_START);
}

hc_status_t hcomm_gatherv_init(const void *sendbuf, size_t sbytes,
                               void *recvbuf, const size_t *rbytes,
                               const size_t *rdispls, int root,
                               hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_gatherv(sendbuf, sbytes, recvbuf, rbytes, rdispls, root, comm,
                          req, NBC_PLAN);
}

hc_status_t hcomm_iscatter(const void *sendbuf, size_t bytes, void *recvbuf,
                           int root, hcomm_comm_t *comm,
                           hcomm_request_t **req) {
  return nbc_coll_scatter(sendbuf, bytes, recvbuf, root, comm, req, NBC_START);
}

hc_status_t hcomm_scatter_init(const void *sendbuf, size_t bytes, void *recvbuf,
                               int root, hcomm_comm_t *comm,
                               hcomm_request_t **req) {
  return nbc_coll_scatter(sendbuf, bytes, recvbuf, root, comm, req, NBC_PLAN);
}

hc_status_t hcomm_iscatterv(const void *sendbuf, const size_t *sbytes,
                            const size_t *sdispls, void *recvbuf, size_t rbytes,
                            int root, hcomm_comm_t *comm,
                            hcomm_request_t **req) {
  return nbc_coll_scatterv(sendbuf, sbytes, sdispls, recvbuf, rbytes, root,
                           comm, req, NBC_START);
}

hc_status_t hcomm_scatterv_init(const void *sendbuf, const size_t *sbytes,
                                const size_t *sdispls, void *recvbuf,
                                size_t rbytes, int root, hcomm_comm_t *comm,
                                hcomm_request_t **req) {
  return nbc_coll_scatterv(sendbuf, sbytes, sdispls, recvbuf, rbytes, root,
                           comm, req, NBC_PLAN);
}

hc_status_t hcomm_iallgather(const void *sendbuf, size_t bytes, void *recvbuf,
                             hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_allgather(sendbuf, bytes, recvbuf, comm, req, NBC_START);
}

hc_status_t hcomm_allgather_init(const void *sendbuf, size_t bytes,
                                 void *recvbuf, hcomm_comm_t *comm,
                                 hcomm_request_t **req) {
  return nbc_coll_allgather(sendbuf, bytes, recvbuf, comm, req, NBC_PLAN);
}

hc_status_t hcomm_iallgatherv(const void *sendbuf, size_t sbytes, void *recvbuf,
                              const size_t *rbytes, const size_t *rdispls,
                              hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_allgatherv(sendbuf, sbytes, recvbuf, rbytes, rdispls, comm,
                             req, NBC_START);
}

hc_status_t hcomm_allgatherv_init(const void *sendbuf, size_t sbytes,
                                  void *recvbuf, const size_t *rbytes,
                                  const size_t *rdispls, hcomm_comm_t *comm,
                                  hcomm_request_t **req) {
  return nbc_coll_allgatherv(sendbuf, sbytes, recvbuf, rbytes, rdispls, comm,
                             req, NBC_PLAN);
}

hc_status_t hcomm_ialltoallv(const void *sendbuf, const size_t *sbytes,
                             const size_t *sdispls, void *recvbuf,
                             const size_t *rbytes, const size_t *rdispls,
                             hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_alltoallv(sendbuf, sbytes, sdispls, recvbuf, rbytes, rdispls,
                            comm, req, NBC_START);
}

hc_status_t hcomm_alltoallv_init(const void *sendbuf, const size_t *sbytes,
                                 const size_t *sdispls, void *recvbuf,
                                 const size_t *rbytes, const size_t *rdispls,
                                 hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_alltoallv(sendbuf, sbytes, sdispls, recvbuf, rbytes, rdispls,
                            comm, req, NBC_PLAN);
}

hc_status_t hcomm_ialltoall(const void *sendbuf, size_t bytes, void *recvbuf,
                            hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_alltoall(sendbuf, bytes, recvbuf, comm, req, NBC_START);
}

hc_status_t hcomm_alltoall_init(const void *sendbuf, size_t bytes,
                                void *recvbuf, hcomm_comm_t *comm,
                                hcomm_request_t **req) {
  return nbc_coll_alltoall(sendbuf, bytes, recvbuf, comm, req, NBC_PLAN);
}

hc_status_t hcomm_ireduce_scatter(const void *sendbuf, void *recvbuf,
                                  const size_t *counts,
                                  const hcomm_reduce_op_t *op,
                                  hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_reduce_scatter(sendbuf, recvbuf, counts, op, comm, req,
                                 NBC_START);
}

hc_status_t hcomm_reduce_scatter_init(const void *sendbuf, void *recvbuf,
                                      const size_t *counts,
                                      const hcomm_reduce_op_t *op,
                                      hcomm_comm_t *comm,
                                      hcomm_request_t **req) {
  return nbc_coll_reduce_scatter(sendbuf, recvbuf, counts, op, comm, req,
                                 NBC_PLAN);
}

hc_status_t hcomm_scan_init(const void *sendbuf, void *recvbuf, size_t count,
                            const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                            hcomm_request_t **req) {
  return nbc_scan(sendbuf, recvbuf, count, op, comm, req, 0, NBC_PLAN);
}

hc_status_t hcomm_exscan_init(const void *sendbuf, void *recvbuf, size_t count,
                              const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                              hcomm_request_t **req) {
  return nbc_scan(sendbuf, recvbuf, count, op, comm, req, 1, NBC_PLAN);
}

/* ---- building blocks of schedules built outside this file (nbc.h) -------- */

void hc_nbc_set_comm(hc_nbc_sched_t *s, hcomm_comm_t *group) {
  s->group = group;
  s->rank = group->rank;
  s->size = group->size;
}

void hc_nbc_add_send(hc_nbc_sched_t *s, const void *buf, size_t bytes,
                     int peer) {
  nbc_send(s, buf, bytes, peer);
}

void hc_nbc_add_recv(hc_nbc_sched_t *s, void *buf, size_t bytes, int peer) {
  nbc_recv(s, buf, bytes, peer);
}

void hc_nbc_add_copy(hc_nbc_sched_t *s, const void *src, void *dst,
                     size_t bytes) {
  nbc_copy(s, src, dst, bytes);
}

void hc_nbc_add_combine(hc_nbc_sched_t *s, const void *src, void *dst,
                        size_t count) {
  nbc_reduce(s, src, dst, count);
}

void hc_nbc_end_round(hc_nbc_sched_t *s) { nbc_round(s); }

void *hc_nbc_tmp(hc_nbc_sched_t *s, size_t bytes) { return nbc_tmp(s, bytes); }

void hc_nbc_add_barrier(hc_nbc_sched_t *s) {
  nbc_round(s);
  nbc_build_barrier(s);
  nbc_round(s);
}

void hc_nbc_add_bcast(hc_nbc_sched_t *s, void *buf, size_t bytes, int root) {
  nbc_round(s);
  nbc_build_bcast(s, buf, bytes, root);
  nbc_round(s);
}

void hc_nbc_add_reduce(hc_nbc_sched_t *s, const void *mine, void *out,
                       size_t count, int root) {
  nbc_round(s);
  if (count > 0)
    nbc_build_reduce(s, mine, out, count, root);
  nbc_round(s);
}

void hc_nbc_add_gatherv(hc_nbc_sched_t *s, const void *mine, size_t bytes,
                        void *recvbuf, const size_t *rbytes,
                        const size_t *rdispls, int root) {
  nbc_round(s);
  nbc_build_gatherv(s, mine, bytes, recvbuf, rbytes, rdispls, root);
  nbc_round(s);
}

void hc_nbc_add_scatterv(hc_nbc_sched_t *s, const void *sendbuf,
                         const size_t *sbytes, const size_t *sdispls,
                         void *recvbuf, size_t bytes, int root) {
  nbc_round(s);
  nbc_build_scatterv(s, sendbuf, sbytes, sdispls, recvbuf, bytes, root);
  nbc_round(s);
}

hc_status_t hcomm_ineighbor(const void *sendbuf, const hcomm_neighbors_t *send,
                            void *recvbuf, const hcomm_neighbors_t *recv,
                            hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_neighbor(sendbuf, send, recvbuf, recv, comm, req, NBC_START);
}

hc_status_t hcomm_neighbor_init(const void *sendbuf,
                                const hcomm_neighbors_t *send, void *recvbuf,
                                const hcomm_neighbors_t *recv,
                                hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_neighbor(sendbuf, send, recvbuf, recv, comm, req, NBC_PLAN);
}
