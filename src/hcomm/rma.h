/*
 * One-sided communication inside the engine (rma.c: windows, active
 * messages and their application at the target; rma_sync.c: epochs).
 * See docs/rma.md.
 */
#ifndef HC_RMA_H
#define HC_RMA_H

#include <stddef.h>
#include <stdint.h>

#include "hcomm.h"

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
  HC_RMA_LOCK = 16,    /* op: lock type; reply once granted */
  HC_RMA_UNLOCK = 17,  /* reply once released (earlier operations done) */
  HC_RMA_FLUSH = 18,   /* reply once earlier operations are done */
  HC_RMA_COMPLETE = 19 /* PSCW: the origin's access epoch ended */
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
  struct hc_rma_arrival *next;
} hc_rma_arrival_t;

/* A request this rank started for the window (an operation's send or its
 * reply's receive, a reply the target sends back, a post notice): what to
 * free and whom to tell when it completes. */
typedef struct hc_rma_pending {
  hcomm_request_t *req;
  void *buf;  /* freed at completion */
  int target; /* -1: not an operation towards a target */
  void (*done)(void *arg);
  void *arg;
  hcomm_request_t *user; /* the origin's request (MPI_Rput ...), or NULL */
  struct hc_rma_pending *next;
} hc_rma_pending_t;

/* Memory attached to a dynamic window. */
typedef struct hc_rma_region {
  char *base;
  size_t size;
  struct hc_rma_region *next;
} hc_rma_region_t;

/* A lock request the target cannot grant yet. */
typedef struct hc_rma_waiter {
  int rank, type, reply_tag;
  struct hc_rma_waiter *next;
} hc_rma_waiter_t;

struct hcomm_win {
  hcomm_comm_t *comm;
  int rank, size;
  char *base;
  size_t bytes;
  int dynamic;
  size_t *sizes;   /* every member's window size */
  int *disp_units; /* and displacement unit */
  hc_rma_region_t *regions;
  hcomm_rma_combine_fn combine;
  /* target side */
  hc_rma_arrival_t *arr_head, *arr_tail;
  int excl_holder; /* rank holding the exclusive lock, or -1 */
  int shared_holders;
  hc_rma_waiter_t *wait_head, *wait_tail;
  int posted;        /* an exposure epoch (MPI_Win_post) is open */
  int post_count;    /* origins it was posted to */
  int completes_got; /* MPI_Win_complete notices arrived */
  /* origin side */
  hc_rma_pending_t *pending;
  int npending; /* of them, operations towards a target */
  int next_tag;
  unsigned char *dirty;  /* per target: operations since its last flush */
  unsigned char *locked; /* per target: HCOMM_LOCK_* held, or 0 */
  int lock_all;
  int fence_open;
  int started; /* a PSCW access epoch is open */
  int *access; /* its targets */
  int naccess;
  hc_status_t error; /* first failure of an operation since the last wait */
  struct hcomm_win *next_win;
};

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
/* 1 when an operation may go to target in the current epochs. */
int hc_rma_may_access(const struct hcomm_win *win, int target);

#endif /* HC_RMA_H */
