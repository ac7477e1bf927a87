/*
 * Communicators: a group (world ranks in comm order) plus a context id agreed
 * collectively, so that any sequence of creations and frees on any subsets
 * stays unique among the members.
 *
 * size, world_ranks and rank_of_world describe the group that point-to-point
 * ranks name: the communicator's own group for an intracommunicator, the
 * remote group for an intercommunicator.  That keeps pt2pt.c and proto.c
 * unaware of intercommunicators.  An intercommunicator's local group lives
 * in `local`, an intracommunicator of its own (with its own context id) that
 * also carries the engine's collectives among the local group.
 */
#ifndef HC_COMM_H
#define HC_COMM_H

#include <stdint.h>

#include "hcomm.h"
#include "hcomm/core.h" /* hc_engine, HC_MATCH_KINDS */

struct hcomm_comm {
  int context_id;
  int rank;           /* this process's rank in its (local) group */
  int size;           /* of the group point-to-point addresses */
  int *world_ranks;   /* size entries */
  int *rank_of_world; /* world_size entries, -1 for non-members */
  hcomm_comm_t *local; /* intercommunicator: the local group; else NULL */
  int predefined;     /* world and self are never freed by the user */
  int active_ops;     /* requests not yet complete */
  int free_pending;   /* hcomm_comm_free came while active_ops > 0 */
  unsigned coll_seq;  /* collectives started on it (nbc.c tags) */
  int watched_all;    /* an ANY_SOURCE receive watched every member */
  unsigned persist_seq; /* persistent collectives initialised on it */
  int hccl_plan_next;   /* hcomm_hccl_plan_next: the next schedule's */
  unsigned part_seq;    /* partitioned data tags handed out (part.c) */
  struct hc_shmcoll *shmcoll; /* its shared-memory collectives (shmcoll.c) */
  int shmcoll_deferred;       /* hcomm_coll_shm_defer: make no segment yet */
  unsigned shmcoll_passed; /* collectives run before its segment was made
                              (shmcoll_seg.c; HCMPI_COLL_SHM_AFTER: wanted at
                              once) */
  struct hc_hccl_coll_comm *hccl; /* its HcclComm (coll_hccl.c), or NULL */
  /* An engine-internal communicator that carries part of another's
   * collectives (shmcoll_hier.c): a lost member of that one fails its
   * collectives too, as it would the whole collective's. */
  hcomm_comm_t *fails_with;
  /* An intercommunicator between jobs met at run time, whose leaders'
   * world ranks are not comparable: 1 when this group goes first in a
   * merge where both sides pass the same high, 2 when second; 0 for the
   * others (the lower leader world rank goes first). */
  int merge_order;
  /* Its blocking barrier, as the wait policy judges it (coll.c). */
  hc_progress_recurring_t barrier_wait;
};

/* The matching contexts of one communicator: user point-to-point,
 * collectives, and partitioned point-to-point (part.c), so that no kind
 * ever matches another's messages. */
enum hc_match_kind { HC_CTX_PT2PT = 0, HC_CTX_COLL = 1, HC_CTX_PART = 2 };

/* Matching context of comm for a kind (an hc_match_kind).  The accessors
 * below are inline: every message asks several of them. */
static inline int hc_comm_match_ctx(const hcomm_comm_t *comm, int kind) {
  return HC_MATCH_KINDS * comm->context_id + kind;
}
/* The kind of a matching context index. */
int hc_match_ctx_kind(int match_ctx);
/* Rank in comm of a world rank, -1 when not a member. */
static inline int hc_comm_rank_of_world(const hcomm_comm_t *comm,
                                        int world_rank) {
  if (comm == NULL || world_rank < 0 || world_rank >= hc_engine.npeers)
    return -1;
  return comm->rank_of_world[world_rank];
}
/* World rank of a comm rank (no check). */
static inline int hc_comm_world_of_rank(const hcomm_comm_t *comm, int rank) {
  return comm->world_ranks[rank];
}
/* Counts operations so that a freed communicator outlives them. */
static inline void hc_comm_op_begin(hcomm_comm_t *comm) { comm->active_ops++; }
void hc_comm_op_end(hcomm_comm_t *comm);

/* Releases comm as hcomm_comm_free does, with the engine lock held (an
 * engine-internal communicator owned by another one). */
void hc_comm_release_locked(hcomm_comm_t *comm);
/* Creates world and self (engine init) and destroys them (finalize). */
hc_status_t hc_comm_init_predefined(void);
void hc_comm_fini_predefined(void);
/* Bridges between two processes met at run time (dynamic.c): a
 * communicator of this process (rank 0) and peer (rank 1) on a context id
 * kept for them, for the set-up of an intercommunicator between their
 * groups, one at a time per pair.  Caller holds the lock. */
hcomm_comm_t *hc_comm_link_bridge_new(int peer);
void hc_comm_link_bridge_free(hcomm_comm_t *bridge);
/* Sends out to the bridge's other end and receives its bytes into in
 * (in_bytes at most). */
hc_status_t hc_comm_link_swap_locked(hcomm_comm_t *bridge, const void *out,
                                     size_t out_bytes, void *in,
                                     size_t in_bytes);
/* The intercommunicator between local's group and the n run-time peers
 * remote (in their group's order), agreeing on its context id through
 * bridge at local's leader (NULL elsewhere); merge_order as above.  Every
 * member of local calls it. */
hc_status_t hc_comm_inter_from_link_locked(hcomm_comm_t *local, int leader,
                                           hcomm_comm_t *bridge, int n,
                                           const int *remote, int merge_order,
                                           hcomm_comm_t **newcomm);
/* A barrier over comm on its collective context (point-to-point). */
hc_status_t hc_comm_barrier_locked(hcomm_comm_t *comm);

/* Fault-tolerant creation (ft.c's shrink), which agrees on the ids itself:
 * offer holds for this thread the ids no other agreement has and writes
 * them (HC_COMM_ID_WORDS words, bit 0 set when none was held back;
 * hc_ctxid_hold in ctxid.h); new_agreed makes the
 * communicator on the lowest id of the agreed mask and ends the offer
 * (HC_ERR_AGAIN: another thread held ids back, agree again); withdraw ends
 * an offer that came to nothing. */
#define HC_COMM_ID_WORDS 64
void hc_comm_ids_offer(uint32_t *mask);
void hc_comm_ids_withdraw(void);
hc_status_t hc_comm_new_agreed(uint32_t *mask, int n, const int *world_ranks,
                               hcomm_comm_t **newcomm);
/* The same for an intercommunicator of the nlocal local and nremote remote
 * members: the lowest agreed id for it, the next for its local group (two
 * groups may use one id, as no process is in both). */
hc_status_t hc_comm_new_inter_agreed(uint32_t *mask, int nlocal,
                                     const int *local_world, int nremote,
                                     const int *remote_world,
                                     hcomm_comm_t **newcomm);

#endif /* HC_COMM_H */
