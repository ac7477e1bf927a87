/*
 * One-sided communication inside the engine (rma.c: windows, active
 * messages and their application at the target; rma_sync.c: epochs).
 * See docs/rma.md.
 */
#ifndef HC_RMA_H
#define HC_RMA_H

#include <stddef.h>
#include <stdint.h>

#include "device/device.h"
#include "hcomm.h"
#include "hcomm/core.h"
#include "hcomm/rma_locks.h"

/* The device layer's description of host memory (rma.c). */
extern const hc_mem_info_t hc_rma_host_mem;

/* Windows alive in this process: progress polls them while any exist. */
extern int hc_rma_nwindows;

/* Takes new active messages of every window, applies those whose bytes
 * landed (in arrival order), and finishes this rank's operations whose
 * replies came.  Returns how much happened.  Caller holds the lock. */
int hc_rma_progress_locked(void);

/* Tags on a window's communicator. */
enum {
  HC_RMA_TAG_REQ = 0,  /* an active message for the target */
  HC_RMA_TAG_POST = 1, /* MPI_Win_post's notice to an origin */
  HC_RMA_TAG_REPLY = 2 /* replies use this tag and up */
};

/* Control kinds of active messages, after the hcomm_rma_kind values. */
enum {
  HC_RMA_LOCK = 16,     /* op: lock type; reply once granted */
  HC_RMA_UNLOCK = 17,   /* reply once released (earlier operations done) */
  HC_RMA_FLUSH = 18,    /* reply once earlier operations are done */
  HC_RMA_COMPLETE = 19, /* PSCW: the origin's access epoch ended */
  HC_RMA_FAILED = 20    /* to an origin: op (an hc_status_t) failed here */
};

/* What flows ahead of every active message: then nsegs (offset, length)
 * pairs of uint64_t, then bytes of origin data. */
typedef struct hc_rma_wire {
  uint32_t kind;
  int32_t op;
  int32_t type;
  int32_t reply_tag; /* 0: no reply */
  uint64_t disp;
  uint64_t nsegs;
  uint64_t bytes;
  uint64_t result_bytes;
} hc_rma_wire_t;

/* An active message being received, applied in arrival order. */
typedef struct hc_rma_arrival {
  hcomm_request_t *req;
  void *buf;
  size_t cap; /* bytes allocated at buf */
  struct hc_rma_arrival *next;
} hc_rma_arrival_t;

/* A request this rank started for the window (an operation's send or its
 * reply's receive, a reply the target sends back, a post notice): what to
 * free and whom to tell when it completes. */
typedef struct hc_rma_pending {
  hcomm_request_t *req;
  void *buf;  /* freed at completion */
  size_t cap; /* bytes allocated at buf */
  int target; /* -1: not an operation towards a target */
  /* A reply's receive: the bytes a whole reply brings (a shorter one says
   * the operation failed at the target). */
  size_t expect;
  void (*done)(void *arg, hc_status_t status);
  void *arg;
  hcomm_request_t *user; /* the origin's request (MPI_Rput ...), or NULL */
  struct hc_rma_pending *next;
} hc_rma_pending_t;

/* Memory attached to a dynamic window. */
typedef struct hc_rma_region {
  char *base;
  size_t size;
  hc_mem_info_t mem; /* what the device layer says it is */
  struct hc_rma_region *next;
} hc_rma_region_t;

/* A lock request the target cannot grant yet. */
typedef struct hc_rma_waiter {
  int rank, type, reply_tag;
  struct hc_rma_waiter *next;
} hc_rma_waiter_t;

/* How an origin reaches a target's window memory (hcomm_win_t.via). */
enum {
  HC_RMA_VIA_MESSAGE = 0, /* active messages, applied by the target */
  HC_RMA_VIA_SELF,        /* own memory: puts and gets copy directly */
  HC_RMA_VIA_PEER_MEMORY, /* puts and gets through the transport (CMA) */
  HC_RMA_VIA_SHARED,      /* loads and stores in a shared mapping */
  HC_RMA_VIA_RDMA,        /* puts and gets by RDMA into registered memory
                             (a device window's through its dma-buf) */
  HC_RMA_VIA_DEVICE_IPC   /* device copies into the imported window (puts
                             and gets; accumulates under the target's
                             atomic word where the window has lock areas) */
};

/* hcomm_win_t.rdma_keys entry of a member that registered nothing. */
#define HC_RMA_NO_KEY UINT64_MAX

struct hcomm_win {
  hcomm_comm_t *comm;
  int rank, size;
  char *base;
  size_t bytes;
  int dynamic;
  /* This rank's window memory as the device layer classified it at
   * creation.  Device memory is never dereferenced: every byte moves
   * through the layer's copies (rma.c: rma_window_copy). */
  hc_mem_info_t mem;
  int device_regions;     /* dynamic: some attached region is device memory */
  unsigned char *device;  /* per member: its window is device memory */
  size_t *sizes;          /* every member's window size */
  int *disp_units;        /* and displacement unit */
  uint64_t *remote_bases; /* every member's base in its own process */
  unsigned char *via;     /* per target: an HC_RMA_VIA_* */
  char **shared_bases;    /* HC_RMA_VIA_SHARED: each base in this process */
  /* Every member's lock area (rma_locks.h) in a mapping of the node:
   * a shared window's (hcomm_win_share), or one of their own that
   * device windows on one node get (hc_rma_direct_import), whose atomic
   * words serialise accumulates by IPC with the target's own. */
  unsigned char *shared_locks;
  size_t lock_stride;      /* bytes of one target's (rma_locks.h) */
  size_t device_locks_len; /* the device windows' mapping, unmapped at free */
  /* The target's progress is applying one of its operations: a wait
   * for an atomic word inside it progresses without applying the next
   * (rma.c: hc_rma_progress_locked), so they apply in arrival order. */
  int applying;
  long test_die_holding;       /* HCMPI_TEST_RMA_DIE_HOLDING countdown */
  /* Every member created the window with HCOMM_WIN_NIC_ATOMICS; and
   * hcomm_win_nic_atomics granted them (rma_nic.c). */
  int nic_wanted;
  int nic_atomics;
  /* HC_RMA_VIA_RDMA: the engine transport slot that registered this
   * rank's memory (-1: none), its handle, and every member's key. */
  int rdma_slot;
  void *rdma_handle;
  int rdma_device; /* the handle is mem_reg's (device memory), not host_reg's */
  uint64_t *rdma_keys;
  /* HC_RMA_VIA_DEVICE_IPC: each such target's window as imported here
   * (device memory only device-to-device copies may touch) and the
   * import to release at free. */
  char **ipc_bases;
  hc_ipc_handle_t *ipc_imports;
  /* and what the device layer says each import is (its kind and the
   * device it was imported on; host: no copies with host memory). */
  hc_mem_info_t *ipc_mem;
  /* HC_RMA_VIA_DEVICE_IPC puts and gets between device memory and an
   * import are queued on hcmpi's stream of (dev_kind, dev_device), not
   * waited for at issue: how many towards each target and in all since
   * the last hc_rma_device_drain, which the completing calls run (flush,
   * unlock, fence, complete, free), and the requests (MPI_Rput, MPI_Rget)
   * that complete once their copy is done (rma_direct.c). */
  unsigned *dev_pending;
  unsigned dev_queued;
  hc_mem_kind_t dev_kind;
  int dev_device;
  struct hc_rma_devreq *dev_reqs;
  /* The mark hc_rma_device_drain records and waits for, reserved before
   * the first copy is queued so that a drain never needs memory; of
   * dev_kind once reserved, freed with the window. */
  struct hc_devchunk *dev_drain;
  hc_rma_region_t *regions;
  hcomm_rma_combine_fn combine;
  /* A large message buffer kept for the next large message of either
   * side (rma.c: rma_buf_alloc), so a stream of big operations does not
   * fault fresh pages in for each one. */
  void *spare;
  size_t spare_cap;
  /* target side */
  hc_rma_arrival_t *arr_head, *arr_tail;
  int excl_holder; /* rank holding the exclusive lock, or -1 */
  int shared_holders;
  unsigned char *held; /* per origin: the HCOMM_LOCK_* it holds here, or 0 */
  int failures_seen;   /* hc_engine.failed_peers when last checked */
  hc_rma_waiter_t *wait_head, *wait_tail;
  int posted;        /* an exposure epoch (MPI_Win_post) is open */
  int post_count;    /* origins it was posted to */
  int *exposed;      /* and who they are (to fail the wait if one dies) */
  int completes_got; /* MPI_Win_complete notices arrived */
  /* Post and complete are words in the lock areas (rma_locks.h), not
   * messages: every member maps them (a shared window) and its transport
   * can wake each (the same answer on every member, hcomm_win_share).
   * How many completions of this rank's word and posts of each target's
   * word were taken so far. */
  int pscw_flags;
  uint32_t completes_taken;
  uint32_t *posts_taken;
  /* origin side */
  hc_rma_pending_t *pending;
  int npending; /* of them, operations towards a target */
  int next_tag;
  unsigned char *dirty;  /* per target: operations since its last flush */
  unsigned char *locked; /* per target: HCOMM_LOCK_* held, or 0 */
  int lock_all;
  int fence_open;
  /* The fence's barrier, MPI_Win_start's wait for the posts and
   * MPI_Win_wait's for the completions, as the wait policy judges each
   * (rma_sync.c). */
  hc_progress_recurring_t fence_wait, start_wait, exposure_wait;
  int started; /* a PSCW access epoch is open */
  int *access; /* its targets */
  int naccess;
  hc_status_t error; /* first failure of an operation since the last wait */
  /* First failure a target reported (HC_RMA_FAILED) since the last
   * completing call (flush, unlock, fence, complete), which returns it;
   * apart from error, so a lock's wait does not take it. */
  hc_status_t remote_error;
  struct hcomm_win *next_win;
};

/* Target's lock area (rma_locks.h) in the mapping every member shares. */
static inline hc_winlock_t *hc_rma_lock_area(const struct hcomm_win *win,
                                             int target) {
  return (hc_winlock_t *)(void *)(win->shared_locks +
                                  (size_t)target * win->lock_stride);
}

/* Engine-internal pieces rma_sync.c shares with rma.c (lock held). */
struct hcomm_win;
/* Sends a control message of kind to target (op: lock type); with reply,
 * the receive of the answer counts as an operation towards target, so
 * hc_rma_wait(win, NULL, target) waits for it. */
hc_status_t hc_rma_send_ctl(struct hcomm_win *win, int target, int kind, int op,
                            int reply);
/* Blocks (progressing) until req (NULL: none) is done and no operation of
 * this rank towards target (-1: any; HC_RMA_NO_TARGET: none) awaits its
 * reply or send.  Returns the first failure of an operation meanwhile. */
#define HC_RMA_NO_TARGET (-2)
hc_status_t hc_rma_wait(struct hcomm_win *win, hcomm_request_t *req,
                        int target);
/* 1 when nothing of the window is in flight and no failure waits to be
 * reported (direct operations only, say): hc_rma_wait(win, NULL, any)
 * would return HC_OK without a poll. */
static inline int hc_rma_quiet(const struct hcomm_win *win) {
  return win->pending == NULL && win->error == HC_OK &&
         win->remote_error == HC_OK;
}
/* HC_OK, or why target's process is gone (lock held). */
hc_status_t hc_rma_target_failure(const struct hcomm_win *win, int target);
/* The first of n ranks (NULL: all members) whose process is gone: why,
 * else HC_OK (lock held). */
hc_status_t hc_rma_ranks_failure(const struct hcomm_win *win, const int *ranks,
                                 int n);
/* rma_direct.c, lock held: waits for every device copy of the window
 * still queued (and completes the requests waiting for them); the first
 * failure among them, else HC_OK. */
hc_status_t hc_rma_device_drain(struct hcomm_win *win);
/* hc_rma_device_drain when copies towards target (-1: any) are queued;
 * nothing at all otherwise.  Inline: every completing call asks. */
static inline hc_status_t hc_rma_device_complete(struct hcomm_win *win,
                                                 int target) {
  if (target >= 0 ? win->dev_pending[target] == 0 : win->dev_queued == 0)
    return HC_OK;
  return hc_rma_device_drain(win);
}
/* Completes the requests whose queued copies are done; how many. */
int hc_rma_device_poll(struct hcomm_win *win);
/* 1 when target is in the group of the open PSCW access epoch. */
int hc_rma_in_access_group(const struct hcomm_win *win, int target);
/* 1 when an operation may go to target in the current epochs.  Inline:
 * the direct copies ask it on every put and get. */
static inline int hc_rma_may_access(const struct hcomm_win *win, int target) {
  return win->fence_open || win->lock_all || win->locked[target] ||
         hc_rma_in_access_group(win, target);
}
/* The header of op's active message (reply_tag 0). */
hc_rma_wire_t hc_rma_wire_of(const hcomm_rma_op_t *op);
/* Applies one data operation described by w at addr (target memory this
 * process can touch; pairs: its w->nsegs (offset, length) pieces) with the
 * origin's data in; old (w->result_bytes, or NULL) receives the data the
 * operation returns.  Shared by the target's active messages and the
 * origin's direct path.  HC_ERR_NOMEM when an accumulate found no memory
 * to combine in (nothing written). */
hc_status_t hc_rma_apply_at(struct hcomm_win *win, const hc_rma_wire_t *w,
                            char *addr, const uint64_t *pairs,
                            const unsigned char *in, unsigned char *old);
/* Copies len bytes between window memory at `at` and the host buffer
 * host (into the window when to_window); ctx is the copier's. */
typedef hc_status_t (*hc_rma_copy_fn)(void *ctx, char *at, unsigned char *host,
                                      size_t len, int to_window);
/* hc_rma_apply_at for window memory that only copy can touch: puts and
 * gets copy each piece; accumulates and compare-and-swap copy the target
 * data to the host, apply there as one piece, and copy it back
 * (compare-and-swap only when it swaps).  The caller keeps other
 * accumulates away meanwhile. */
hc_status_t hc_rma_apply_staged(struct hcomm_win *win, const hc_rma_wire_t *w,
                                char *addr, const uint64_t *pairs,
                                const unsigned char *in, unsigned char *old,
                                hc_rma_copy_fn copy, void *ctx);
/* rma_direct.c, lock held: registers the window's memory with the first
 * transport that offers one-sided access; returns the key peers use, or
 * HC_RMA_NO_KEY.  _deregister undoes it (safe when nothing was). */
uint64_t hc_rma_direct_register(struct hcomm_win *win);
void hc_rma_direct_deregister(struct hcomm_win *win);
/* How each target is reached, once the shape and keys are known
 * (collective with hcomm_win_create). */
void hc_rma_direct_choose(struct hcomm_win *win);
/* Device windows on this node, collective with hcomm_win_create when some
 * member's window is device memory (every member knows from the shape):
 * each exports its own, and imports those of the other local members it
 * can reach, which become HC_RMA_VIA_DEVICE_IPC.  _release closes the
 * imports (before the exporters may free the memory). */
hc_status_t hc_rma_direct_import(struct hcomm_win *win);
/* Closes those imports and frees the device queue's drain mark; lock
 * held, the queue drained (hc_rma_device_complete). */
void hc_rma_direct_release(struct hcomm_win *win);
/* The target's side of the atomic words of device windows' lock areas:
 * holds this rank's own word (1) around applying operation kind from an
 * active message where the window has lock areas and kind is not a put,
 * so it cannot interleave with an accumulate another local rank applies
 * by IPC; 0 when nothing was taken.  _unhold releases what hold took. */
int hc_rma_direct_hold(struct hcomm_win *win, int kind);
void hc_rma_direct_unhold(struct hcomm_win *win, int held);
/* Shared windows: 1 when target's passive-target locks are taken in the
 * mapping with hc_rma_direct_lock/_unlock (type: HCOMM_LOCK_*) instead of
 * messages.  Lock waits (progressing) until granted; both fail with the
 * target's failure once its process is gone. */
static inline int hc_rma_direct_locks(const struct hcomm_win *win, int target) {
  return win->via[target] == HC_RMA_VIA_SHARED;
}
hc_status_t hc_rma_direct_lock(struct hcomm_win *win, int type, int target);
/* Frees what dead members hold of every target's lock area (atomic word,
 * passive-target locks) of a shared window; returns how many holds. */
int hc_rma_direct_release_dead(struct hcomm_win *win);
hc_status_t hc_rma_direct_unlock(struct hcomm_win *win, int type, int target);
/* rma_nic.c: an accumulate kind or atomic read on a window with NIC
 * atomics, one device atomic per element, complete on return; HC_ERR_ARG
 * when op is outside the contract (never HC_ERR_NOT_SUPPORTED). */
hc_status_t hc_rma_nic_move(struct hcomm_win *win, const hcomm_rma_op_t *op);
/* Moves op directly when its target's memory is within reach: HC_OK (or
 * the failure) once done, HC_ERR_NOT_SUPPORTED to send it as an active
 * message instead. */
hc_status_t hc_rma_direct_issue(struct hcomm_win *win, const hcomm_rma_op_t *op,
                                hcomm_request_t *user);

#endif /* HC_RMA_H */
