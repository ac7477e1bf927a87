/*
 * The schedule engine of the collectives (see nbc.h for the model): how a
 * schedule is built from steps, run round by round, started, kept for
 * replay (MPI_*_init) and completed.  The algorithms are the builders of
 * nbc_reduce.c, nbc_gather.c, nbc_alltoall.c and nbc_scan.c.  A schedule is
 * built whole at the start, from the rank, the size and the arguments, so a
 * step names plain pointers (user buffers or temporaries the schedule
 * owns).  Everything here runs with the engine lock held: the sends and
 * receives are the engine's locked ones on the collective context.
 */
#include "hcomm/nbc.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/engine.h"
#include "hcomm/nbc_impl.h"
#include "hcomm/part.h"
#include "hcomm/proto.h"

enum nbc_kind {
  NBC_SEND = 1,
  NBC_RECV,
  NBC_COPY,     /* n bytes src -> dst */
  NBC_REDUCE,   /* dst = src op dst, n elements */
  NBC_ROUND,    /* the end of a round */
  NBC_CALL,     /* call(s, dst): local work that may append steps */
  NBC_SHM,      /* dst: a shared-memory collective, the round waits for it */
  NBC_SEND_ACC, /* src: an nbc_slice_t, n bytes of its stream */
  NBC_RECV_ACC,
  NBC_POLL /* poll(s, dst) until it says done: the round waits for it */
};

/* Bytes [base, base + n) of an accessor's stream, as the accessor of a
 * message of n bytes (hc_nbc_add_send_acc). */
typedef struct nbc_slice {
  hcomm_accessor_t acc;
  size_t base;
} nbc_slice_t;

typedef struct nbc_step {
  int kind;
  int peer;
  hcomm_comm_t *comm; /* whose ranks peer names (hc_nbc_set_comm) */
  const void *src;
  void *dst;
  size_t n;
  hc_nbc_call_fn call;
  hc_nbc_poll_fn poll;
} nbc_step_t;

static hc_nbc_sched_t *nbc_active;
int hc_nbc_nactive;
int hc_nbc_nshm;
int hc_nbc_npoll;

/* ---- building ------------------------------------------------------------ */

/* The last schedule freed, kept with its arrays for the next one built: a
 * non-blocking collective of a few bytes (MPI_Ibcast of 8) otherwise spent
 * more on its schedule's calloc and reallocs and their frees than on its
 * exchange.  One slot, taken and given by atomic exchange, since schedules
 * are built without the engine lock and freed under it. */
static _Atomic(hc_nbc_sched_t *) nbc_spare;

/* Arrays longer than this are not kept with a spare schedule. */
#define NBC_SPARE_CAP_MAX 64

static void nbc_discard(hc_nbc_sched_t *s) {
  free(s->bufs);
  free(s->steps);
  free(s->reqs);
  free(s);
}

/* A cleared schedule: the spare, its arrays kept (empty), or a new one. */
static hc_nbc_sched_t *nbc_take(void) {
  hc_nbc_sched_t *s = atomic_exchange(&nbc_spare, NULL);
  if (s == NULL)
    return calloc(1, sizeof *s);
  hc_nbc_sched_t kept = *s;
  memset(s, 0, sizeof *s);
  s->steps = kept.steps;
  s->cap = kept.cap;
  s->reqs = kept.reqs;
  s->reqcap = kept.reqcap;
  s->bufs = kept.bufs;
  s->bufcap = kept.bufcap;
  return s;
}

static hc_nbc_sched_t *nbc_new(hcomm_comm_t *comm,
                               const hcomm_reduce_op_t *op) {
  hc_nbc_sched_t *s = nbc_take();
  if (s == NULL)
    return NULL;
  s->comm = comm;
  s->hccl_plan = comm->hccl_plan_next;
  comm->hccl_plan_next = 0;
  s->group = comm;
  s->rank = comm->rank;
  s->size = comm->size;
  if (op != NULL)
    s->op = *op;
  return s;
}

static void nbc_free(hc_nbc_sched_t *s) {
  if (s->lane_claim != NULL)
    hc_shmcoll_claim_release(s->lane_claim);
  if (s->cleanup_fn != NULL)
    s->cleanup_fn(s->cleanup_arg);
  if (s->release_fn != NULL)
    s->release_fn(s->done_arg);
  for (size_t i = 0; i < s->nbufs; i++)
    free(s->bufs[i]);
  if (s->cap > NBC_SPARE_CAP_MAX || s->reqcap > NBC_SPARE_CAP_MAX ||
      s->bufcap > NBC_SPARE_CAP_MAX) {
    nbc_discard(s);
    return;
  }
  hc_nbc_sched_t *old = atomic_exchange(&nbc_spare, s);
  if (old != NULL)
    nbc_discard(old);
}

static void nbc_add(hc_nbc_sched_t *s, int kind, int peer, const void *src,
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
  s->steps[s->nsteps++] =
      (nbc_step_t){kind, peer, s->group, src, dst, n, NULL, NULL};
}

void hc_nbc_add_send(hc_nbc_sched_t *s, const void *buf, size_t bytes,
                     int peer) {
  nbc_add(s, NBC_SEND, peer, buf, NULL, bytes);
}

void hc_nbc_add_recv(hc_nbc_sched_t *s, void *buf, size_t bytes, int peer) {
  nbc_add(s, NBC_RECV, peer, NULL, buf, bytes);
}

void hc_nbc_add_copy(hc_nbc_sched_t *s, const void *src, void *dst, size_t n) {
  if (n > 0 && src != dst)
    nbc_add(s, NBC_COPY, 0, src, dst, n);
}

/* dst = src op dst over count elements: src holds the lower ranks. */
void hc_nbc_add_combine(hc_nbc_sched_t *s, const void *src, void *dst,
                        size_t count) {
  if (count > 0)
    nbc_add(s, NBC_REDUCE, 0, src, dst, count);
}

void hc_nbc_end_round(hc_nbc_sched_t *s) {
  if (s->nsteps > 0 && s->steps[s->nsteps - 1].kind != NBC_ROUND)
    nbc_add(s, NBC_ROUND, 0, NULL, NULL, 0);
}

/* A temporary of bytes that lives as long as the schedule; NULL (and the
 * schedule failed) when memory ran out. */
void *hc_nbc_tmp(hc_nbc_sched_t *s, size_t bytes) {
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
size_t *hc_nbc_even_blocks(hc_nbc_sched_t *s, size_t bytes) {
  size_t *arr = hc_nbc_tmp(s, 2 * (size_t)s->size * sizeof(size_t));
  for (int r = 0; arr != NULL && r < s->size; r++) {
    arr[r] = bytes;
    arr[s->size + r] = (size_t)r * bytes;
  }
  return arr;
}

/* dst = the size blocks of bytes of src from block first on, wrapping
 * round: block i of dst is block (first + i) % size of src. */
void hc_nbc_add_rotate(hc_nbc_sched_t *s, const char *src, char *dst,
                       size_t bytes, int first) {
  size_t head = (size_t)(s->size - first) * bytes;
  hc_nbc_add_copy(s, src + (size_t)first * bytes, dst, head);
  hc_nbc_add_copy(s, src, dst + head, (size_t)first * bytes);
}

/* ---- running ------------------------------------------------------------- */

/* Sizes the request array for the busiest round at the start (and again
 * when a call step appended rounds), so that posting never fails for want
 * of memory half-way through a round. */
static hc_status_t nbc_size_reqs(hc_nbc_sched_t *s) {
  size_t most = 0, n = 0;
  for (size_t i = 0; i < s->nsteps; i++) {
    int kind = s->steps[i].kind;
    n = kind == NBC_ROUND ? 0
                          : n + (kind == NBC_SEND || kind == NBC_RECV ||
                                 kind == NBC_SEND_ACC || kind == NBC_RECV_ACC);
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

static void nbc_track(hc_nbc_sched_t *s, hcomm_request_t *r) {
  s->reqs[s->nreqs++] = r;
}

static void nbc_slice_pack(void *ctx, size_t off, void *dst, size_t len) {
  const nbc_slice_t *sl = ctx;
  sl->acc.pack(sl->acc.ctx, sl->base + off, dst, len);
}

static void nbc_slice_unpack(void *ctx, size_t off, const void *src,
                             size_t len) {
  const nbc_slice_t *sl = ctx;
  sl->acc.unpack(sl->acc.ctx, sl->base + off, src, len);
}

static hc_status_t nbc_post_slice(hc_nbc_sched_t *s, const nbc_step_t *st,
                                  hcomm_request_t **r) {
  hcomm_accessor_t a = {nbc_slice_pack, nbc_slice_unpack, (void *)st->src};
  if (st->kind == NBC_SEND_ACC)
    return hc_isend_acc_locked(&a, st->n, st->peer, s->tag, st->comm, 1, r);
  return hc_irecv_acc_locked(&a, st->n, st->peer, s->tag, st->comm, 1, r);
}

static void nbc_exec(hc_nbc_sched_t *s, const nbc_step_t *st) {
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
  case NBC_SEND_ACC:
  case NBC_RECV_ACC:
    rc = nbc_post_slice(s, st, &r);
    break;
  case NBC_SHM:
    s->shm = st->dst;
    hc_shmcoll_op_start(s->shm);
    hc_nbc_nshm++;
    break;
  case NBC_POLL:
    s->poll = st->poll;
    s->poll_arg = st->dst;
    hc_nbc_npoll++;
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
static void nbc_run_round(hc_nbc_sched_t *s) {
  while (s->pos < s->nsteps && s->error == HC_OK) {
    /* A copy: a call step may append steps and move the array. */
    nbc_step_t st = s->steps[s->pos++];
    if (st.kind == NBC_ROUND)
      return;
    nbc_exec(s, &st);
  }
}

/* 1 when the round's shared-memory collective finished (its status in
 * s->error), 0 while it is under way. */
static int nbc_shm_done(hc_nbc_sched_t *s) {
  hc_status_t rc;
  if (!hc_shmcoll_op_poll(s->shm, &rc))
    return 0;
  s->shm = NULL;
  hc_nbc_nshm--;
  if (rc != HC_OK && s->error == HC_OK)
    s->error = rc;
  return 1;
}

int hc_nbc_shm_sleep_locked(int ms) {
  hc_nbc_sched_t *s = nbc_active;
  while (s != NULL && s->shm == NULL)
    s = s->next;
  if (s == NULL || hc_engine.locking)
    return 0;
  hc_engine_unlock();
  hc_shmcoll_op_sleep(s->shm, ms);
  hc_engine_lock();
  return 1;
}

/* 1 when the round's poll step said done, 0 while it waits. */
static int nbc_poll_done(hc_nbc_sched_t *s) {
  if (!s->poll(s, s->poll_arg))
    return 0;
  s->poll = NULL;
  hc_nbc_npoll--;
  return 1;
}

/* 0: waiting on the current round; 1: moved on; 2: finished. */
static int nbc_advance(hc_nbc_sched_t *s) {
  int moved = 0;
  for (;;) {
    if (s->shm != NULL && !nbc_shm_done(s))
      return moved;
    if (s->poll != NULL && !nbc_poll_done(s))
      return moved;
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
static void nbc_complete(hc_nbc_sched_t *s) {
  hcomm_request_t *req = s->req;
  hc_status_t error = s->error;
  if (s->done_fn != NULL)
    s->done_fn(s->done_arg, error); /* before anyone can see req done */
  /* A persistent request's status was set at its plan and stays so: its
   * MPI_Wait reads it back at once in wide loads, which the store buffer
   * cannot serve from narrower stores, so they wait for it to drain, the
   * start's flag publication (a crossing of that line) included (2 ranks,
   * 8 B Allreduce_init; bench/NOTES.md, ainit18). */
  if (!s->persistent) {
    nbc_free(s);
    req->status.source = HCOMM_ANY_SOURCE;
    req->status.tag = HCOMM_ANY_TAG;
    req->status.bytes = 0;
  }
  hc_request_complete(req, error); /* may free the communicator */
}

int hc_nbc_settle_locked(hcomm_request_t *req) {
  hc_nbc_sched_t **link = &nbc_active;
  while (*link != NULL && (*link)->req != req)
    link = &(*link)->next;
  hc_nbc_sched_t *s = *link;
  if (s == NULL || nbc_advance(s) != 2)
    return 0;
  *link = s->next;
  hc_nbc_nactive--;
  nbc_complete(s);
  return 1;
}

int hc_nbc_progress_locked(void) {
  int moved = 0;
  hc_nbc_sched_t **link = &nbc_active;
  while (*link != NULL) {
    hc_nbc_sched_t *s = *link;
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
static hcomm_request_t *nbc_bind(hc_nbc_sched_t *s, hc_status_t *rc) {
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
/* A persistent collective whose lane was given back at this start (the
 * same start on every rank) runs there from now on: its schedule becomes
 * the lane's steps, kept behind it (hc_nbc_lane_begin). */
static void nbc_enter_lane(hc_nbc_sched_t *s) {
  hc_shmcoll_claim_t *claim = s->lane_claim;
  if (claim == NULL || claim->in_lane || s->lane_at == 0 ||
      !hc_shmcoll_claim_start(claim))
    return;
  memmove(s->steps, s->steps + s->lane_at - 1, s->lane_n * sizeof *s->steps);
  s->nsteps = s->lane_n;
  s->lane_at = 0;
}

const hc_shmcoll_op_t *hc_nbc_lane_begin(hc_nbc_sched_t *s) {
  hc_shmcoll_claim_t *claim = s->lane_claim;
  if (claim == NULL || claim->in_lane)
    return NULL;
  if (s->lane_at == 0) {
    hc_nbc_end_round(s);
    s->lane_at = s->nsteps + 1;
    nbc_add(s, NBC_SHM, 0, NULL, &claim->op, 0);
    hc_nbc_end_round(s);
  }
  return &claim->op;
}

/* At the launch of a persistent collective whose claim waits: its lane's
 * steps go behind the ones it runs until then. */
static void nbc_lane_keep(hc_nbc_sched_t *s) {
  if (hc_nbc_lane_begin(s) == NULL || s->error != HC_OK)
    return;
  s->lane_n = s->nsteps - (s->lane_at - 1);
  s->nsteps = s->lane_at - 1;
}

/* s, set to run from step pos: as far as it goes now, then among the
 * active schedules until it finishes. */
static void nbc_go(hc_nbc_sched_t *s) {
  if (nbc_advance(s) == 2) {
    nbc_complete(s);
  } else {
    s->next = nbc_active;
    nbc_active = s;
    hc_nbc_nactive++;
  }
}

static void nbc_run(hc_nbc_sched_t *s) {
  nbc_enter_lane(s);
  hc_comm_op_begin(s->comm);
  if (!s->persistent)
    s->tag = HC_NBC_TAG_BASE + (int)(s->comm->coll_seq++ % HC_NBC_SEQS);
  s->pos = 0;
  s->nreqs = 0;
  /* On a revoked communicator it fails at once, before it takes a turn of
   * a shared-memory segment: members that have not seen the revoke could
   * take that turn for one of their earlier collectives. */
  s->error = hc_comm_revoked_locked(s->comm);
  nbc_go(s);
}

/* Takes s (frees it on failure); *req is the collective's request. */
static hc_status_t nbc_start(hc_nbc_sched_t *s, hcomm_request_t **req) {
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

/* A persistent collective whose start made its lane's step's post
 * straight (HC_SHMCOLL_NOW_POSTED: its op started): its schedule from that
 * step's round on, as nbc_run would be at it, without starting the op
 * again. */
static void nbc_run_posted(hc_nbc_sched_t *s) {
  hc_comm_op_begin(s->comm);
  s->pos = 0;
  while (s->steps[s->pos].kind != NBC_SHM)
    s->pos++;
  s->pos++;
  s->nreqs = 0;
  s->error = HC_OK;
  s->shm = s->lane_only;
  hc_nbc_nshm++;
  nbc_go(s);
}

/* The op of a persistent schedule that is one shared-memory step in the
 * lane it holds for good (rounds' marks aside), or NULL. */
static hc_shmcoll_op_t *nbc_lane_only(const hc_nbc_sched_t *s) {
  if (s->lane_claim == NULL || !s->lane_claim->in_lane || s->lane_at != 0)
    return NULL;
  hc_shmcoll_op_t *op = NULL;
  for (size_t i = 0; i < s->nsteps; i++) {
    if (s->steps[i].kind == NBC_ROUND)
      continue;
    if (s->steps[i].kind != NBC_SHM || op != NULL)
      return NULL;
    op = s->steps[i].dst;
  }
  return op;
}

/* Takes s (frees it on failure); *req is an inactive persistent request
 * that owns s from now on: complete (done) until hcomm_start. */
static hc_status_t nbc_plan(hc_nbc_sched_t *s, hcomm_request_t **req) {
  hc_status_t rc;
  nbc_lane_keep(s);
  hc_engine_lock();
  hcomm_request_t *r = nbc_bind(s, &rc);
  if (r != NULL) {
    s->persistent = 1;
    s->lane_only = nbc_lane_only(s);
    /* Started many times: the next blocking collective on comm makes the
     * segment its lanes move in (every rank inits alike). */
    hc_shmcoll_wanted_now(s->comm);
    /* A plan for hcomm_hccl_icoll runs under that call's tag. */
    s->tag = s->hccl_plan
                 ? -1
                 : HC_NBC_PERSIST_TAG_BASE +
                       (int)(s->comm->persist_seq++ % HC_NBC_PERSIST_SEQS);
    r->plan = s;
    r->status.source = HCOMM_ANY_SOURCE;
    r->status.tag = HCOMM_ANY_TAG;
    r->status.bytes = 0;
    atomic_store(&r->done, 1);
  }
  hc_engine_unlock();
  if (r != NULL)
    *req = r;
  return rc;
}

/* A persistent run that its lane's straight start did not finish whole
 * (now: what hc_shmcoll_op_now_locked did): its schedule.  Out of line, so
 * that hcomm_start's straight run saves no registers for nbc_go's
 * inlined steps. */
static __attribute__((noinline)) void nbc_start_rest(hc_nbc_sched_t *s,
                                                     int now) {
  if (now == HC_SHMCOLL_NOW_NONE)
    nbc_run(s);
  else
    nbc_run_posted(s);
}

/* A persistent run that its lane's straight start finished whole: what
 * nbc_run does for a schedule finished at once.  Without a hook to run
 * or a join to tell, just the request's done: the communicator's
 * operation count would go up and back down under the lock, and the
 * status holds HC_OK since the start (2-rank 8 B Allreduce_init 0.98 ->
 * ~0.93x the blocking form, with the revocation test and the schedule's
 * paths out of hcomm_start; bench/NOTES.md, coll25).  Returns
 * HCOMM_START_FINISHED there (done with HC_OK for sure), else HC_OK. */
static int nbc_complete_started(hc_nbc_sched_t *s) {
  hcomm_request_t *req = s->req;
  if (s->done_fn == NULL && req->join_parent == NULL) {
    hc_request_complete_started(req);
    return HCOMM_START_FINISHED;
  }
  hc_comm_op_begin(s->comm);
  nbc_complete(s);
  return HC_OK;
}

hc_status_t hcomm_start(hcomm_request_t *req) {
  int rc = hcomm_start_told(req);
  return rc == HCOMM_START_FINISHED ? HC_OK : (hc_status_t)rc;
}

int hcomm_start_told(hcomm_request_t *req) {
  if (req == NULL)
    return HC_ERR_ARG;
  if (req->part != NULL) /* set at init, never changed */
    return hc_part_start(req);
  hc_engine_lock();
  int rc = hc_engine_check();
  hc_nbc_sched_t *s = req->plan;
  if (rc == HC_OK && (s == NULL || !atomic_load(&req->done) || req->user_freed))
    rc = HC_ERR_REQUEST;
  if (rc == HC_OK) {
    if (req->status.error != HC_OK) /* a store only where it changes: above */
      req->status.error = HC_OK;
    /* Relaxed: it publishes nothing (the lock orders it), and a seq_cst
     * store is a full fence, which waits for the previous run's done
     * publication to cross to the rank that reads it (2 ranks, 8 B
     * Allreduce_init; bench/NOTES.md, ainit18). */
    atomic_store_explicit(&req->done, 0, memory_order_relaxed);
    /* No revocation test here: every straight start tests its
     * communicator's failures, revocation first, before it takes a
     * number, and leaves a revoked one to nbc_run (bench/NOTES.md,
     * coll25). */
    int now = s->lane_only != NULL ? hc_shmcoll_op_now_locked(s->lane_only)
                                   : HC_SHMCOLL_NOW_NONE;
    if (now == HC_SHMCOLL_NOW_DONE) {
      s->error = HC_OK;
      rc = nbc_complete_started(s);
    } else {
      nbc_start_rest(s, now);
    }
  }
  hc_engine_unlock();
  return rc;
}

void hc_nbc_plan_free(hc_nbc_sched_t *s) { nbc_free(s); }

hc_status_t hcomm_hccl_plan_next(hcomm_comm_t *comm, int on) {
  if (comm == NULL)
    return HC_ERR_COMM;
  hc_engine_lock();
  comm->hccl_plan_next = on != 0;
  hc_engine_unlock();
  return HC_OK;
}

void hc_nbc_plan_run_locked(hcomm_request_t *req, int tag) {
  hc_nbc_sched_t *s = req->plan;
  s->tag = tag;
  req->status.error = HC_OK;
  atomic_store(&req->done, 0);
  nbc_run(s);
}

hc_status_t hcomm_coll_init_hooks(hcomm_request_t *req, hcomm_coll_done_fn fn,
                                  void (*release)(void *arg), void *arg) {
  if (req == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_nbc_sched_t *s = req->plan;
  hc_status_t rc = HC_OK;
  if (s == NULL || !atomic_load(&req->done) || s->done_fn != NULL)
    rc = HC_ERR_REQUEST;
  if (rc == HC_OK) {
    s->done_fn = fn;
    s->done_arg = arg;
    s->release_fn = release;
  }
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_icoll_on_complete(hcomm_request_t *req, hcomm_coll_done_fn fn,
                                    void *arg) {
  if (req == NULL || fn == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_nbc_sched_t *s = nbc_active;
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
hc_status_t hc_nbc_check(hcomm_comm_t *comm, hcomm_request_t **req) {
  if (comm == NULL || comm->local != NULL)
    return HC_ERR_COMM;
  if (req == NULL)
    return HC_ERR_ARG;
  return HC_OK;
}

hc_status_t hc_nbc_check_root(hcomm_comm_t *comm, int root,
                              hcomm_request_t **req) {
  hc_status_t rc = hc_nbc_check(comm, req);
  if (rc == HC_OK && (root < 0 || root >= comm->size))
    rc = HC_ERR_RANK;
  return rc;
}

hc_status_t hc_nbc_check_op(hcomm_comm_t *comm, const hcomm_reduce_op_t *op,
                            hcomm_request_t **req) {
  hc_status_t rc = hc_nbc_check(comm, req);
  if (rc == HC_OK && (op == NULL || op->fn == NULL || op->elem_size == 0))
    rc = HC_ERR_ARG;
  return rc;
}

/* ---- schedules built outside the collectives (nbc.h) -------------------- */

hc_status_t hc_nbc_new(hcomm_comm_t *comm, const hcomm_reduce_op_t *op,
                       hc_nbc_sched_t **out) {
  *out = nbc_new(comm, op);
  return *out != NULL ? HC_OK : HC_ERR_NOMEM;
}

/* A step moving bytes [off, off + bytes) of acc's stream. */
static void nbc_add_slice(hc_nbc_sched_t *s, int kind,
                          const hcomm_accessor_t *acc, size_t off, size_t bytes,
                          int peer) {
  nbc_slice_t *sl = hc_nbc_tmp(s, sizeof *sl);
  if (sl == NULL)
    return;
  *sl = (nbc_slice_t){*acc, off};
  nbc_add(s, kind, peer, sl, NULL, bytes);
}

void hc_nbc_add_send_acc(hc_nbc_sched_t *s, const hcomm_accessor_t *acc,
                         size_t off, size_t bytes, int peer) {
  nbc_add_slice(s, NBC_SEND_ACC, acc, off, bytes, peer);
}

void hc_nbc_add_recv_acc(hc_nbc_sched_t *s, const hcomm_accessor_t *acc,
                         size_t off, size_t bytes, int peer) {
  nbc_add_slice(s, NBC_RECV_ACC, acc, off, bytes, peer);
}

int hc_nbc_use_shmcoll(hc_nbc_sched_t *s, hc_shmcoll_op_t *op,
                       hc_status_t prepared, enum hc_nbc_mode mode) {
  /* A plan for hcomm_hccl_icoll takes no lane: it lives one call. */
  if (prepared != HC_OK || (mode == HC_NBC_PLAN && s->hccl_plan))
    return 0;
  if (mode == HC_NBC_PLAN) {
    hc_shmcoll_claim_t *claim = hc_nbc_tmp(s, sizeof *claim);
    if (claim == NULL || hc_shmcoll_op_claim_lane(op, claim) != HC_OK)
      return 0;
    s->lane_claim = claim;
    if (!claim->in_lane) /* the schedule until the lane is given back */
      return 0;
  }
  hc_nbc_add_shmcoll(s, op);
  return 1;
}

void hc_nbc_add_shmcoll(hc_nbc_sched_t *s, const hc_shmcoll_op_t *op) {
  hc_shmcoll_op_t *mine = &s->shm_first;
  if (s->shm_first_taken)
    mine = hc_nbc_tmp(s, sizeof *mine);
  if (mine == NULL || s->error != HC_OK)
    return;
  s->shm_first_taken = 1;
  *mine = *op;
  hc_nbc_end_round(s);
  nbc_add(s, NBC_SHM, 0, NULL, mine, 0);
  hc_nbc_end_round(s);
}

void hc_nbc_add_call(hc_nbc_sched_t *s, hc_nbc_call_fn fn, void *arg) {
  nbc_add(s, NBC_CALL, 0, NULL, arg, 0);
  if (s->error == HC_OK)
    s->steps[s->nsteps - 1].call = fn;
}

void hc_nbc_set_cleanup(hc_nbc_sched_t *s, void (*fn)(void *arg), void *arg) {
  s->cleanup_fn = fn;
  s->cleanup_arg = arg;
}

void hc_nbc_add_poll(hc_nbc_sched_t *s, hc_nbc_poll_fn fn, void *arg) {
  hc_nbc_end_round(s);
  nbc_add(s, NBC_POLL, 0, NULL, arg, 0);
  if (s->error == HC_OK)
    s->steps[s->nsteps - 1].poll = fn;
  hc_nbc_end_round(s);
}

int hc_nbc_tag(const hc_nbc_sched_t *s) { return s->tag; }

int hc_nbc_rank(const hc_nbc_sched_t *s) { return s->rank; }

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

void hc_nbc_set_comm(hc_nbc_sched_t *s, hcomm_comm_t *group) {
  s->group = group;
  s->rank = group->rank;
  s->size = group->size;
}

hc_status_t hc_nbc_launch(hc_nbc_sched_t *s, int persistent,
                          hcomm_request_t **req) {
  return persistent ? nbc_plan(s, req) : nbc_start(s, req);
}
