/*
 * One-sided communication: windows and active messages.
 *
 * Every operation is an active message on the window's own communicator
 * (tag HC_RMA_TAG_REQ): a header (hc_rma_wire_t), the target data's shape
 * as (offset, length) pieces, and the origin's packed data.  The target
 * takes these messages in its progress engine (hc_rma_progress_locked, run
 * by every wait and by the progress thread of HCMPI_ASYNC_PROGRESS=1),
 * receives each whole (eager or rendezvous, whatever the transport does),
 * and applies them one at a time in arrival order.  Messages of one origin
 * arrive in the order it sent them, so its operations apply in that order,
 * and one at a time under the engine lock, so an accumulate is atomic per
 * element against every other accumulate.  Operations that return data
 * (get, get_accumulate, compare_and_swap) and control messages that need
 * an answer (lock, unlock, flush) name a reply tag; the origin posted the
 * receive for it before sending.
 *
 * The engine never asks which transport carries a message: point-to-point
 * does.  Where the target's memory is in reach (shared mappings, CMA,
 * RDMA), rma_direct.c moves an operation instead of its active message,
 * complete at issue, without changing the synchronisation, which only
 * relies on per-origin order and the flush reply.
 */
#include "hcomm/rma.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/counters.h"
#include "hcomm/match.h"
#include "hcomm/proto.h"
#include "hcomm/trace.h"
#include "util/env.h"
#include "util/log.h"

int hc_rma_nwindows;
static hcomm_win_t *rma_windows;

/* ---- message buffers ----------------------------------------------------- */

/* Buffers from this size up are kept as the window's spare when freed (a
 * smaller one costs less to allocate than the memory it would hold), up
 * to the largest below. */
#define RMA_SPARE_MIN ((size_t)64 * 1024)
#define RMA_SPARE_MAX ((size_t)16 * 1024 * 1024)

/* A buffer of at least len bytes (its size in *cap), or NULL. */
static void *rma_buf_alloc(hcomm_win_t *win, size_t len, size_t *cap) {
  if (len >= RMA_SPARE_MIN && win->spare != NULL && win->spare_cap >= len) {
    void *buf = win->spare;
    *cap = win->spare_cap;
    win->spare = NULL;
    win->spare_cap = 0;
    return buf;
  }
  *cap = len ? len : 1;
  return malloc(*cap);
}

/* Frees buf (cap bytes), or keeps it as the spare when it is larger. */
static void rma_buf_free(hcomm_win_t *win, void *buf, size_t cap) {
  if (buf == NULL)
    return;
  if (cap < RMA_SPARE_MIN || cap > RMA_SPARE_MAX || cap <= win->spare_cap) {
    free(buf);
    return;
  }
  free(win->spare);
  win->spare = buf;
  win->spare_cap = cap;
}

/* Tests only (HCMPI_TEST_RMA_NOMEM=n): of the buffers the target asks for
 * to take or answer operations larger than an eager packet, the first of
 * every n is refused, as if memory ran out, so the failure path and the
 * recovery after it run on demand. */
static int rma_refuse_large(void) {
  static long period = -1, asked;
  if (period < 0)
    period = hc_env_long("HCMPI_TEST_RMA_NOMEM", 0);
  return period > 0 && asked++ % period == 0;
}

/* The target's buffer to take an operation's message of len bytes
 * (large: it came beyond one eager packet), as rma_buf_alloc. */
static void *rma_take_buf_alloc(hcomm_win_t *win, size_t len, int large,
                                size_t *cap) {
  if (large && rma_refuse_large())
    return NULL;
  return rma_buf_alloc(win, len, cap);
}

/* The target's zeroed buffer for the len bytes an operation returns. */
static unsigned char *rma_result_alloc(size_t len) {
  if (len > hc_proto_eager_limit() && rma_refuse_large())
    return NULL;
  return calloc(1, len ? len : 1);
}

/* ---- origin-side bookkeeping -------------------------------------------- */

static hc_rma_pending_t *rma_track(hcomm_win_t *win, hcomm_request_t *req,
                                   void *buf, int target) {
  hc_rma_pending_t *p = calloc(1, sizeof *p);
  if (p == NULL)
    return NULL;
  p->req = req;
  p->buf = buf;
  p->target = target;
  win->npending += target >= 0;
  p->next = win->pending;
  win->pending = p;
  return p;
}

static void rma_finish_pending(hcomm_win_t *win, hc_rma_pending_t *p) {
  hc_status_t st = p->req->status.error;
  /* A short reply: the target failed the operation.  It sent the reason
   * ahead of the reply, so that was taken before the reply is reaped
   * (rma_take_arrivals runs first) and the completing call returns it;
   * without one, the target dropped an access outside its (dynamic)
   * window, which the completing call learns from here. */
  int reported = 0;
  if (st == HC_OK && p->req->status.bytes < p->expect) {
    reported = win->remote_error != HC_OK;
    st = reported ? win->remote_error : HC_ERR_RMA_RANGE;
  }
  if (st != HC_OK && !reported && p->target >= 0 && win->error == HC_OK)
    win->error = st;
  win->npending -= p->target >= 0;
  if (p->done != NULL)
    p->done(p->arg, st);
  if (p->user != NULL) {
    p->user->status.error = st;
    hc_request_complete(p->user, st);
  }
  hc_request_release(p->req);
  rma_buf_free(win, p->buf, p->cap);
  free(p);
}

/* Finishes the window's requests that completed; returns how many. */
static int rma_reap(hcomm_win_t *win) {
  int moved = 0;
  hc_rma_pending_t **link = &win->pending;
  while (*link != NULL) {
    hc_rma_pending_t *p = *link;
    if (!atomic_load(&p->req->done)) {
      link = &p->next;
      continue;
    }
    *link = p->next;
    rma_finish_pending(win, p);
    moved++;
  }
  return moved;
}

static int rma_has_pending(const hcomm_win_t *win, int target) {
  for (const hc_rma_pending_t *p = win->pending; p != NULL; p = p->next)
    if (p->target >= 0 && (target < 0 || p->target == target))
      return 1;
  return 0;
}

static int rma_tag(hcomm_win_t *win) {
  if (win->next_tag < HC_RMA_TAG_REPLY || win->next_tag >= HCOMM_TAG_UB)
    win->next_tag = HC_RMA_TAG_REPLY;
  return win->next_tag++;
}

hc_status_t hc_rma_wait(hcomm_win_t *win, hcomm_request_t *req, int target) {
  /* Nothing of the window in flight (direct operations, say): the
   * answer needs no poll. */
  if (req == NULL && hc_rma_quiet(win))
    return HC_OK;
  long spins = 0;
  for (;;) {
    int moved = hc_progress_locked() + rma_reap(win);
    if ((req == NULL || atomic_load(&req->done)) &&
        (target == HC_RMA_NO_TARGET || !rma_has_pending(win, target)))
      break;
    if (moved > 0)
      spins = 0; /* sleep only after a stretch of fruitless polls */
    else
      hc_idle_locked(&spins);
  }
  hc_status_t rc = win->error;
  win->error = HC_OK;
  return rc;
}

/* Sends len bytes of the message buf (cap bytes allocated; owned: freed
 * once sent) to target. */
static hc_status_t rma_send(hcomm_win_t *win, void *buf, size_t cap, size_t len,
                            int dest, int tag, int target,
                            hc_rma_pending_t **out) {
  hcomm_request_t *req = NULL;
  hc_status_t rc = hc_isend_locked(buf, len, dest, tag, win->comm,
                                   HCOMM_SEND_STANDARD, 0, &req);
  if (rc != HC_OK) {
    rma_buf_free(win, buf, cap);
    return rc;
  }
  hc_rma_pending_t *p = rma_track(win, req, buf, target);
  if (p == NULL) { /* keep it correct: wait for the send here */
    hc_wait_locked(req);
    hc_request_release(req);
    rma_buf_free(win, buf, cap);
    return HC_ERR_NOMEM;
  }
  p->cap = cap;
  if (out != NULL)
    *out = p;
  return HC_OK;
}

/* Posts the receive of a reply of bytes at result from target. */
static hc_status_t rma_expect(hcomm_win_t *win, void *result, size_t bytes,
                              int target, int tag, hc_rma_pending_t **out) {
  hcomm_request_t *req = NULL;
  hc_status_t rc =
      hc_irecv_locked(result, bytes, target, tag, win->comm, 0, &req);
  if (rc != HC_OK)
    return rc;
  *out = rma_track(win, req, NULL, target);
  if (*out == NULL) {
    hc_wait_locked(req);
    hc_request_release(req);
    return HC_ERR_NOMEM;
  }
  (*out)->expect = bytes;
  return HC_OK;
}

static size_t rma_message_len(const hc_rma_wire_t *w) {
  return sizeof *w + (size_t)w->nsegs * 2 * sizeof(uint64_t) + w->bytes;
}

static void rma_message_fill(unsigned char *buf, const hc_rma_wire_t *w,
                             const hcomm_rma_seg_t *segs, const void *data) {
  memcpy(buf, w, sizeof *w);
  unsigned char *pairs = buf + sizeof *w;
  for (size_t i = 0; i < w->nsegs; i++) {
    uint64_t pair[2] = {segs[i].off, segs[i].len};
    memcpy(pairs + i * sizeof pair, pair, sizeof pair);
  }
  if (w->bytes > 0)
    memcpy(pairs + w->nsegs * 2 * sizeof(uint64_t), data, w->bytes);
}

/* Small messages nobody waits on leave from the stack when the transport
 * takes them at once (no copy, no request); the rest go through a request
 * on a copy.  *out (when out is not NULL) tracks that request: callers
 * that need one pass out and never take the shortcut. */
#define RMA_SEND_NOW_MAX 1024

static hc_status_t rma_post(hcomm_win_t *win, const hc_rma_wire_t *w,
                            const hcomm_rma_seg_t *segs, const void *data,
                            int dest, int tag, int target,
                            hc_rma_pending_t **out) {
  size_t len = rma_message_len(w);
  unsigned char now[RMA_SEND_NOW_MAX];
  if (out == NULL && len <= sizeof now && !hc_trace_on) {
    rma_message_fill(now, w, segs, data);
    if (hc_proto_send_now(hc_comm_world_of_rank(win->comm, dest),
                          (uint32_t)hc_comm_match_ctx(win->comm, 0), tag, now,
                          len) == HC_OK)
      return HC_OK;
  }
  size_t cap = 0;
  unsigned char *buf = rma_buf_alloc(win, len, &cap);
  if (buf == NULL)
    return HC_ERR_NOMEM;
  rma_message_fill(buf, w, segs, data);
  return rma_send(win, buf, cap, len, dest, tag, target, out);
}

hc_status_t hc_rma_send_ctl(hcomm_win_t *win, int target, int kind, int op,
                            int reply) {
  hc_rma_wire_t w = {.kind = (uint32_t)kind, .op = op};
  hc_rma_pending_t *p = NULL;
  if (reply) {
    w.reply_tag = rma_tag(win);
    hc_status_t rc = rma_expect(win, NULL, 0, target, w.reply_tag, &p);
    if (rc != HC_OK)
      return rc;
  }
  return rma_post(win, &w, NULL, NULL, target, HC_RMA_TAG_REQ, target, NULL);
}

hc_status_t hc_rma_target_failure(const hcomm_win_t *win, int target) {
  if (hc_engine.failed_peers == 0) /* the epoch ends' common case */
    return HC_OK;
  const hc_peer_t *peer =
      &hc_engine.peers[hc_comm_world_of_rank(win->comm, target)];
  return peer->failed ? peer->failure : HC_OK;
}

hc_status_t hc_rma_ranks_failure(const hcomm_win_t *win, const int *ranks,
                                 int n) {
  if (hc_engine.failed_peers == 0)
    return HC_OK;
  for (int i = 0; i < (ranks != NULL ? n : win->size); i++) {
    hc_status_t why = hc_rma_target_failure(win, ranks != NULL ? ranks[i] : i);
    if (why != HC_OK)
      return why;
  }
  return HC_OK;
}

int hc_rma_in_access_group(const hcomm_win_t *win, int target) {
  for (int i = 0; win->started && i < win->naccess; i++)
    if (win->access[i] == target)
      return 1;
  return 0;
}

static int rma_has_result(int kind) {
  return kind == HCOMM_RMA_GET || kind == HCOMM_RMA_GET_ACC ||
         kind == HCOMM_RMA_CAS;
}

/* Operations of one origin in flight at most: past it, issuing waits for
 * some to finish, so a loop of large gets cannot make the target hold
 * replies for all of them at once. */
#define RMA_IN_FLIGHT_MAX 256

static void rma_throttle(hcomm_win_t *win) {
  long spins = 0;
  while (win->npending >= RMA_IN_FLIGHT_MAX) {
    if (hc_progress_locked() + rma_reap(win) > 0)
      spins = 0;
    else
      hc_idle_locked(&spins);
  }
}

hc_rma_wire_t hc_rma_wire_of(const hcomm_rma_op_t *op) {
  return (hc_rma_wire_t){.kind = (uint32_t)op->kind,
                         .op = op->op,
                         .type = op->type,
                         .disp = op->disp,
                         .nsegs = op->nsegs,
                         .bytes = op->bytes,
                         .result_bytes = op->result_bytes};
}

static hc_status_t rma_issue_locked(hcomm_win_t *win, const hcomm_rma_op_t *op,
                                    hcomm_request_t *user) {
  if (!hc_rma_may_access(win, op->target))
    return HC_ERR_RMA_SYNC;
  /* Device copies queued towards target go first: an accumulate (or a
   * message the target applies) after them finds their bytes there. */
  hc_status_t queued = hc_rma_device_complete(win, op->target);
  if (queued != HC_OK)
    return queued;
  hc_status_t direct = hc_rma_direct_issue(win, op, user);
  if (direct != HC_ERR_NOT_SUPPORTED)
    return direct;
  hc_counters.rma_active.messages++;
  hc_counters.rma_active.bytes += op->bytes + op->result_bytes;
  rma_throttle(win);
  hc_rma_wire_t w = hc_rma_wire_of(op);
  hc_rma_pending_t *reply = NULL, *sent = NULL;
  hc_status_t rc;
  if (rma_has_result(op->kind)) {
    w.reply_tag = rma_tag(win);
    rc = rma_expect(win, op->result, op->result_bytes, op->target, w.reply_tag,
                    &reply);
    if (rc != HC_OK)
      return rc;
    reply->done = op->done;
    reply->arg = op->arg;
    reply->user = user;
  }
  /* The send is tracked when its completion is the operation's. */
  int send_done = reply == NULL && (user != NULL || op->done != NULL);
  rc = rma_post(win, &w, op->segs, op->data, op->target, HC_RMA_TAG_REQ,
                op->target, send_done ? &sent : NULL);
  if (rc == HC_OK && send_done) {
    sent->done = op->done;
    sent->arg = op->arg;
    sent->user = user;
  }
  win->dirty[op->target] = 1;
  return rc;
}

hc_status_t hcomm_rma_issue(hcomm_win_t *win, const hcomm_rma_op_t *op,
                            hcomm_request_t **req) {
  if (win == NULL || op == NULL || op->target < 0 || op->target >= win->size)
    return HC_ERR_ARG;
  hc_engine_lock();
  hcomm_request_t *user = NULL;
  hc_status_t rc = HC_OK;
  if (req != NULL && (user = hc_request_alloc(HC_REQ_USER)) == NULL)
    rc = HC_ERR_NOMEM;
  if (rc == HC_OK)
    rc = rma_issue_locked(win, op, user);
  if (rc != HC_OK && user != NULL) {
    hc_request_release(user);
    user = NULL;
  }
  if (req != NULL)
    *req = user;
  hc_engine_unlock();
  return rc;
}

/* ---- target side: applying active messages ------------------------------ */

/* 1 when attached regions cover [at, at + len): one region, or several
 * that touch (an access may run from one attached array into the next). */
static int rma_attached(const hcomm_win_t *win, uintptr_t at, uint64_t len) {
  uintptr_t end = at + len;
  while (at < end) {
    const hc_rma_region_t *r = win->regions;
    while (r != NULL && !((uintptr_t)r->base <= at &&
                          at < (uintptr_t)r->base + r->size))
      r = r->next;
    if (r == NULL)
      return 0;
    at = (uintptr_t)r->base + r->size;
  }
  return 1;
}

/* Where the operation's data lies in this rank's memory, or NULL when a
 * piece falls outside the window (or any attached region). */
static char *rma_target(hcomm_win_t *win, uint64_t disp, const uint64_t *pairs,
                        uint64_t nsegs) {
  char *addr = win->dynamic ? (char *)(uintptr_t)disp : win->base + disp;
  for (uint64_t i = 0; i < nsegs; i++) {
    uint64_t off = pairs[2 * i], len = pairs[2 * i + 1];
    if (!win->dynamic) {
      if (disp + off < disp || disp + off + len > win->bytes ||
          disp + off + len < disp + off)
        return NULL;
      continue;
    }
    if (!rma_attached(win, (uintptr_t)addr + off, len))
      return NULL;
  }
  return addr;
}

static void rma_gather(const char *addr, const uint64_t *pairs, uint64_t n,
                       unsigned char *out) {
  for (uint64_t i = 0; i < n; i++) {
    memcpy(out, addr + pairs[2 * i], pairs[2 * i + 1]);
    out += pairs[2 * i + 1];
  }
}

static void rma_scatter(char *addr, const uint64_t *pairs, uint64_t n,
                        const unsigned char *in) {
  for (uint64_t i = 0; i < n; i++) {
    memcpy(addr + pairs[2 * i], in, pairs[2 * i + 1]);
    in += pairs[2 * i + 1];
  }
}

/* Sends a reply (buf owned, freed once sent; NULL with len 0). */
static void rma_reply(hcomm_win_t *win, int dest, int tag, void *buf,
                      size_t len) {
  if (tag == 0) {
    free(buf);
    return;
  }
  if (len <= RMA_SEND_NOW_MAX && !hc_trace_on &&
      hc_proto_send_now(hc_comm_world_of_rank(win->comm, dest),
                        (uint32_t)hc_comm_match_ctx(win->comm, 0), tag, buf,
                        len) == HC_OK) {
    free(buf);
    return;
  }
  hc_status_t rc = rma_send(win, buf, len, len, dest, tag, -1, NULL);
  if (rc != HC_OK)
    hc_log(HC_LOG_ERROR, "rma", "reply to rank %d lost: %s", dest,
           hcomm_strerror(rc));
}

/* Tells origin src that an operation it sent here failed with rc.  Sent
 * when the failure happens, so it reaches the origin ahead of any later
 * reply (a flush's, an unlock's) and, for an operation whose message the
 * target discarded, ahead of the end of its send: the origin's flush,
 * unlock, fence or complete that waits for either returns rc. */
static void rma_report_failure(hcomm_win_t *win, int src, hc_status_t rc) {
  hc_rma_wire_t w = {.kind = HC_RMA_FAILED, .op = (int32_t)rc};
  hc_status_t st = rma_post(win, &w, NULL, NULL, src, HC_RMA_TAG_REQ, -1, NULL);
  if (st != HC_OK)
    hc_log(HC_LOG_ERROR, "rma", "failure report to rank %d lost: %s", src,
           hcomm_strerror(st));
}

/* Accumulates up to this many bytes combine on the stack. */
#define RMA_ACC_STACK 256

static void rma_combine_failed(const hc_rma_wire_t *w, hc_status_t rc) {
  hc_log(HC_LOG_ERROR, "rma", "accumulate op 0x%x on type 0x%x: %s",
         (unsigned)w->op, (unsigned)w->type, hcomm_strerror(rc));
}

/* The old data, then the accumulate of in onto it (GET_ACC, ACC); fails
 * only for want of memory to combine scattered pieces in. */
static hc_status_t rma_accumulate(hcomm_win_t *win, const hc_rma_wire_t *w,
                                  char *addr, const uint64_t *pairs,
                                  const unsigned char *in, unsigned char *old) {
  /* One piece is the stream itself: combine straight into the window, one
   * pass over the data (a combine that fails writes nothing).  The kernel
   * reads elements in place, so the piece must be aligned as they are:
   * an element's alignment divides its size, hence the lowest set bit of
   * the byte count (16 at most). */
  char *at = addr + (w->nsegs > 0 ? pairs[0] : 0);
  uint64_t align = w->bytes & (~w->bytes + 1);
  if (align == 0 || align > 16)
    align = 16;
  if (w->nsegs == 1 && (uintptr_t)at % align == 0) {
    if (old != NULL)
      memcpy(old, at, w->bytes);
    hc_status_t rc = win->combine(w->op, w->type, in, at, w->bytes);
    if (rc != HC_OK)
      rma_combine_failed(w, rc);
    return HC_OK;
  }
  unsigned char small[RMA_ACC_STACK];
  unsigned char *tmp = w->bytes <= sizeof small ? small : malloc(w->bytes);
  if (tmp == NULL) {
    hc_log(HC_LOG_ERROR, "rma", "out of memory applying an accumulate");
    return HC_ERR_NOMEM;
  }
  rma_gather(addr, pairs, w->nsegs, tmp);
  if (old != NULL)
    memcpy(old, tmp, w->bytes);
  hc_status_t rc = win->combine(w->op, w->type, in, tmp, w->bytes);
  if (rc == HC_OK)
    rma_scatter(addr, pairs, w->nsegs, tmp);
  else
    rma_combine_failed(w, rc);
  if (tmp != small)
    free(tmp);
  return HC_OK;
}

static uint64_t rma_total(const uint64_t *pairs, uint64_t n) {
  uint64_t total = 0;
  for (uint64_t i = 0; i < n; i++)
    total += pairs[2 * i + 1];
  return total;
}

/* A data operation.  Malformed or out-of-range ones are dropped (the
 * origin checks ranges; a dynamic window's target alone can) with a
 * short reply, so the origin does not wait forever. */
static void rma_apply_data(hcomm_win_t *win, int src, const hc_rma_wire_t *w,
                           const uint64_t *pairs, const unsigned char *in) {
  uint64_t total = rma_total(pairs, w->nsegs);
  uint64_t want = w->kind == HCOMM_RMA_CAS   ? 2 * total
                  : w->kind == HCOMM_RMA_GET ? 0
                                             : total;
  char *addr = rma_target(win, w->disp, pairs, w->nsegs);
  unsigned char *old = NULL;
  if (addr == NULL || w->bytes != want ||
      (rma_has_result((int)w->kind) && w->result_bytes != total)) {
    hc_log(HC_LOG_ERROR, "rma",
           "rank %d: operation from rank %d outside the window, dropped",
           win->rank, src);
    rma_reply(win, src, w->reply_tag, NULL, 0);
    return;
  }
  hc_status_t rc = HC_OK;
  if (rma_has_result((int)w->kind) && (old = rma_result_alloc(total)) == NULL)
    rc = HC_ERR_NOMEM;
  if (rc == HC_OK) {
    int held = hc_rma_direct_hold(win, (int)w->kind);
    rc = hc_rma_apply_at(win, w, addr, pairs, in, old);
    hc_rma_direct_unhold(win, held);
  }
  if (rc != HC_OK) {
    hc_log(HC_LOG_ERROR, "rma",
           "rank %d: an operation from rank %d failed here: %s", win->rank, src,
           hcomm_strerror(rc));
    rma_report_failure(win, src, rc);
    free(old);
    old = NULL;
  }
  /* An empty reply after a failure: the report ahead of it says why. */
  if (rma_has_result((int)w->kind))
    rma_reply(win, src, w->reply_tag, old, old != NULL ? total : 0);
}

/* The operation w on host memory at addr. */
static hc_status_t rma_apply_host(hcomm_win_t *win, const hc_rma_wire_t *w,
                                  char *addr, const uint64_t *pairs,
                                  const unsigned char *in, unsigned char *old) {
  switch (w->kind) {
  case HCOMM_RMA_PUT:
    rma_scatter(addr, pairs, w->nsegs, in);
    break;
  case HCOMM_RMA_GET:
    rma_gather(addr, pairs, w->nsegs, old);
    break;
  case HCOMM_RMA_ACC:
    return rma_accumulate(win, w, addr, pairs, in, NULL);
  case HCOMM_RMA_GET_ACC:
    return rma_accumulate(win, w, addr, pairs, in, old);
  case HCOMM_RMA_CAS:
    rma_gather(addr, pairs, w->nsegs, old);
    if (memcmp(old, in + w->result_bytes, w->result_bytes) == 0)
      rma_scatter(addr, pairs, w->nsegs, in);
    break;
  }
  return HC_OK;
}

/* ---- device memory windows ---------------------------------------------- */

const hc_mem_info_t hc_rma_host_mem = {HC_MEM_HOST, -1, 0, 0, 0};

/* What this rank's window memory at `at` is (*info), and how many bytes
 * from there (at most *run) are of that memory: an access to a dynamic
 * window may run from one attached region into the next. */
static void rma_mem_at(const hcomm_win_t *win, const char *at,
                       hc_mem_info_t *info, size_t *run) {
  if (!win->dynamic) {
    *info = win->mem;
    return;
  }
  *info = hc_rma_host_mem;
  for (const hc_rma_region_t *r = win->regions; r != NULL; r = r->next)
    if ((uintptr_t)r->base <= (uintptr_t)at &&
        (uintptr_t)at < (uintptr_t)r->base + r->size) {
      *info = r->mem;
      size_t left = (size_t)((uintptr_t)r->base + r->size - (uintptr_t)at);
      if (*run > left)
        *run = left;
      return;
    }
}

/* Copies len bytes between this rank's window memory at `at` and the host
 * buffer host (into the window when to_window), through the device
 * layer's copies where the window memory is device memory (an
 * hc_rma_copy_fn; ctx: the window). */
static hc_status_t rma_window_copy(void *ctx, char *at, unsigned char *host,
                                   size_t len, int to_window) {
  const hcomm_win_t *win = ctx;
  while (len > 0) {
    hc_mem_info_t info;
    size_t run = len;
    rma_mem_at(win, at, &info, &run);
    hc_status_t rc =
        to_window ? hc_device_copy(at, &info, host, &hc_rma_host_mem, run)
                  : hc_device_copy(host, &hc_rma_host_mem, at, &info, run);
    if (rc != HC_OK)
      return rc;
    at += run;
    host += run;
    len -= run;
  }
  return HC_OK;
}

/* 1 when some of this rank's window memory is device memory. */
static int rma_has_device_memory(const hcomm_win_t *win) {
  return win->dynamic ? win->device_regions : win->mem.kind != HC_MEM_HOST;
}

/* Gathers (to_window 0) or scatters the pieces at addr from or into the
 * packed stream host. */
static hc_status_t rma_window_pieces(char *addr, const uint64_t *pairs,
                                     uint64_t n, unsigned char *host,
                                     int to_window, hc_rma_copy_fn copy,
                                     void *ctx) {
  for (uint64_t i = 0; i < n; i++) {
    hc_status_t rc =
        copy(ctx, addr + pairs[2 * i], host, pairs[2 * i + 1], to_window);
    if (rc != HC_OK)
      return rc;
    host += pairs[2 * i + 1];
  }
  return HC_OK;
}

hc_status_t hc_rma_apply_staged(hcomm_win_t *win, const hc_rma_wire_t *w,
                                char *addr, const uint64_t *pairs,
                                const unsigned char *in, unsigned char *old,
                                hc_rma_copy_fn copy, void *ctx) {
  if (w->kind == HCOMM_RMA_PUT)
    return rma_window_pieces(addr, pairs, w->nsegs,
                             (unsigned char *)(uintptr_t)in, 1, copy, ctx);
  if (w->kind == HCOMM_RMA_GET)
    return rma_window_pieces(addr, pairs, w->nsegs, old, 0, copy, ctx);
  uint64_t total = rma_total(pairs, w->nsegs);
  unsigned char *tmp = malloc(total ? total : 1);
  if (tmp == NULL)
    return HC_ERR_NOMEM;
  hc_status_t rc = rma_window_pieces(addr, pairs, w->nsegs, tmp, 0, copy, ctx);
  int changes =
      rc == HC_OK && (w->kind != HCOMM_RMA_CAS ||
                      memcmp(tmp, in + w->result_bytes, w->result_bytes) == 0);
  if (rc == HC_OK) {
    hc_rma_wire_t one = *w;
    uint64_t whole[2] = {0, total};
    one.nsegs = 1;
    rc = rma_apply_host(win, &one, (char *)tmp, whole, in, old);
  }
  /* Written back or not, the operation happened: never "not supported"
   * now, which would send it again as a message. */
  if (rc == HC_OK && changes &&
      (rc = rma_window_pieces(addr, pairs, w->nsegs, tmp, 1, copy, ctx)) ==
          HC_ERR_NOT_SUPPORTED)
    rc = HC_ERR_TRANSPORT;
  free(tmp);
  return rc;
}

hc_status_t hc_rma_apply_at(hcomm_win_t *win, const hc_rma_wire_t *w,
                            char *addr, const uint64_t *pairs,
                            const unsigned char *in, unsigned char *old) {
  /* Shared mappings (another member's memory) are always host memory;
   * this rank's own may be device memory. */
  if (rma_has_device_memory(win) && win->shared_bases == NULL)
    return hc_rma_apply_staged(win, w, addr, pairs, in, old, rma_window_copy,
                               win);
  return rma_apply_host(win, w, addr, pairs, in, old);
}

static int rma_lock_free_for(const hcomm_win_t *win, int type) {
  return win->excl_holder < 0 &&
         (type == HCOMM_LOCK_SHARED || win->shared_holders == 0);
}

static void rma_grant(hcomm_win_t *win, int rank, int type, int tag) {
  if (type == HCOMM_LOCK_EXCLUSIVE)
    win->excl_holder = rank;
  else
    win->shared_holders++;
  win->held[rank] = (unsigned char)type;
  rma_reply(win, rank, tag, NULL, 0);
}

/* Ends the lock rank holds here, if any, and grants what waits. */
static void rma_release(hcomm_win_t *win, int rank) {
  if (win->held[rank] == HCOMM_LOCK_EXCLUSIVE && win->excl_holder == rank)
    win->excl_holder = -1;
  else if (win->held[rank] == HCOMM_LOCK_SHARED && win->shared_holders > 0)
    win->shared_holders--;
  win->held[rank] = 0;
  /* In order while each is free for; then, with no exclusive holder, every
   * shared request left (rma_lock_request says why they pass). */
  int shared_only = 0;
  for (hc_rma_waiter_t **link = &win->wait_head; *link != NULL;) {
    hc_rma_waiter_t *q = *link;
    if (!rma_lock_free_for(win, q->type))
      shared_only = 1;
    if (!rma_lock_free_for(win, q->type) ||
        (shared_only && q->type != HCOMM_LOCK_SHARED)) {
      link = &q->next;
      continue;
    }
    *link = q->next;
    rma_grant(win, q->rank, q->type, q->reply_tag);
    free(q);
  }
  win->wait_tail = NULL;
  for (hc_rma_waiter_t *q = win->wait_head; q != NULL; q = q->next)
    win->wait_tail = q;
}

/* After new failures: the locks dead origins hold here, or wait for,
 * would never be released; drop them.  Returns how many. */
static int rma_release_dead(hcomm_win_t *win) {
  int moved = 0;
  for (hc_rma_waiter_t **link = &win->wait_head; *link != NULL;) {
    hc_rma_waiter_t *q = *link;
    if (hc_rma_target_failure(win, q->rank) == HC_OK) {
      win->wait_tail = q;
      link = &q->next;
      continue;
    }
    *link = q->next;
    free(q);
    moved++;
  }
  if (win->wait_head == NULL)
    win->wait_tail = NULL;
  moved += hc_rma_direct_release_dead(win);
  for (int r = 0; r < win->size; r++)
    if (win->held[r] && hc_rma_target_failure(win, r) != HC_OK) {
      rma_release(win, r);
      moved++;
    }
  return moved;
}

/* A shared request passes exclusive ones that wait: MPI_Win_lock_all
 * takes its shared locks one target at a time and holds those it got, so
 * a shared request queued behind an exclusive one at another target,
 * whose own exclusive waits for that holder, would deadlock (two
 * lock_alls and two exclusive locks on the members' own windows did;
 * tests/mpi/rma_lock_order.c builds that order).  The price: shared locks
 * handed on from holder to holder without a gap keep an exclusive request
 * waiting until they stop.  It is not bounded on purpose: a holder may
 * wait for the next holder's message before unlocking, so a shared
 * request held back behind a waiting exclusive one, even after many have
 * passed it, deadlocks that hand-off (tested there too), and the target
 * cannot tell such a hand-off from a stream of unrelated shared locks. */
static void rma_lock_request(hcomm_win_t *win, int src,
                             const hc_rma_wire_t *w) {
  if ((win->wait_head == NULL || w->op == HCOMM_LOCK_SHARED) &&
      rma_lock_free_for(win, w->op)) {
    rma_grant(win, src, w->op, w->reply_tag);
    return;
  }
  hc_rma_waiter_t *q = calloc(1, sizeof *q);
  if (q == NULL) {
    hc_log(HC_LOG_ERROR, "rma", "out of memory queueing a lock request");
    return;
  }
  *q = (hc_rma_waiter_t){src, w->op, w->reply_tag, NULL};
  if (win->wait_tail != NULL)
    win->wait_tail->next = q;
  else
    win->wait_head = q;
  win->wait_tail = q;
}

static void rma_unlock_request(hcomm_win_t *win, int src,
                               const hc_rma_wire_t *w) {
  rma_reply(win, src, w->reply_tag, NULL, 0);
  rma_release(win, src);
}

static void rma_apply(hcomm_win_t *win, int src, const unsigned char *buf,
                      size_t len) {
  hc_rma_wire_t w;
  if (len < sizeof w)
    return;
  memcpy(&w, buf, sizeof w);
  size_t shape = (size_t)w.nsegs * 2 * sizeof(uint64_t);
  if (w.nsegs > len / (2 * sizeof(uint64_t)) ||
      sizeof w + shape + w.bytes != len) {
    hc_log(HC_LOG_ERROR, "rma", "malformed active message from rank %d", src);
    return;
  }
  const uint64_t *pairs = (const uint64_t *)(buf + sizeof w);
  switch (w.kind) {
  case HC_RMA_LOCK:
    rma_lock_request(win, src, &w);
    break;
  case HC_RMA_UNLOCK:
    rma_unlock_request(win, src, &w);
    break;
  case HC_RMA_FLUSH:
    rma_reply(win, src, w.reply_tag, NULL, 0);
    break;
  case HC_RMA_COMPLETE:
    win->completes_got++;
    break;
  case HC_RMA_FAILED: /* this rank's operation failed at src */
    if (win->remote_error == HC_OK)
      win->remote_error = (hc_status_t)w.op;
    break;
  default:
    rma_apply_data(win, src, &w, pairs, buf + sizeof w + shape);
  }
}

/* 1 when the whole eager message msg is a failure report, which needs no
 * order against the operations queued ahead of it. */
static int rma_is_failure_report(const hcomm_message_t *msg) {
  hc_rma_wire_t w;
  if (msg->len < sizeof w)
    return 0;
  memcpy(&w, msg->data, sizeof w);
  return w.kind == HC_RMA_FAILED;
}

/* Drops an active message the target has no memory to take: receives it
 * into nothing (a rendezvous sender is told it landed, so it does not wait
 * for ever) after reporting the failure to its origin. */
static void rma_discard(hcomm_win_t *win, hcomm_message_t *msg) {
  int src = hc_comm_rank_of_world(win->comm, msg->hdr.source);
  hc_log(HC_LOG_ERROR, "rma",
         "rank %d: no memory to take a %zu B operation from rank %d; "
         "dropped",
         win->rank, (size_t)msg->hdr.total_bytes, src);
  rma_report_failure(win, src, HC_ERR_NOMEM);
  hcomm_request_t *req = NULL;
  if (hc_imrecv_locked(NULL, 0, msg, &req) != HC_OK) {
    hc_log(HC_LOG_ERROR, "rma", "rank %d: message from rank %d lost", win->rank,
           src);
    return;
  }
  /* Truncated on purpose: its status is nobody's failure. */
  if (rma_track(win, req, NULL, -1) == NULL) {
    hc_wait_locked(req);
    hc_request_release(req);
  }
}

/* Takes every waiting active message off the matching queue. */
static int rma_take_arrivals(hcomm_win_t *win) {
  int moved = 0;
  hc_match_context_t *ctx =
      &hc_engine.contexts[hc_comm_match_ctx(win->comm, 0)];
  hc_match_entry_t *e;
  while ((e = hc_match_find_unexpected(ctx, HCOMM_ANY_SOURCE, HC_RMA_TAG_REQ,
                                       1)) != NULL) {
    hcomm_message_t *msg = (hcomm_message_t *)e;
    msg->comm = win->comm;
    size_t len = msg->hdr.total_bytes;
    /* A whole eager message with nothing queued ahead of it is applied
     * where it lies. */
    if ((win->arr_head == NULL || rma_is_failure_report(msg)) &&
        msg->hdr.type == HC_PKT_EAGER && !(msg->hdr.flags & HC_PKT_FLAG_SYNC) &&
        !msg->lost && msg->len == len) {
      rma_apply(win, hc_comm_rank_of_world(win->comm, msg->hdr.source),
                msg->data, len);
      free(msg);
      moved++;
      continue;
    }
    hc_rma_arrival_t *a = calloc(1, sizeof *a);
    size_t cap = 0;
    void *buf =
        a == NULL
            ? NULL
            : rma_take_buf_alloc(win, len, msg->hdr.type != HC_PKT_EAGER, &cap);
    if (buf == NULL) {
      free(a);
      rma_discard(win, msg);
      moved++;
      continue;
    }
    if (hc_imrecv_locked(buf, len, msg, &a->req) != HC_OK) {
      hc_log(HC_LOG_ERROR, "rma", "out of memory taking an active message");
      free(a);
      rma_buf_free(win, buf, cap);
      continue;
    }
    a->buf = buf;
    a->cap = cap;
    if (win->arr_tail != NULL)
      win->arr_tail->next = a;
    else
      win->arr_head = a;
    win->arr_tail = a;
    moved++;
  }
  return moved;
}

static int rma_apply_arrivals(hcomm_win_t *win) {
  int moved = 0;
  hc_rma_arrival_t *a;
  while ((a = win->arr_head) != NULL && atomic_load(&a->req->done)) {
    win->arr_head = a->next;
    if (win->arr_head == NULL)
      win->arr_tail = NULL;
    if (a->req->status.error == HC_OK)
      rma_apply(win, a->req->status.source, a->buf, a->req->status.bytes);
    else if (a->req->status.error == HC_ERR_NOMEM) /* payload lost */
      rma_report_failure(win, a->req->status.source, a->req->status.error);
    hc_request_release(a->req);
    rma_buf_free(win, a->buf, a->cap);
    free(a);
    moved++;
  }
  return moved;
}

int hc_rma_progress_locked(void) {
  int moved = 0;
  for (hcomm_win_t *w = rma_windows; w != NULL; w = w->next_win) {
    if (!w->applying) {
      moved += rma_take_arrivals(w);
      moved += rma_apply_arrivals(w);
    }
    moved += rma_reap(w);
    if (w->dev_reqs != NULL)
      moved += hc_rma_device_poll(w);
    if (w->failures_seen != hc_engine.failed_peers) {
      w->failures_seen = hc_engine.failed_peers;
      moved += rma_release_dead(w);
    }
  }
  return moved;
}

/* ---- windows ------------------------------------------------------------ */

/* What only a mistaken program leaves at free: messages not yet applied
 * (a lock request after the last fence, ...), lock requests queued. */
static void rma_drop_target_state(hcomm_win_t *win) {
  while (win->arr_head != NULL) {
    hc_rma_arrival_t *a = win->arr_head;
    win->arr_head = a->next;
    hc_wait_locked(a->req);
    hc_request_release(a->req);
    free(a->buf);
    free(a);
  }
  win->arr_tail = NULL;
  while (win->wait_head != NULL) {
    hc_rma_waiter_t *q = win->wait_head;
    win->wait_head = q->next;
    free(q);
  }
  win->wait_tail = NULL;
}

static void rma_win_destroy(hcomm_win_t *win) {
  while (win->regions != NULL) {
    hc_rma_region_t *r = win->regions;
    win->regions = r->next;
    free(r);
  }
  free(win->sizes);
  free(win->disp_units);
  free(win->remote_bases);
  free(win->rdma_keys);
  free(win->device);
  free(win->ipc_bases);
  free(win->ipc_imports);
  free(win->ipc_mem);
  free(win->dev_pending);
  if (win->device_locks_len > 0)
    munmap(win->shared_locks, win->device_locks_len);
  free(win->via);
  free(win->shared_bases);
  free(win->dirty);
  free(win->locked);
  free(win->access);
  free(win->exposed);
  free(win->posts_taken);
  free(win->held);
  free(win->spare);
  free(win);
}

/* Every member's size, displacement unit, base address, key and whether
 * its memory is device memory. */
static hc_status_t rma_exchange_shape(hcomm_win_t *win, int disp_unit,
                                      uint64_t key, int nic_wanted) {
  uint64_t mine[6] = {
      win->bytes, (uint64_t)disp_unit,          (uint64_t)(uintptr_t)win->base,
      key,        win->mem.kind != HC_MEM_HOST, (uint64_t)nic_wanted};
  uint64_t *all = malloc((size_t)win->size * sizeof mine);
  if (all == NULL)
    return HC_ERR_NOMEM;
  hc_status_t rc = hcomm_allgather(mine, sizeof mine, all, win->comm);
  win->nic_wanted = 1;
  for (int i = 0; rc == HC_OK && i < win->size; i++) {
    win->sizes[i] = (size_t)all[6 * i];
    win->disp_units[i] = (int)all[6 * i + 1];
    win->remote_bases[i] = all[6 * i + 2];
    win->rdma_keys[i] = all[6 * i + 3];
    win->device[i] = all[6 * i + 4] != 0;
    win->nic_wanted &= all[6 * i + 5] != 0;
  }
  free(all);
  return rc;
}

hc_status_t hcomm_win_create(hcomm_comm_t *comm, void *base, size_t size,
                             int disp_unit, unsigned flags,
                             hcomm_rma_combine_fn combine, hcomm_win_t **out) {
  int dynamic = (flags & HCOMM_WIN_DYNAMIC) != 0;
  if (comm == NULL || combine == NULL || out == NULL ||
      hcomm_comm_is_inter(comm))
    return HC_ERR_ARG;
  hcomm_win_t *win = calloc(1, sizeof *win);
  if (win == NULL)
    return HC_ERR_NOMEM;
  win->comm = comm;
  win->rank = hcomm_comm_rank(comm);
  win->size = hcomm_comm_size(comm);
  win->base = dynamic ? NULL : base;
  win->bytes = dynamic ? 0 : size;
  win->dynamic = dynamic;
  win->combine = combine;
  win->excl_holder = -1;
  win->mem = hc_rma_host_mem;
  if (!dynamic && size > 0)
    hc_device_classify(base, &win->mem);
  size_t n = (size_t)win->size;
  win->sizes = calloc(n, sizeof *win->sizes);
  win->disp_units = calloc(n, sizeof *win->disp_units);
  win->dirty = calloc(n, 1);
  win->locked = calloc(n, 1);
  win->access = calloc(n, sizeof *win->access);
  win->exposed = calloc(n, sizeof *win->exposed);
  win->held = calloc(n, 1);
  win->remote_bases = calloc(n, sizeof *win->remote_bases);
  win->via = calloc(n, sizeof *win->via);
  win->rdma_keys = calloc(n, sizeof *win->rdma_keys);
  win->device = calloc(n, 1);
  win->ipc_bases = calloc(n, sizeof *win->ipc_bases);
  win->ipc_imports = calloc(n, sizeof *win->ipc_imports);
  win->ipc_mem = calloc(n, sizeof *win->ipc_mem);
  win->dev_pending = calloc(n, sizeof *win->dev_pending);
  win->rdma_slot = -1;
  hc_status_t rc = HC_ERR_NOMEM;
  if (win->sizes && win->disp_units && win->dirty && win->locked &&
      win->access && win->exposed && win->held && win->remote_bases &&
      win->via && win->rdma_keys && win->device && win->ipc_bases &&
      win->ipc_imports && win->ipc_mem && win->dev_pending) {
    hc_engine_lock();
    uint64_t key = hc_rma_direct_register(win);
    hc_engine_unlock();
    rc = rma_exchange_shape(win, disp_unit, key,
                            (flags & HCOMM_WIN_NIC_ATOMICS) != 0);
  }
  if (rc != HC_OK) {
    hc_engine_lock();
    hc_rma_direct_deregister(win);
    hc_engine_unlock();
    rma_win_destroy(win);
    return rc;
  }
  hc_engine_lock();
  hc_rma_direct_choose(win);
  hc_engine_unlock();
  if (memchr(win->device, 1, n) != NULL) {
    rc = hc_rma_direct_import(win);
    if (rc != HC_OK) {
      hc_engine_lock();
      hc_rma_direct_release(win);
      hc_rma_direct_deregister(win);
      hc_engine_unlock();
      rma_win_destroy(win);
      return rc;
    }
  }
  hc_engine_lock();
  win->next_win = rma_windows;
  rma_windows = win;
  hc_rma_nwindows++;
  hc_engine_unlock();
  *out = win;
  return HC_OK;
}

hc_status_t hcomm_win_free(hcomm_win_t *win) {
  if (win == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = HC_OK;
  if (win->lock_all || win->started || win->posted)
    rc = HC_ERR_RMA_SYNC;
  for (int i = 0; rc == HC_OK && i < win->size; i++)
    if (win->locked[i])
      rc = HC_ERR_RMA_SYNC;
  hc_engine_unlock();
  if (rc != HC_OK)
    return rc;
  /* Imports of peers' device windows close before the fence's barrier,
   * after which their owners may free the memory (both runtimes want
   * every importer closed first), once the copies still queued through
   * them are done (a failed one fails the free, as the fence would). */
  hc_engine_lock();
  hc_status_t queued = hc_rma_device_complete(win, -1);
  hc_rma_direct_release(win);
  hc_engine_unlock();
  /* A fence completes this rank's operations everywhere and, with its
   * barrier, everyone's here. */
  win->fence_open = 0;
  rc = hcomm_win_fence(win, HCOMM_RMA_MODE_NOSUCCEED);
  hc_engine_lock();
  hc_rma_wait(win, NULL, -1);
  rma_reap(win);
  for (hcomm_win_t **link = &rma_windows; *link != NULL;
       link = &(*link)->next_win)
    if (*link == win) {
      *link = win->next_win;
      hc_rma_nwindows--;
      break;
    }
  while (win->pending != NULL) { /* replies still leaving: wait for them */
    hc_rma_pending_t *p = win->pending;
    hc_wait_locked(p->req);
    win->pending = p->next;
    rma_finish_pending(win, p);
  }
  rma_drop_target_state(win);
  /* After the fence's barrier no peer reaches this memory any more. */
  hc_rma_direct_deregister(win);
  hc_engine_unlock();
  rma_win_destroy(win);
  return rc != HC_OK ? rc : queued;
}

size_t hcomm_win_target_size(const hcomm_win_t *win, int rank) {
  return rank >= 0 && rank < win->size ? win->sizes[rank] : 0;
}

int hcomm_win_target_disp_unit(const hcomm_win_t *win, int rank) {
  return rank >= 0 && rank < win->size ? win->disp_units[rank] : 1;
}

int hcomm_win_is_dynamic(const hcomm_win_t *win) { return win->dynamic; }

void *hcomm_win_device_import(const hcomm_win_t *win, int rank) {
  if (rank < 0 || rank >= win->size || win->via[rank] != HC_RMA_VIA_DEVICE_IPC)
    return NULL;
  return win->ipc_bases[rank];
}

hc_status_t hcomm_win_attach(hcomm_win_t *win, void *base, size_t size) {
  if (win == NULL || !win->dynamic || (base == NULL && size > 0))
    return HC_ERR_ARG;
  hc_rma_region_t *r = calloc(1, sizeof *r);
  if (r == NULL)
    return HC_ERR_NOMEM;
  r->base = base;
  r->size = size;
  r->mem = hc_rma_host_mem;
  if (size > 0)
    hc_device_classify(base, &r->mem);
  hc_engine_lock();
  win->device_regions |= r->mem.kind != HC_MEM_HOST;
  r->next = win->regions;
  win->regions = r;
  hc_engine_unlock();
  return HC_OK;
}

hc_status_t hcomm_win_detach(hcomm_win_t *win, const void *base) {
  if (win == NULL || !win->dynamic)
    return HC_ERR_ARG;
  hc_status_t rc = HC_ERR_ARG;
  hc_engine_lock();
  for (hc_rma_region_t **link = &win->regions; *link != NULL;
       link = &(*link)->next)
    if ((*link)->base == base) {
      hc_rma_region_t *r = *link;
      *link = r->next;
      free(r);
      rc = HC_OK;
      break;
    }
  hc_engine_unlock();
  return rc;
}
