/* Point-to-point entry points: argument checks, then the protocol layer. */
#include <stdlib.h>

#include "device/device.h"
#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/devpath.h"
#include "hcomm/engine.h"
#include "hcomm/ft.h"
#include "hcomm/proto.h"
#include "hcomm/trace.h"

static hc_status_t pt2pt_check_tag(int tag, int wildcard_ok) {
  if (tag == HCOMM_ANY_TAG && wildcard_ok)
    return HC_OK;
  return (tag < 0 || tag > HCOMM_TAG_UB) ? HC_ERR_TAG : HC_OK;
}

/* The partitioned context also carries data tags above HCOMM_TAG_UB
 * (part.c), which user tags never reach. */
static hc_status_t pt2pt_check_tag_in(int tag, int wildcard_ok, int kind) {
  if (kind == HC_CTX_PART)
    return tag < 0 ? HC_ERR_TAG : HC_OK;
  return pt2pt_check_tag(tag, wildcard_ok);
}

/* A new request of kind: kept in home when the caller gave one
 * (hcomm_isend_at / hcomm_irecv_at), else from the pool. */
static hcomm_request_t *pt2pt_request(hc_request_kind_t kind,
                                      hcomm_request_home_t *home) {
  return home != NULL ? hc_request_alloc_at(home, kind)
                      : hc_request_alloc(kind);
}

/* A request that completes at once as if from HCOMM_PROC_NULL. */
static hc_status_t pt2pt_proc_null(hc_request_kind_t kind,
                                   hcomm_request_home_t *home,
                                   hcomm_request_t **req) {
  hcomm_request_t *r = pt2pt_request(kind, home);
  if (r == NULL)
    return HC_ERR_NOMEM;
  r->status.source = HCOMM_PROC_NULL;
  r->status.tag = HCOMM_ANY_TAG;
  hc_request_complete(r, HC_OK);
  *req = r;
  return HC_OK;
}

/* acc non-NULL: an accessor send (buf unused).  home non-NULL: the
 * request is kept there. */
static hc_status_t pt2pt_isend(hcomm_request_home_t *home, const void *buf,
                               const hcomm_accessor_t *acc, size_t bytes,
                               int dest, int tag, hcomm_comm_t *comm, int mode,
                               int coll, hcomm_request_t **req) {
  hc_status_t rc = hc_engine_check();
  if (rc != HC_OK)
    return rc;
  if (comm == NULL || req == NULL)
    return comm == NULL ? HC_ERR_COMM : HC_ERR_ARG;
  if (dest == HCOMM_PROC_NULL)
    return pt2pt_proc_null(HC_REQ_SEND, home, req);
  if (dest < 0 || dest >= comm->size)
    return HC_ERR_RANK;
  if (pt2pt_check_tag_in(tag, 0, coll) != HC_OK)
    return HC_ERR_TAG;
  if (bytes > 0 && buf == NULL && (acc == NULL || acc->pack == NULL))
    return HC_ERR_ARG;
  hcomm_request_t *r = pt2pt_request(HC_REQ_SEND, home);
  if (r == NULL)
    return HC_ERR_NOMEM;
  r->comm = comm;
  hc_comm_op_begin(comm);
  r->match_ctx = hc_comm_match_ctx(comm, coll);
  r->peer = hc_comm_world_of_rank(comm, dest);
  r->tag = tag;
  r->mode = mode;
  r->send_buf = buf;
  r->bytes = bytes;
  if (acc != NULL) {
    hc_request_mark_rare(r);
    r->acc = *acc;
  }
  *req = r;
  /* Device buffers (devpath.c). */
  if (hc_devpath_classify(r) != HC_OK) {
    hc_request_complete(r, HC_ERR_NOMEM);
    return HC_OK;
  }
  if (hc_ft_nrevoked > 0 && hc_ft_comm_revoked(comm)) {
    hc_request_complete(r, HC_ERR_REVOKED);
    return HC_OK;
  }
  if (hc_engine.peers[r->peer].failed) { /* known lost: fail, never queue */
    r->status.bytes = 0;
    hc_request_complete(r, hc_engine.peers[r->peer].failure);
    return HC_OK;
  }
  hc_proto_send(r);
  return HC_OK;
}

hc_status_t hc_isend_locked(const void *buf, size_t bytes, int dest, int tag,
                            hcomm_comm_t *comm, int mode, int coll,
                            hcomm_request_t **req) {
  return pt2pt_isend(NULL, buf, NULL, bytes, dest, tag, comm, mode, coll, req);
}

/* 1 when peer's death is noticed already (or cannot be: no transport). */
static inline int pt2pt_watched(const hc_peer_t *peer) {
  return peer->watched || peer->ops == NULL;
}

/* A receive names peer: its transport is asked, once, to notice the
 * peer's death even if the two never exchanged a packet (tcp connects). */
static void pt2pt_watch(hc_peer_t *peer) {
  if (pt2pt_watched(peer))
    return;
  peer->watched = 1;
  peer->ops->watch(peer->tctx, peer->world_rank);
}

/* A receive from ANY_SOURCE may wait for any member of comm: each is
 * watched, once per communicator, so that one that died before its first
 * message still fails the receive (tcp connects to each). */
static void pt2pt_watch_all(hcomm_comm_t *comm) {
  if (comm->watched_all)
    return;
  comm->watched_all = 1;
  for (int r = 0; r < comm->size; r++) {
    int w = hc_comm_world_of_rank(comm, r);
    if (w != hc_engine.world_rank)
      pt2pt_watch(&hc_engine.peers[w]);
  }
}

/* A new receive request's own fields. */
__attribute__((always_inline)) static inline void
pt2pt_recv_fields(hcomm_request_t *r, void *buf, size_t bytes, int tag,
                  hcomm_comm_t *comm, int coll) {
  r->comm = comm;
  hc_comm_op_begin(comm);
  r->match_ctx = hc_comm_match_ctx(comm, coll);
  r->tag = tag;
  r->recv_buf = buf;
  r->bytes = bytes;
}

/* pt2pt_irecv once its arguments passed the checks (the engine running,
 * comm non-NULL, source a member of comm or HCOMM_ANY_SOURCE, tag valid,
 * buf or acc present for bytes > 0, req non-NULL).  Inlined into
 * pt2pt_irecv and hcomm_irecv_now_at. */
__attribute__((always_inline)) static inline hc_status_t
pt2pt_irecv_post(hcomm_request_home_t *home, void *buf,
                 const hcomm_accessor_t *acc, size_t bytes, int source, int tag,
                 hcomm_comm_t *comm, int coll, hcomm_request_t **req) {
  hcomm_request_t *r = pt2pt_request(HC_REQ_RECV, home);
  if (r == NULL)
    return HC_ERR_NOMEM;
  pt2pt_recv_fields(r, buf, bytes, tag, comm, coll);
  if (acc != NULL) {
    hc_request_mark_rare(r);
    r->acc = *acc;
  }
  *req = r;
  /* Device buffers (devpath.c). */
  if (hc_devpath_classify(r) != HC_OK) {
    hc_request_complete(r, HC_ERR_NOMEM);
    return HC_OK;
  }
  if (hc_ft_nrevoked > 0 && hc_ft_comm_revoked(comm)) {
    hc_request_complete(r, HC_ERR_REVOKED);
    return HC_OK;
  }
  int source_world = source == HCOMM_ANY_SOURCE
                         ? HCOMM_ANY_SOURCE
                         : hc_comm_world_of_rank(comm, source);
  if (source_world >= 0)
    pt2pt_watch(&hc_engine.peers[source_world]);
  else
    pt2pt_watch_all(comm);
  hc_proto_recv(r, source_world);
  return HC_OK;
}

/* acc non-NULL: an accessor receive (buf unused).  home as for
 * pt2pt_isend.  Inlined into its callers: out of line, its nine arguments
 * went through the stack on every MPI_Irecv. */
__attribute__((always_inline)) static inline hc_status_t
pt2pt_irecv(hcomm_request_home_t *home, void *buf, const hcomm_accessor_t *acc,
            size_t bytes, int source, int tag, hcomm_comm_t *comm, int coll,
            hcomm_request_t **req) {
  hc_status_t rc = hc_engine_check();
  if (rc != HC_OK)
    return rc;
  if (comm == NULL || req == NULL)
    return comm == NULL ? HC_ERR_COMM : HC_ERR_ARG;
  if (source == HCOMM_PROC_NULL)
    return pt2pt_proc_null(HC_REQ_RECV, home, req);
  if (source != HCOMM_ANY_SOURCE && (source < 0 || source >= comm->size))
    return HC_ERR_RANK;
  if (pt2pt_check_tag_in(tag, 1, coll) != HC_OK)
    return HC_ERR_TAG;
  if (bytes > 0 && buf == NULL && (acc == NULL || acc->unpack == NULL))
    return HC_ERR_ARG;
  return pt2pt_irecv_post(home, buf, acc, bytes, source, tag, comm, coll, req);
}

hc_status_t hc_irecv_locked(void *buf, size_t bytes, int source, int tag,
                            hcomm_comm_t *comm, int coll,
                            hcomm_request_t **req) {
  return pt2pt_irecv(NULL, buf, NULL, bytes, source, tag, comm, coll, req);
}

hc_status_t hc_isend_acc_locked(const hcomm_accessor_t *acc, size_t bytes,
                                int dest, int tag, hcomm_comm_t *comm,
                                int coll, hcomm_request_t **req) {
  return pt2pt_isend(NULL, NULL, acc, bytes, dest, tag, comm,
                     HCOMM_SEND_STANDARD, coll, req);
}

hc_status_t hc_irecv_acc_locked(const hcomm_accessor_t *acc, size_t bytes,
                                int source, int tag, hcomm_comm_t *comm,
                                int coll, hcomm_request_t **req) {
  return pt2pt_irecv(NULL, NULL, acc, bytes, source, tag, comm, coll, req);
}

/* The public sends and receives: pt2pt_isend / pt2pt_irecv under the
 * engine's lock, in the user's context. */
static hc_status_t pt2pt_isend_locking(hcomm_request_home_t *home,
                                       const void *buf,
                                       const hcomm_accessor_t *acc,
                                       size_t bytes, int dest, int tag,
                                       hcomm_comm_t *comm, int mode,
                                       hcomm_request_t **req) {
  hc_engine_lock();
  hc_status_t rc =
      pt2pt_isend(home, buf, acc, bytes, dest, tag, comm, mode, 0, req);
  hc_engine_unlock();
  return rc;
}

static hc_status_t pt2pt_irecv_locking(hcomm_request_home_t *home, void *buf,
                                       const hcomm_accessor_t *acc,
                                       size_t bytes, int source, int tag,
                                       hcomm_comm_t *comm,
                                       hcomm_request_t **req) {
  hc_engine_lock();
  hc_status_t rc =
      pt2pt_irecv(home, buf, acc, bytes, source, tag, comm, 0, req);
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_isend_acc(const hcomm_accessor_t *acc, size_t bytes, int dest,
                            int tag, hcomm_comm_t *comm, int mode,
                            hcomm_request_t **req) {
  if (acc == NULL || acc->pack == NULL)
    return HC_ERR_ARG;
  return pt2pt_isend_locking(NULL, NULL, acc, bytes, dest, tag, comm, mode,
                             req);
}

hc_status_t hcomm_irecv_acc(const hcomm_accessor_t *acc, size_t bytes,
                            int source, int tag, hcomm_comm_t *comm,
                            hcomm_request_t **req) {
  if (acc == NULL || acc->unpack == NULL)
    return HC_ERR_ARG;
  return pt2pt_irecv_locking(NULL, NULL, acc, bytes, source, tag, comm, req);
}

/* hcomm_send_now under the lock.  Tracing takes the request path, which
 * records the send.  comm, dest and tag passed the caller's checks
 * (hcomm.h); a NULL buf for bytes > 0, which a type of absolute addresses
 * lets through them, goes the request path, which refuses it.  Inlined,
 * so that hcomm_send_now without threads ends in a tail call. */
__attribute__((always_inline)) static inline hc_status_t
pt2pt_send_now(const void *buf, size_t bytes, int dest, int tag,
               hcomm_comm_t *comm) {
  /* A revoked communicator's sends fail: the request path says so. */
  if (hc_trace_on || hc_ft_nrevoked > 0 || hc_engine_check() != HC_OK ||
      (bytes > 0 && buf == NULL))
    return HC_ERR_AGAIN;
  if (bytes > 0 && !hc_device_is_host(buf))
    return HC_ERR_AGAIN;
  return hc_proto_send_now(hc_comm_world_of_rank(comm, dest),
                           (uint32_t)hc_comm_match_ctx(comm, 0), tag, buf,
                           bytes);
}

hc_status_t hcomm_send_now(const void *buf, size_t bytes, int dest, int tag,
                           hcomm_comm_t *comm) {
  /* Without threads the engine's send is the last step, a tail call: no
   * frame of this function's own on every small send. */
  if (!hc_engine.locking)
    return pt2pt_send_now(buf, bytes, dest, tag, comm);
  hc_engine_lock();
  hc_status_t rc = pt2pt_send_now(buf, bytes, dest, tag, comm);
  hc_engine_unlock();
  return rc;
}

/* hcomm_recv_now under the lock. */
static hc_status_t pt2pt_recv_now(void *buf, size_t bytes, int source, int tag,
                                  hcomm_comm_t *comm, hcomm_status_t *status) {
  if (hc_ft_nrevoked > 0 || hc_engine_check() != HC_OK || comm == NULL ||
      status == NULL)
    return HC_ERR_AGAIN;
  int match_ctx = hc_comm_match_ctx(comm, 0);
  /* Most receives are posted before their message: miss in a few loads. */
  if (hc_engine.contexts[match_ctx].unexpected.head == NULL)
    return HC_ERR_AGAIN;
  if (source == HCOMM_PROC_NULL || pt2pt_check_tag(tag, 1) != HC_OK ||
      (source != HCOMM_ANY_SOURCE && (source < 0 || source >= comm->size)) ||
      (bytes > 0 && buf == NULL))
    return HC_ERR_AGAIN;
  if (bytes > 0 && !hc_device_is_host(buf))
    return HC_ERR_AGAIN;
  int world = source == HCOMM_ANY_SOURCE ? HCOMM_ANY_SOURCE
                                         : hc_comm_world_of_rank(comm, source);
  hc_status_t rc =
      hc_proto_recv_now((uint32_t)match_ctx, world, tag, buf, bytes, status);
  if (rc == HC_OK)
    status->source = hc_comm_rank_of_world(comm, status->source);
  return rc;
}

hc_status_t hcomm_recv_now(void *buf, size_t bytes, int source, int tag,
                           hcomm_comm_t *comm, hcomm_status_t *status) {
  hc_engine_lock();
  hc_status_t rc = pt2pt_recv_now(buf, bytes, source, tag, comm, status);
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_isend(const void *buf, size_t bytes, int dest, int tag,
                        hcomm_comm_t *comm, int mode, hcomm_request_t **req) {
  return pt2pt_isend_locking(NULL, buf, NULL, bytes, dest, tag, comm, mode,
                             req);
}

hc_status_t hcomm_irecv(void *buf, size_t bytes, int source, int tag,
                        hcomm_comm_t *comm, hcomm_request_t **req) {
  return pt2pt_irecv_locking(NULL, buf, NULL, bytes, source, tag, comm, req);
}

hc_status_t hcomm_isend_at(hcomm_request_home_t *home, const void *buf,
                           size_t bytes, int dest, int tag, hcomm_comm_t *comm,
                           int mode, hcomm_request_t **req) {
  if (home == NULL)
    return HC_ERR_ARG;
  return pt2pt_isend_locking(home, buf, NULL, bytes, dest, tag, comm, mode,
                             req);
}

hc_status_t hcomm_irecv_at(hcomm_request_home_t *home, void *buf, size_t bytes,
                           int source, int tag, hcomm_comm_t *comm,
                           hcomm_request_t **req) {
  if (home == NULL)
    return HC_ERR_ARG;
  return pt2pt_irecv_locking(home, buf, NULL, bytes, source, tag, comm, req);
}

/* hcomm_irecv_now_at in every case, under the lock. */
static __attribute__((noinline)) hc_status_t
pt2pt_irecv_now_at(hcomm_request_home_t *home, void *buf, size_t bytes,
                   int source, int tag, hcomm_comm_t *comm,
                   hcomm_status_t *status, hcomm_request_t **req) {
  hc_engine_lock();
  /* The arguments passed the caller's checks (hcomm.h): only the engine's
   * state and a missing buffer, which a type of absolute addresses lets
   * through those checks, are tested again, as pt2pt_irecv does. */
  hc_status_t rc = hc_engine_check();
  if (rc == HC_OK && bytes > 0 && buf == NULL)
    rc = HC_ERR_ARG;
  /* pt2pt_recv_now's own first test, made here so that the usual miss
   * (no message arrived unexpected) costs no call. */
  if (rc == HC_OK &&
      hc_engine.contexts[hc_comm_match_ctx(comm, 0)].unexpected.head != NULL &&
      pt2pt_recv_now(buf, bytes, source, tag, comm, status) == HC_OK)
    *req = NULL;
  else if (rc == HC_OK)
    rc = pt2pt_irecv_post(home, buf, NULL, bytes, source, tag, comm, 0, req);
  hc_engine_unlock();
  return rc;
}

/* The usual receive of the message-rate path needs none of the rare steps,
 * which loads tell: no threads (no lock), the engine running, a buffer
 * where bytes > 0, a host-only process (no device classification), no
 * communicator revoked, the source's transport watching it already, no
 * message waiting unexpected in its context, and a home indexed in this
 * pool's life.  It is then only posted, in a body without calls and so
 * without a frame; any other goes to pt2pt_irecv_now_at (a tail call),
 * which repeats these tests on its way (bench/NOTES.md, rate18). */
hc_status_t hcomm_irecv_now_at(hcomm_request_home_t *home, void *buf,
                               size_t bytes, int source, int tag,
                               hcomm_comm_t *comm, hcomm_status_t *status,
                               hcomm_request_t **req) {
  hcomm_request_t *r = (hcomm_request_t *)(void *)home;
  if (hc_engine.locking || hc_engine_check() != HC_OK ||
      (bytes > 0 && buf == NULL) ||
      !atomic_load_explicit(&hc_device_host_only, memory_order_relaxed) ||
      hc_ft_nrevoked > 0 || r->table_epoch != hc_request_epoch)
    return pt2pt_irecv_now_at(home, buf, bytes, source, tag, comm, status,
                              req);
  int source_world = source == HCOMM_ANY_SOURCE
                         ? HCOMM_ANY_SOURCE
                         : hc_comm_world_of_rank(comm, source);
  hc_match_context_t *ctx = &hc_engine.contexts[hc_comm_match_ctx(comm, 0)];
  int watched = source_world >= 0
                    ? pt2pt_watched(&hc_engine.peers[source_world])
                    : comm->watched_all;
  if (!watched || ctx->unexpected.head != NULL)
    return pt2pt_irecv_now_at(home, buf, bytes, source, tag, comm, status,
                              req);
  hc_request_reset(r, HC_REQ_RECV);
  pt2pt_recv_fields(r, buf, bytes, tag, comm, 0);
  *req = r;
  hc_proto_recv_post(ctx, r, source_world);
  return HC_OK;
}

static void pt2pt_probe_status(const hcomm_message_t *msg,
                               const hcomm_comm_t *comm,
                               hcomm_status_t *status) {
  if (status == NULL)
    return;
  status->source = hc_comm_rank_of_world(comm, msg->hdr.source);
  status->tag = msg->hdr.tag;
  status->bytes = msg->hdr.total_bytes;
  status->cancelled = 0;
  status->error = HC_OK;
}

static void pt2pt_null_status(hcomm_status_t *status) {
  if (status == NULL)
    return;
  status->source = HCOMM_PROC_NULL;
  status->tag = HCOMM_ANY_TAG;
  status->bytes = 0;
  status->cancelled = 0;
  status->error = HC_OK;
}

/* One probe attempt: progress, then look at the unexpected queue. */
static hc_status_t pt2pt_probe_once(int source, int tag, hcomm_comm_t *comm,
                                    int take, hcomm_message_t **msg,
                                    hcomm_status_t *status) {
  hc_status_t rc = hc_engine_check();
  if (rc != HC_OK)
    return rc;
  if (comm == NULL)
    return HC_ERR_COMM;
  if (source != HCOMM_ANY_SOURCE && (source < 0 || source >= comm->size))
    return HC_ERR_RANK;
  if (pt2pt_check_tag(tag, 1) != HC_OK)
    return HC_ERR_TAG;
  hc_progress_locked();
  int source_world = source == HCOMM_ANY_SOURCE
                         ? HCOMM_ANY_SOURCE
                         : hc_comm_world_of_rank(comm, source);
  hc_match_entry_t *e = hc_match_find_unexpected(
      &hc_engine.contexts[hc_comm_match_ctx(comm, 0)], source_world, tag, take);
  *msg = (hcomm_message_t *)e;
  if (e == NULL)
    return HC_OK;
  (*msg)->comm = comm;
  pt2pt_probe_status(*msg, comm, status);
  return HC_OK;
}

/* A blocking probe's source as a world rank (or HCOMM_ANY_SOURCE), whose
 * death the transports are asked to notice as for a receive. */
static int pt2pt_probe_watch(int source, hcomm_comm_t *comm) {
  if (source == HCOMM_ANY_SOURCE) {
    pt2pt_watch_all(comm);
    return HCOMM_ANY_SOURCE;
  }
  int world = hc_comm_world_of_rank(comm, source);
  pt2pt_watch(&hc_engine.peers[world]);
  return world;
}

static hc_status_t pt2pt_probe(int source, int tag, hcomm_comm_t *comm,
                               int take, int block, int *flag,
                               hcomm_message_t **msg, hcomm_status_t *status) {
  hcomm_message_t *found = NULL;
  *flag = 0;
  if (source == HCOMM_PROC_NULL) {
    pt2pt_null_status(status);
    *flag = 1;
    if (!take)
      return HC_OK;
    found = calloc(1, sizeof *found);
    if (found == NULL)
      return HC_ERR_NOMEM;
    found->proc_null = 1;
    *msg = found;
    return HC_OK;
  }
  hc_engine_lock();
  long spins = 0;
  hc_status_t rc;
  for (;;) {
    rc = pt2pt_probe_once(source, tag, comm, take, &found, status);
    if (rc != HC_OK || found != NULL || !block)
      break;
    /* Nothing yet: a blocking probe cannot wait for a failed (or, with
     * ANY_SOURCE, possibly failed) sender, nor on a revoked comm. */
    int world = pt2pt_probe_watch(source, comm);
    rc = hc_ft_probe_failure(comm, world);
    if (rc != HC_OK)
      break;
    hc_idle_locked(&spins);
  }
  hc_engine_unlock();
  if (rc == HC_OK && found != NULL) {
    *flag = 1;
    if (take)
      *msg = found;
  }
  return rc;
}

hc_status_t hcomm_iprobe(int source, int tag, hcomm_comm_t *comm, int *flag,
                         hcomm_status_t *status) {
  if (flag == NULL)
    return HC_ERR_ARG;
  return pt2pt_probe(source, tag, comm, 0, 0, flag, NULL, status);
}

hc_status_t hcomm_probe(int source, int tag, hcomm_comm_t *comm,
                        hcomm_status_t *status) {
  int flag;
  return pt2pt_probe(source, tag, comm, 0, 1, &flag, NULL, status);
}

hc_status_t hcomm_improbe(int source, int tag, hcomm_comm_t *comm, int *flag,
                          hcomm_message_t **msg, hcomm_status_t *status) {
  if (flag == NULL || msg == NULL)
    return HC_ERR_ARG;
  return pt2pt_probe(source, tag, comm, 1, 0, flag, msg, status);
}

hc_status_t hcomm_mprobe(int source, int tag, hcomm_comm_t *comm,
                         hcomm_message_t **msg, hcomm_status_t *status) {
  int flag;
  if (msg == NULL)
    return HC_ERR_ARG;
  return pt2pt_probe(source, tag, comm, 1, 1, &flag, msg, status);
}

/* hc_imrecv_locked, the request kept in home when not NULL. */
static hc_status_t pt2pt_imrecv(hcomm_request_home_t *home, void *buf,
                                size_t bytes, hcomm_message_t *msg,
                                hcomm_request_t **req) {
  hcomm_request_t *r = pt2pt_request(HC_REQ_RECV, home);
  if (r == NULL)
    return HC_ERR_NOMEM;
  r->comm = msg->proc_null ? NULL : msg->comm;
  if (r->comm != NULL) {
    hc_comm_op_begin(r->comm);
    r->match_ctx = hc_comm_match_ctx(r->comm, 0);
  }
  r->recv_buf = buf;
  r->bytes = bytes;
  *req = r;
  /* Device buffers (devpath.c). */
  if (hc_devpath_classify(r) != HC_OK) {
    free(msg);
    hc_request_complete(r, HC_ERR_NOMEM);
    return HC_OK;
  }
  hc_proto_recv_message(r, msg);
  return HC_OK;
}

hc_status_t hc_imrecv_locked(void *buf, size_t bytes, hcomm_message_t *msg,
                             hcomm_request_t **req) {
  return pt2pt_imrecv(NULL, buf, bytes, msg, req);
}

static hc_status_t pt2pt_imrecv_locking(hcomm_request_home_t *home, void *buf,
                                        size_t bytes, hcomm_message_t *msg,
                                        hcomm_request_t **req) {
  if (msg == NULL || req == NULL || (bytes > 0 && buf == NULL))
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = pt2pt_imrecv(home, buf, bytes, msg, req);
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_imrecv(void *buf, size_t bytes, hcomm_message_t *msg,
                         hcomm_request_t **req) {
  return pt2pt_imrecv_locking(NULL, buf, bytes, msg, req);
}

hc_status_t hcomm_imrecv_at(hcomm_request_home_t *home, void *buf, size_t bytes,
                            hcomm_message_t *msg, hcomm_request_t **req) {
  if (home == NULL)
    return HC_ERR_ARG;
  return pt2pt_imrecv_locking(home, buf, bytes, msg, req);
}
