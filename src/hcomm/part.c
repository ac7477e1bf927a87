/*
 * Partitioned point-to-point (MPI-4.0 chapter 4): a channel between one
 * send request and one receive request, matched once, replayed each round.
 *
 * Everything travels on the communicator's partitioned matching context,
 * which no user receive and no collective ever searches:
 * - at init the sender announces itself with one small message under the
 *   user's tag: its partition count and size, and the first of a range of
 *   data tags it took for the channel.  The receiver posts the receive for
 *   it at its own init, so inits match in init order per (source, tag), as
 *   the standard asks, whatever order the rounds start in.
 * - in a round each sender partition is one message under its own data tag
 *   (above HCOMM_TAG_UB: never a user tag), sent the moment it is made
 *   ready, through the usual eager, rendezvous and device paths: partitions
 *   leave in ready order and do not wait for each other.
 * - a receive round posts one receive per sender partition at that
 *   partition's byte offset, as soon as the announcement is known (at
 *   start, or from progress when it comes later).  Non-overtaking order
 *   per data tag keeps rounds apart: a message of the next round waits,
 *   unexpected, until the receiver starts that round.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/part.h"
#include "hcomm/proto.h"
#include "hcomm/request.h"

/* Partition i of a channel whose base is b goes under data tag
 * PART_TAG_MIN + (b + i) mod PART_TAGS; bases come from the sender's
 * per-communicator counter, so channels alive at once between two ranks
 * differ until 1.8e9 partitions have been initialised since. */
#define PART_TAG_MIN (HCOMM_TAG_UB + 1)
#define PART_TAGS ((uint32_t)INT32_MAX - (uint32_t)HCOMM_TAG_UB)

/* The announcement (both ends run one build on one architecture). */
typedef struct part_announce {
  uint64_t base;
  uint64_t partitions;
  uint64_t part_bytes;
} part_announce_t;

struct hc_part {
  hcomm_request_t *req; /* the persistent request that owns the channel */
  int is_recv;
  char *buf;
  size_t part_bytes; /* this side's partitions */
  int partitions;
  int peer; /* rank in comm, or HCOMM_PROC_NULL */
  int tag;
  hcomm_comm_t *comm;
  /* The announcement's send or receive; its payload is the request's
   * acc_buf, freed with it, so the channel may go while it is in flight. */
  hcomm_request_t *announce_req;
  int matched;            /* receiver: the announcement was read */
  hc_status_t failure;    /* receiver: why the announcement is unusable */
  uint32_t base;          /* the sender's first data tag, minus PART_TAG_MIN */
  int nmsg;               /* data messages per round: the sender's partitions */
  size_t msg_bytes;       /* bytes of each */
  hcomm_request_t **data; /* this round's, nmsg entries (NULL: none) */
  int nready;             /* sender: partitions made ready this round */
  int waiting;            /* receiver: on part_waiting */
  hc_part_t *next_waiting;
};

int hc_part_nwaiting;
static hc_part_t *part_waiting;

static int part_tag(const hc_part_t *p, int i) {
  return PART_TAG_MIN + (int)((p->base + (uint32_t)i) % PART_TAGS);
}

/* buf + off, without arithmetic on a NULL buffer of nothing. */
static char *part_at(char *buf, size_t off) {
  return buf == NULL ? NULL : buf + off;
}

/* ---- rounds ------------------------------------------------------------- */

/* Drops the previous round's data requests (lock held).  One still
 * running (a channel freed while active, which MPI calls erroneous) is
 * detached first, so its end touches nothing of the channel. */
static void part_round_clear(hc_part_t *p) {
  for (int i = 0; p->data != NULL && i < p->nmsg; i++) {
    hcomm_request_t *d = p->data[i];
    p->data[i] = NULL;
    if (d == NULL)
      continue;
    d->join_parent = NULL;
    hc_proto_cancel(d);
    if (atomic_load(&d->done))
      hc_request_release(d);
    else
      d->user_freed = 1;
  }
}

/* Reads the arrived announcement: the sender's layout (lock held). */
static void part_read_announce(hc_part_t *p) {
  hcomm_request_t *a = p->announce_req;
  const part_announce_t *an = a->acc_buf;
  p->matched = 1;
  p->failure = a->status.error;
  if (p->failure == HC_OK && a->status.bytes != sizeof *an)
    p->failure = HC_ERR_PEER_CORRUPT;
  if (p->failure == HC_OK && an->partitions > INT32_MAX)
    p->failure = HC_ERR_PEER_CORRUPT;
  if (p->failure == HC_OK) {
    p->base = (uint32_t)an->base;
    p->nmsg = (int)an->partitions;
    p->msg_bytes = (size_t)an->part_bytes;
    p->data = calloc(p->nmsg > 0 ? (size_t)p->nmsg : 1, sizeof *p->data);
    if (p->data == NULL) {
      p->failure = HC_ERR_NOMEM;
      p->nmsg = 0;
    }
  }
  hc_request_release(a);
  p->announce_req = NULL;
}

static void part_fail_round(hcomm_request_t *req, hc_status_t rc) {
  if (req->join_error == HC_OK)
    req->join_error = rc;
}

/* Posts this round's receives, one per sender partition at its offset;
 * what exceeds the receiver's capacity is cut (HC_ERR_TRUNCATE). */
static void part_post_data(hc_part_t *p) {
  hcomm_request_t *req = p->req;
  size_t cap = p->part_bytes * (size_t)p->partitions;
  size_t total = p->msg_bytes * (size_t)p->nmsg;
  req->status.bytes = total < cap ? total : cap;
  if (p->failure != HC_OK)
    part_fail_round(req, p->failure);
  for (int i = 0; i < p->nmsg; i++) {
    size_t off = p->msg_bytes * (size_t)i;
    size_t at = off < cap ? off : cap;
    size_t len = cap - at < p->msg_bytes ? cap - at : p->msg_bytes;
    hc_status_t rc =
        hc_irecv_locked(part_at(p->buf, at), len, p->peer, part_tag(p, i),
                        p->comm, HC_CTX_PART, &p->data[i]);
    if (rc != HC_OK) {
      p->data[i] = NULL;
      part_fail_round(req, rc);
      continue;
    }
    hc_request_join_track(req, p->data[i]);
  }
}

static void part_wait_announce(hc_part_t *p) {
  p->waiting = 1;
  p->next_waiting = part_waiting;
  part_waiting = p;
  hc_part_nwaiting++;
}

static void part_unwait(hc_part_t *p) {
  for (hc_part_t **link = &part_waiting; *link != NULL;
       link = &(*link)->next_waiting) {
    if (*link == p) {
      *link = p->next_waiting;
      p->waiting = 0;
      hc_part_nwaiting--;
      return;
    }
  }
}

int hc_part_progress_locked(void) {
  int moved = 0;
  hc_part_t **link = &part_waiting;
  while (*link != NULL) {
    hc_part_t *p = *link;
    if (!atomic_load(&p->announce_req->done)) {
      link = &p->next_waiting;
      continue;
    }
    *link = p->next_waiting;
    p->waiting = 0;
    hc_part_nwaiting--;
    part_read_announce(p);
    part_post_data(p);
    hc_request_join_drop(p->req); /* the round's guard; may free p */
    moved++;
  }
  return moved;
}

/* Begins a round of an inactive channel (lock held).  The round holds a
 * guard count on its request until every data message is under way. */
static void part_round_begin(hc_part_t *p) {
  hcomm_request_t *req = p->req;
  part_round_clear(p);
  req->status.source = p->peer;
  req->status.tag = p->tag;
  req->status.bytes = 0;
  req->status.cancelled = 0;
  req->status.error = HC_OK;
  req->join_error = HC_OK;
  req->join_pending = 1;
  p->nready = 0;
  atomic_store(&req->done, 0);
  hc_comm_op_begin(p->comm); /* ended by hc_request_complete */
  if (p->peer == HCOMM_PROC_NULL) {
    req->status.tag = HCOMM_ANY_TAG;
    hc_request_join_drop(req);
  } else if (!p->is_recv) {
    if (p->partitions == 0)
      hc_request_join_drop(req);
  } else {
    if (!p->matched && atomic_load(&p->announce_req->done))
      part_read_announce(p);
    if (!p->matched) {
      part_wait_announce(p);
      return;
    }
    part_post_data(p);
    hc_request_join_drop(req);
  }
}

hc_status_t hc_part_start(hcomm_request_t *req) {
  hc_engine_lock();
  hc_status_t rc = hc_engine_check();
  if (rc == HC_OK && (!atomic_load(&req->done) || req->user_freed))
    rc = HC_ERR_REQUEST;
  if (rc == HC_OK)
    part_round_begin(req->part);
  hc_engine_unlock();
  return rc;
}

/* ---- init and free ------------------------------------------------------ */

static hc_status_t part_check(const void *buf, size_t part_bytes,
                              int partitions, int peer, int tag,
                              const hcomm_comm_t *comm) {
  if (comm == NULL)
    return HC_ERR_COMM;
  if (partitions < 0 ||
      (partitions > 0 && part_bytes > SIZE_MAX / (size_t)partitions))
    return HC_ERR_ARG;
  if (buf == NULL && part_bytes > 0 && partitions > 0)
    return HC_ERR_ARG;
  if (peer != HCOMM_PROC_NULL && (peer < 0 || peer >= comm->size))
    return HC_ERR_RANK;
  return tag < 0 || tag > HCOMM_TAG_UB ? HC_ERR_TAG : HC_OK;
}

/* The announcement's send (sender) or receive (receiver), lock held. */
static hc_status_t part_announce(hc_part_t *p) {
  part_announce_t *an = calloc(1, sizeof *an);
  if (an == NULL)
    return HC_ERR_NOMEM;
  hc_status_t rc;
  if (p->is_recv) {
    rc = hc_irecv_locked(an, sizeof *an, p->peer, p->tag, p->comm, HC_CTX_PART,
                         &p->announce_req);
  } else {
    p->base = p->comm->part_seq % PART_TAGS;
    p->comm->part_seq =
        (uint32_t)((p->base + (uint64_t)p->partitions) % PART_TAGS);
    an->base = p->base;
    an->partitions = (uint64_t)p->partitions;
    an->part_bytes = p->part_bytes;
    rc = hc_isend_locked(an, sizeof *an, p->peer, p->tag, p->comm,
                         HCOMM_SEND_STANDARD, HC_CTX_PART, &p->announce_req);
  }
  if (rc != HC_OK) {
    free(an);
    return rc;
  }
  hc_request_mark_rare(p->announce_req);
  p->announce_req->acc_buf = an; /* freed when the request is released */
  return HC_OK;
}

static hc_status_t part_init(char *buf, size_t part_bytes, int partitions,
                             int peer, int tag, hcomm_comm_t *comm, int is_recv,
                             hcomm_request_t **req) {
  hc_status_t rc = part_check(buf, part_bytes, partitions, peer, tag, comm);
  if (rc == HC_OK && req == NULL)
    rc = HC_ERR_ARG;
  if (rc != HC_OK)
    return rc;
  hc_part_t *p = calloc(1, sizeof *p);
  if (p == NULL)
    return HC_ERR_NOMEM;
  *p = (hc_part_t){.is_recv = is_recv,
                   .buf = buf,
                   .part_bytes = part_bytes,
                   .partitions = partitions,
                   .peer = peer,
                   .tag = tag,
                   .comm = comm,
                   .nmsg = partitions,
                   .msg_bytes = part_bytes};
  hc_engine_lock();
  rc = hc_engine_check();
  if (rc == HC_OK && !is_recv)
    p->data = calloc(partitions > 0 ? (size_t)partitions : 1, sizeof *p->data);
  if (rc == HC_OK && !is_recv && p->data == NULL)
    rc = HC_ERR_NOMEM;
  if (rc == HC_OK && (p->req = hc_request_alloc(HC_REQ_USER)) == NULL)
    rc = HC_ERR_NOMEM;
  if (rc == HC_OK && peer != HCOMM_PROC_NULL)
    rc = part_announce(p);
  if (rc != HC_OK) {
    if (p->req != NULL)
      hc_request_release(p->req);
    hc_engine_unlock();
    free(p->data);
    free(p);
    return rc;
  }
  hc_comm_op_begin(comm); /* the channel's own hold, ended at free */
  p->matched = peer == HCOMM_PROC_NULL;
  p->req->comm = comm;
  p->req->part = p;
  p->req->status.source = HCOMM_ANY_SOURCE;
  p->req->status.tag = HCOMM_ANY_TAG;
  atomic_store(&p->req->done, 1); /* inactive until hcomm_start */
  *req = p->req;
  hc_engine_unlock();
  return HC_OK;
}

hc_status_t hcomm_psend_init(const void *buf, size_t part_bytes, int partitions,
                             int dest, int tag, hcomm_comm_t *comm,
                             hcomm_request_t **req) {
  return part_init((char *)buf, part_bytes, partitions, dest, tag, comm, 0,
                   req);
}

hc_status_t hcomm_precv_init(void *buf, size_t part_bytes, int partitions,
                             int source, int tag, hcomm_comm_t *comm,
                             hcomm_request_t **req) {
  return part_init(buf, part_bytes, partitions, source, tag, comm, 1, req);
}

void hc_part_free(hc_part_t *p) {
  if (p->waiting)
    part_unwait(p);
  part_round_clear(p);
  hcomm_request_t *a = p->announce_req;
  if (a != NULL) {
    if (p->is_recv)
      hc_proto_cancel(a); /* a receive still posted matches nothing now */
    if (atomic_load(&a->done))
      hc_request_release(a);
    else
      a->user_freed = 1; /* an announcement still leaving goes on */
  }
  hc_comm_op_end(p->comm);
  free(p->data);
  free(p);
}

/* ---- ready and arrived --------------------------------------------------- */

/* Sends partition i of a started send round (lock held). */
static hc_status_t part_ready_one(hc_part_t *p, int i) {
  hcomm_request_t *req = p->req;
  if (p->data[i] != NULL)
    return HC_ERR_ARG;
  hc_status_t rc = hc_isend_locked(
      part_at(p->buf, p->part_bytes * (size_t)i), p->part_bytes, p->peer,
      part_tag(p, i), p->comm, HCOMM_SEND_STANDARD, HC_CTX_PART, &p->data[i]);
  if (rc == HC_OK)
    hc_request_join_track(req, p->data[i]);
  else
    part_fail_round(req, rc); /* the round ends with the error */
  if (++p->nready == p->partitions)
    hc_request_join_drop(req);
  return HC_OK;
}

hc_status_t hcomm_pready(hcomm_request_t *req, int partition) {
  if (req == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_part_t *p = req->part;
  hc_status_t rc = hc_engine_check();
  if (rc == HC_OK && (p == NULL || p->is_recv))
    rc = HC_ERR_REQUEST;
  if (rc == HC_OK && (partition < 0 || partition >= p->partitions))
    rc = HC_ERR_ARG;
  if (rc == HC_OK && p->peer != HCOMM_PROC_NULL) {
    if (atomic_load(&req->done))
      rc = HC_ERR_REQUEST; /* not started, or every partition already left */
    else
      rc = part_ready_one(p, partition);
  }
  hc_engine_unlock();
  return rc;
}

/* 1 when every data message overlapping the receiver's partition j has
 * landed (lock held). */
static int part_arrived(const hc_part_t *p, int j) {
  if (p->peer == HCOMM_PROC_NULL || p->part_bytes == 0)
    return 1;
  if (!p->matched || p->waiting)
    return 0;
  if (p->msg_bytes == 0)
    return 1;
  size_t first = p->part_bytes * (size_t)j / p->msg_bytes;
  size_t last = (p->part_bytes * (size_t)(j + 1) - 1) / p->msg_bytes;
  for (size_t i = first; i <= last && i < (size_t)p->nmsg; i++) {
    const hcomm_request_t *d = p->data[i];
    if (d != NULL && !atomic_load(&d->done))
      return 0;
  }
  return 1;
}

hc_status_t hcomm_parrived(hcomm_request_t *req, int partition, int *flag) {
  if (req == NULL || flag == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = hc_engine_check();
  hc_part_t *p = req->part;
  if (rc == HC_OK)
    hc_progress_locked();
  if (rc == HC_OK && (p == NULL || !p->is_recv))
    rc = HC_ERR_REQUEST;
  if (rc == HC_OK && (partition < 0 || partition >= p->partitions))
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    *flag = part_arrived(p, partition);
  hc_engine_unlock();
  return rc;
}
