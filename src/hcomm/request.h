/*
 * Requests: engine objects for one operation each.  Work finishes only
 * through hc_request_complete().  Objects come from slabs and are recycled
 * through a freelist, or live in a home inside a caller's object (the MPI
 * face's pooled request, so that one object serves both layers); each has
 * a fixed table index and a generation, so an id sent to a peer
 * (hc_request_id) is validated on the way back.
 */
#ifndef HC_REQUEST_H
#define HC_REQUEST_H

#include <stdatomic.h>
#include <stdint.h>

#include "hcomm.h"
#include "hcomm/match.h"
#include "util/smallmem.h"

typedef enum hc_request_kind {
  HC_REQ_SEND = 1,
  HC_REQ_RECV = 2,
  HC_REQ_USER = 3 /* completed by its creator (hcomm_request_new_completed) */
} hc_request_kind_t;

struct hc_backlog_item;
struct hc_devreq;

struct hcomm_request {
  /* ---- per operation: zeroed by every allocation ---- */
  hc_match_entry_t entry; /* link in a posted-receive queue */
  hc_request_kind_t kind;
  atomic_int done;
  int user_freed; /* hcomm_request_free came before completion */
  /* Counted among the requests the user bell watches for
   * (hcomm_request_new_pending) until it completes or is freed. */
  int user_bell;
  int posted;     /* receive sits in a posted queue (cancellable) */
  int released;   /* back on the freelist */
  hcomm_status_t status;
  hcomm_comm_t *comm; /* NULL for user requests */
  int match_ctx;      /* matching context index */
  int peer;           /* world rank: send destination / matched source */
  int tag;
  int mode; /* send mode */
  int rndv; /* send: went as a rendezvous (the eager limit may change) */
  const void *send_buf;
  void *recv_buf;
  size_t bytes;       /* send: message size; receive: capacity */
  size_t total;       /* receive: sender's message size */
  size_t take;        /* receive: bytes that will land (min(total, bytes)) */
  size_t landed;      /* receive: bytes copied in so far (pipelined) */
  uint64_t remote_id; /* the peer's request id (rendezvous) */
  uint64_t remote_addr;
  struct hc_backlog_item *backlog_item; /* first packet not yet sent */
  hcomm_request_t *next;                /* freelist / pending-work list */
  /* ---- kept from one operation to the next (request_reset) ---- */
  uint32_t index;
  uint32_t generation;
  /* A request kept in a caller's home (hcomm_request_home_t): drop is
   * called where a pooled request would join the freelist; table_epoch
   * says which pool's table its index belongs to (the pool is made anew
   * after a finalize).  NULL and 0 for pooled requests. */
  hcomm_request_drop_fn home_drop;
  uint32_t table_epoch;
  /* ---- rare: zero in every released request ----
   * Only some operations use these (device buffers, accessors, joins,
   * persistent collectives, partitioned channels), so an allocation
   * leaves them alone: whoever sets one on a send or receive request
   * calls hc_request_mark_rare first, and hc_request_release clears them
   * all when rare is set.  User requests (HC_REQ_USER: joins, schedules,
   * channels) are marked at allocation. */
  int rare;
  /* Device buffers: state of the device data path (src/hcomm/devpath.c),
   * NULL for host-only messages; freed at release. */
  struct hc_devreq *dev;
  /* Accessor messages (hcomm_isend_acc / hcomm_irecv_acc): acc.pack or
   * acc.unpack non-NULL; acc_buf an eager send's packed copy, freed at
   * release. */
  hcomm_accessor_t acc;
  void *acc_buf;
  /* hcomm_request_join: a part names the joined request and whether its
   * status is the one reported; the joined request counts the parts still
   * running, keeps their first error and what to run at its end. */
  hcomm_request_t *join_parent;
  int join_reports;
  int join_pending;
  hc_status_t join_error;
  void (*join_done_fn)(void *arg);
  void *join_arg;
  /* Persistent collectives (hcomm_*_init): the schedule replayed by
   * hcomm_start, freed at release; NULL for every other request. */
  struct nbc_sched *plan;
  /* Partitioned point-to-point (hcomm_psend_init / hcomm_precv_init): the
   * channel replayed by hcomm_start, freed at release (part.c). */
  struct hc_part *part;
  /* A streamed rendezvous receive the engine times for its transport
   * (rndv_measured): rndv_timed set, when its first DATA landed
   * (hc_clock_ns; 0: none yet) and how many bytes that one held. */
  int rndv_timed;
  uint64_t rndv_data_ns;
  size_t rndv_data_first;
  /* A host rendezvous receive counted in its peer's streams_landing
   * until its last byte lands. */
  int rndv_landing;
};

/* req is about to get one of the rare fields (dev, acc, acc_buf, join_*,
 * plan, part): its release must clear them. */
static inline void hc_request_mark_rare(hcomm_request_t *req) {
  req->rare = 1;
}

/* An active request of kind, its per-operation fields zeroed (the rare
 * ones are zero already), or NULL when memory ran out. */
hcomm_request_t *hc_request_alloc(hc_request_kind_t kind);
/* The request pool's life: bumped when the pool is torn down, so that
 * homes registered before, which hold indices of a table that is gone,
 * take a new one at their next use (request.c). */
extern uint32_t hc_request_epoch;
/* Sends started and not complete (hc_request_active_sends). */
extern long hc_request_sends_active;

/* Zeroes req's per-operation fields for a new operation of kind; what
 * outlives operations (its place in the table, its generation, its home)
 * stays, and the rare fields are zero already (hc_request_release). */
__attribute__((always_inline)) static inline hcomm_request_t *
hc_request_reset(hcomm_request_t *req, hc_request_kind_t kind) {
  hc_zero_small(req, offsetof(hcomm_request_t, index));
  req->generation++;
  req->kind = kind;
  atomic_init(&req->done, 0);
  if (kind == HC_REQ_USER) /* joins, schedules, channels */
    hc_request_mark_rare(req);
  if (kind == HC_REQ_SEND)
    hc_request_sends_active++;
  return req;
}

/* hc_request_alloc_at for a home without a table index in this pool's
 * life (its first use): cold, out of line. */
__attribute__((cold)) hcomm_request_t *
hc_request_alloc_at_first(hcomm_request_home_t *home, hc_request_kind_t kind);
/* The same as hc_request_alloc kept in home (hcomm_request_home_init'ed,
 * not in use).  Inline: called, it was a call and a return on every
 * MPI_Irecv and MPI_Isend of a plain buffer (bench/NOTES.md, rate18). */
__attribute__((always_inline)) static inline hcomm_request_t *
hc_request_alloc_at(hcomm_request_home_t *home, hc_request_kind_t kind) {
  hcomm_request_t *req = (hcomm_request_t *)(void *)home;
  if (__builtin_expect(req->table_epoch != hc_request_epoch, 0))
    return hc_request_alloc_at_first(home, kind);
  return hc_request_reset(req, kind);
}
/* Returns req to the freelist, or to its home's owner through drop (it must
 * be complete or never started). */
void hc_request_release(hcomm_request_t *req);
/* hc_request_release by the home's owner itself (hcomm_request_reap): a
 * request in a home is released without the drop. */
void hc_request_release_to_owner(hcomm_request_t *req);
/* Finishes req with error (status fields other than error set by caller);
 * releases it when the user already freed it. */
void hc_request_complete(hcomm_request_t *req, hc_status_t error);
/* Finishes a persistent request whose run ended inside its start, with
 * the lock held: its error HC_OK already, in no join, not freed by the
 * user (the start checked), and no operation counted on its communicator
 * for the run.  hc_request_complete's outcome in two stores (2-rank 8 B
 * Allreduce_init; bench/NOTES.md, coll25). */
void hc_request_complete_started(hcomm_request_t *req);
/* A request completed by parts that come and go (partitioned rounds):
 * hc_request_join_track counts part towards joined (which takes part's
 * error) without taking part over: the caller still tests and releases
 * it.  hc_request_join_drop ends one count the caller holds itself (a
 * guard while parts are still being added); the last count to end
 * completes joined. */
void hc_request_join_track(hcomm_request_t *joined, hcomm_request_t *part);
void hc_request_join_drop(hcomm_request_t *joined);
/* The id a peer echoes back to name req. */
uint64_t hc_request_id(const hcomm_request_t *req);
/* The active request with that id, or NULL when stale or invalid. */
hcomm_request_t *hc_request_lookup(uint64_t id);
/* Releases every slab (at finalize). */
void hc_request_pool_fini(void);
/* Number of active send requests (finalize drains them). */
long hc_request_active_sends(void);
/* Counts completions so far: waits on many requests rescan only when it
 * moved. */
unsigned long hc_request_completions(void);
/* Calls fn on every active (allocated, not done) request; fn may complete
 * it. */
void hc_request_foreach_active(void (*fn)(hcomm_request_t *req, void *arg),
                               void *arg);

#endif /* HC_REQUEST_H */
