/*
 * Communicators.  Creating one agrees on a context id free at every member
 * (ctxid.h) through ANDs over the parent's collective context, or the
 * group's, or both groups' through their leaders.  Disjoint results of one
 * split share an id: their groups never exchange messages.
 */
#include "hcomm/comm.h"

#include <stdlib.h>
#include <string.h>

#include "hcomm/coll_hccl.h"
#include "hcomm/core.h"
#include "hcomm/ctxid.h"
#include "hcomm/engine.h"
#include "hcomm/ft.h"
#include "hcomm/nbc.h"
#include "hcomm/shmcoll.h"
#include "util/log.h"
#include "util/secret.h"

_Static_assert(HC_CTXID_WORDS == HC_COMM_ID_WORDS,
               "comm.h names the mask size");
#define COMM_TAG_ALLGATHER (HC_COLL_TAG_ENGINE_BASE + 1)
#define COMM_TAG_BCAST (HC_COLL_TAG_ENGINE_BASE + 2)
#define COMM_TAG_BARRIER (HC_COLL_TAG_ENGINE_BASE + 3)
#define COMM_TAG_LOCAL_BCAST (HC_COLL_TAG_ENGINE_BASE + 4)
#define COMM_TAG_LINK (HC_COLL_TAG_ENGINE_BASE + 5)
/* The context id of the bridges between processes met at run time: taken
 * at init, never offered to a creation. */
#define COMM_LINK_ID 2
/* Creations that name a user tag map it into these reserved windows, so a
 * leader exchange or a group-only agreement never matches coll.c traffic. */
#define COMM_TAG_GROUP_BASE (HC_COLL_TAG_ENGINE_BASE + 0x400)
#define COMM_TAG_INTER_BASE (HC_COLL_TAG_ENGINE_BASE + 0x800)
#define COMM_TAG_WINDOW 0x400
/* Creations from bare groups (MPI_Comm_create_from_group and the
 * intercommunicator form) carry their string tag's hash in windows of their
 * own on the world's collective context, apart from the two above, which
 * MPI_COMM_WORLD's create_group and intercomm_create also use. */
#define COMM_TAG_NAMED_BASE (HC_COLL_TAG_ENGINE_BASE + 0xc00)
#define COMM_TAG_NAMED_INTER_BASE (HC_COLL_TAG_ENGINE_BASE + 0xe00)
#define COMM_TAG_NAMED_WINDOW 0x200

/* One rank's place in a split. */
typedef struct comm_entry {
  int color;
  int key;
} comm_entry_t;

static hcomm_comm_t *comm_world;
static hcomm_comm_t *comm_self;

int hc_match_ctx_kind(int match_ctx) { return match_ctx % HC_MATCH_KINDS; }

/* The key of an agreement (ctxid.h): the parent's context id, then the
 * engine tag of the agreement, the same at every member. */
static uint64_t comm_agree_key(int parent_id, int etag) {
  return (uint64_t)(uint32_t)parent_id << 32 | (uint32_t)etag;
}

static void comm_release(hcomm_comm_t *comm);

static void comm_destroy(hcomm_comm_t *comm) {
  int id = comm->context_id;
  hc_ft_comm_gone(comm);
  hc_ctxid_put(id);
  if (comm->local != NULL)
    comm_release(comm->local);
  hc_shmcoll_free(comm);
  hc_hccl_coll_comm_gone(comm);
  free(comm->world_ranks);
  free(comm->rank_of_world);
  free(comm);
}

/* Destroys now, or once the last outstanding operation completes. */
static void comm_release(hcomm_comm_t *comm) {
  if (comm->active_ops == 0)
    comm_destroy(comm);
  else
    comm->free_pending = 1;
}

void hc_comm_op_end(hcomm_comm_t *comm) {
  if (--comm->active_ops == 0 && comm->free_pending)
    comm_destroy(comm);
}

/* A communicator of n members (world ranks in comm order) on context id;
 * the caller is a member. */
static hcomm_comm_t *comm_new(int id, int n, const int *world_ranks) {
  hcomm_comm_t *comm = calloc(1, sizeof *comm);
  if (comm == NULL)
    return NULL;
  comm->world_ranks = malloc((size_t)n * sizeof(int));
  comm->rank_of_world = malloc((size_t)hc_engine.peers_max * sizeof(int));
  if (comm->world_ranks == NULL || comm->rank_of_world == NULL) {
    free(comm->world_ranks);
    free(comm->rank_of_world);
    free(comm);
    return NULL;
  }
  for (int w = 0; w < hc_engine.peers_max; w++)
    comm->rank_of_world[w] = -1;
  for (int r = 0; r < n; r++) {
    comm->world_ranks[r] = world_ranks[r];
    comm->rank_of_world[world_ranks[r]] = r;
  }
  comm->context_id = id;
  comm->size = n;
  comm->rank = comm->rank_of_world[hc_engine.world_rank];
  hc_ctxid_take(id);
  return comm;
}

static hc_status_t comm_wait_release(hcomm_request_t *req) {
  hc_wait_locked(req);
  hc_status_t rc = req->status.error;
  hc_request_release(req);
  return rc;
}

/* Linear allgather through rank 0: small and only used at creation. */
static hc_status_t comm_allgather_locked(hcomm_comm_t *comm, const void *in,
                                         size_t bytes, void *out) {
  unsigned char *all = out;
  memcpy(all + (size_t)comm->rank * bytes, in, bytes);
  if (comm->size == 1)
    return HC_OK;
  hcomm_request_t *req;
  hc_status_t rc;
  if (comm->rank != 0) {
    rc = hc_isend_locked(in, bytes, 0, COMM_TAG_ALLGATHER, comm,
                         HCOMM_SEND_STANDARD, 1, &req);
    if (rc == HC_OK)
      rc = comm_wait_release(req);
    if (rc != HC_OK)
      return rc;
    rc = hc_irecv_locked(out, bytes * (size_t)comm->size, 0, COMM_TAG_BCAST,
                         comm, 1, &req);
    return rc == HC_OK ? comm_wait_release(req) : rc;
  }
  for (int r = 1; r < comm->size; r++) {
    rc = hc_irecv_locked(all + (size_t)r * bytes, bytes, r, COMM_TAG_ALLGATHER,
                         comm, 1, &req);
    if (rc == HC_OK)
      rc = comm_wait_release(req);
    if (rc != HC_OK)
      return rc;
  }
  for (int r = 1; r < comm->size; r++) {
    rc = hc_isend_locked(out, bytes * (size_t)comm->size, r, COMM_TAG_BCAST,
                         comm, HCOMM_SEND_STANDARD, 1, &req);
    if (rc == HC_OK)
      rc = comm_wait_release(req);
    if (rc != HC_OK)
      return rc;
  }
  return HC_OK;
}

hc_status_t hc_comm_barrier_locked(hcomm_comm_t *comm) {
  for (int dist = 1; dist < comm->size; dist <<= 1) {
    int to = (comm->rank + dist) % comm->size;
    int from = (comm->rank - dist + comm->size) % comm->size;
    hcomm_request_t *rreq, *sreq;
    hc_status_t rc =
        hc_irecv_locked(NULL, 0, from, COMM_TAG_BARRIER, comm, 1, &rreq);
    if (rc != HC_OK)
      return rc;
    rc = hc_isend_locked(NULL, 0, to, COMM_TAG_BARRIER, comm,
                         HCOMM_SEND_STANDARD, 1, &sreq);
    hc_status_t rc2 = comm_wait_release(rreq);
    if (rc == HC_OK)
      rc = comm_wait_release(sreq);
    if (rc == HC_OK)
      rc = rc2;
    if (rc != HC_OK)
      return rc;
  }
  return HC_OK;
}

static hc_status_t comm_send_wait(const void *buf, size_t bytes, int dest,
                                  int tag, hcomm_comm_t *comm) {
  hcomm_request_t *req;
  hc_status_t rc = hc_isend_locked(buf, bytes, dest, tag, comm,
                                   HCOMM_SEND_STANDARD, 1, &req);
  return rc == HC_OK ? comm_wait_release(req) : rc;
}

static hc_status_t comm_recv_wait(void *buf, size_t bytes, int source, int tag,
                                  hcomm_comm_t *comm) {
  hcomm_request_t *req;
  hc_status_t rc = hc_irecv_locked(buf, bytes, source, tag, comm, 1, &req);
  return rc == HC_OK ? comm_wait_release(req) : rc;
}

/* The members of a context-id agreement on comm's collective context: the
 * n ranks listed (the first gathers), or all of comm when ranks is NULL;
 * tag: the engine tag of its messages. */
typedef struct comm_members {
  hcomm_comm_t *comm;
  int n;
  const int *ranks;
  int tag;
} comm_members_t;

static int comm_member(const comm_members_t *m, int i) {
  return m->ranks != NULL ? m->ranks[i] : i;
}

/* In-place AND of words over the members, through the first of them (an
 * hc_ctxid_and_cb). */
static hc_status_t comm_and_members(void *arg, uint32_t *words, size_t n) {
  const comm_members_t *m = arg;
  size_t bytes = n * sizeof *words;
  int root = comm_member(m, 0);
  if (m->comm->rank != root) {
    hc_status_t rc = comm_send_wait(words, bytes, root, m->tag, m->comm);
    return rc == HC_OK ? comm_recv_wait(words, bytes, root, m->tag, m->comm)
                       : rc;
  }
  uint32_t theirs[HC_CTXID_WORDS];
  for (int i = 1; i < m->n; i++) {
    hc_status_t rc =
        comm_recv_wait(theirs, bytes, comm_member(m, i), m->tag, m->comm);
    if (rc != HC_OK)
      return rc;
    for (size_t k = 0; k < n; k++)
      words[k] &= theirs[k];
  }
  for (int i = 1; i < m->n; i++) {
    hc_status_t rc =
        comm_send_wait(words, bytes, comm_member(m, i), m->tag, m->comm);
    if (rc != HC_OK)
      return rc;
  }
  return HC_OK;
}

/* A context id agreed by every member of parent (taken here). */
static hc_status_t comm_agree_id(hcomm_comm_t *parent, int *id) {
  comm_members_t m = {parent, parent->size, NULL, COMM_TAG_ALLGATHER};
  return hc_ctxid_agree_locked(
      comm_agree_key(parent->context_id, COMM_TAG_ALLGATHER), 1,
      comm_and_members, &m, id);
}

static hc_status_t comm_check_parent(hcomm_comm_t *comm, void *out) {
  hc_status_t rc = hc_engine_check();
  if (rc != HC_OK)
    return rc;
  if (comm == NULL)
    return HC_ERR_COMM;
  return out == NULL ? HC_ERR_ARG : HC_OK;
}

/* comm_check_parent for the calls an intercommunicator cannot make. */
static hc_status_t comm_check_intra(hcomm_comm_t *comm, void *out) {
  hc_status_t rc = comm_check_parent(comm, out);
  if (rc == HC_OK && comm->local != NULL)
    rc = HC_ERR_COMM;
  return rc;
}

typedef struct comm_member {
  int key;
  int rank;
} comm_member_t;

static int comm_member_cmp(const void *a, const void *b) {
  const comm_member_t *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The size entries of all whose color is color, ordered by (key, rank),
 * as world ranks (from world_ranks, in rank order) into world; *n of
 * them. */
static hc_status_t comm_split_members(int size, const int *world_ranks,
                                      const comm_entry_t *all, int color,
                                      int *world, int *n) {
  comm_member_t *m = malloc((size_t)size * sizeof *m);
  if (m == NULL)
    return HC_ERR_NOMEM;
  *n = 0;
  for (int r = 0; r < size; r++) {
    if (all[r].color != color)
      continue;
    m[*n].key = all[r].key;
    m[*n].rank = r;
    (*n)++;
  }
  qsort(m, (size_t)*n, sizeof *m, comm_member_cmp);
  for (int i = 0; i < *n; i++)
    world[i] = world_ranks[m[i].rank];
  free(m);
  return HC_OK;
}

/* Members of my color ordered by (key, parent rank), as world ranks. */
static hc_status_t comm_build_split(hcomm_comm_t *parent,
                                    const comm_entry_t *all, int color, int id,
                                    hcomm_comm_t **newcomm) {
  int *world = malloc((size_t)parent->size * sizeof *world);
  int n = 0;
  if (world == NULL)
    return HC_ERR_NOMEM;
  hc_status_t rc = comm_split_members(parent->size, parent->world_ranks, all,
                                      color, world, &n);
  if (rc == HC_OK) {
    *newcomm = comm_new(id, n, world);
    rc = *newcomm != NULL ? HC_OK : HC_ERR_NOMEM;
  }
  free(world);
  return rc;
}

/* Every member learns every (color, key), then all agree on one id. */
static hc_status_t comm_split_locked(hcomm_comm_t *comm, int color, int key,
                                     hcomm_comm_t **newcomm) {
  comm_entry_t mine = {.color = color, .key = key};
  comm_entry_t *all = malloc((size_t)comm->size * sizeof *all);
  int id = -1;
  *newcomm = NULL;
  if (all == NULL)
    return HC_ERR_NOMEM;
  hc_status_t rc = comm_allgather_locked(comm, &mine, sizeof mine, all);
  if (rc == HC_OK)
    rc = comm_agree_id(comm, &id);
  if (rc == HC_OK && color != HCOMM_UNDEFINED)
    rc = comm_build_split(comm, all, color, id, newcomm);
  if (id >= 0 && *newcomm == NULL)
    hc_ctxid_put(id); /* agreed, but nothing made on it here */
  free(all);
  return rc;
}

static hc_status_t comm_inter_split_locked(hcomm_comm_t *inter, int color,
                                           int key, hcomm_comm_t **newcomm);

/* An intercommunicator splits both groups at once (see below). */
static hc_status_t comm_split_any_locked(hcomm_comm_t *comm, int color, int key,
                                         hcomm_comm_t **newcomm) {
  if (comm->local != NULL)
    return comm_inter_split_locked(comm, color, key, newcomm);
  return comm_split_locked(comm, color, key, newcomm);
}

hc_status_t hcomm_comm_split(hcomm_comm_t *comm, int color, int key,
                             hcomm_comm_t **newcomm) {
  hc_engine_lock();
  hc_status_t rc = comm_check_parent(comm, newcomm);
  if (rc == HC_OK && color < 0 && color != HCOMM_UNDEFINED)
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = comm_split_any_locked(comm, color, key, newcomm);
  hc_engine_unlock();
  return rc;
}

static hc_status_t comm_dup_intra_locked(hcomm_comm_t *comm,
                                         hcomm_comm_t **newcomm) {
  int id;
  hc_status_t rc = comm_agree_id(comm, &id);
  if (rc == HC_OK) {
    *newcomm = comm_new(id, comm->size, comm->world_ranks);
    rc = *newcomm != NULL ? HC_OK : HC_ERR_NOMEM;
    if (*newcomm == NULL)
      hc_ctxid_put(id);
  }
  return rc;
}

static hc_status_t comm_dup_inter_locked(hcomm_comm_t *inter,
                                         hcomm_comm_t **newcomm);

hc_status_t hcomm_comm_dup(hcomm_comm_t *comm, hcomm_comm_t **newcomm) {
  hc_engine_lock();
  hc_status_t rc = comm_check_parent(comm, newcomm);
  if (rc == HC_OK)
    rc = comm->local != NULL ? comm_dup_inter_locked(comm, newcomm)
                             : comm_dup_intra_locked(comm, newcomm);
  hc_engine_unlock();
  return rc;
}

static hc_status_t comm_check_list(const hcomm_comm_t *comm, int n,
                                   const int *ranks, int *me) {
  *me = 0;
  if (n < 0 || n > comm->size || (n > 0 && ranks == NULL))
    return HC_ERR_ARG;
  for (int i = 0; i < n; i++) {
    if (ranks[i] < 0 || ranks[i] >= comm->size)
      return HC_ERR_RANK;
    for (int j = 0; j < i; j++)
      if (ranks[j] == ranks[i])
        return HC_ERR_RANK;
    if (ranks[i] == comm->rank)
      *me = 1;
  }
  return HC_OK;
}

/* Parent and rank list of a create or create_group; *me: whether the caller
 * is in the list. */
static hc_status_t comm_check_create(hcomm_comm_t *comm, int n,
                                     const int *ranks, hcomm_comm_t **newcomm,
                                     int *me) {
  hc_status_t rc = comm_check_intra(comm, newcomm);
  if (rc != HC_OK)
    return rc;
  *newcomm = NULL;
  return comm_check_list(comm, n, ranks, me);
}

hc_status_t hcomm_comm_create(hcomm_comm_t *comm, int n, const int *ranks,
                              hcomm_comm_t **newcomm) {
  hc_engine_lock();
  int me = 0;
  hc_status_t rc = comm_check_create(comm, n, ranks, newcomm, &me);
  int *world = NULL;
  int id = -1;
  if (rc == HC_OK)
    rc = comm_agree_id(comm, &id);
  if (rc == HC_OK && me) {
    world = malloc((size_t)n * sizeof *world);
    rc = world == NULL ? HC_ERR_NOMEM : HC_OK;
    for (int i = 0; rc == HC_OK && i < n; i++)
      world[i] = comm->world_ranks[ranks[i]];
    if (rc == HC_OK)
      *newcomm = comm_new(id, n, world);
    if (rc == HC_OK && *newcomm == NULL)
      rc = HC_ERR_NOMEM;
  }
  if (id >= 0 && *newcomm == NULL)
    hc_ctxid_put(id);
  free(world);
  hc_engine_unlock();
  return rc;
}

/* Progress until neither comm nor, on an intercommunicator, its local
 * group has an operation in flight. */
hc_status_t hcomm_comm_quiesce(hcomm_comm_t *comm) {
  hc_engine_lock();
  hc_status_t rc = comm_check_parent(comm, comm);
  long spins = 0;
  while (rc == HC_OK &&
         (comm->active_ops > 0 ||
          (comm->local != NULL && comm->local->active_ops > 0))) {
    if (hc_progress_locked() > 0)
      spins = 0;
    else
      hc_idle_locked(&spins);
  }
  hc_engine_unlock();
  return rc;
}

void hc_comm_release_locked(hcomm_comm_t *comm) { comm_release(comm); }

hc_status_t hcomm_comm_free(hcomm_comm_t *comm) {
  if (comm == NULL || comm->predefined)
    return HC_ERR_COMM;
  hc_engine_lock();
  if (comm == hc_engine.parent)
    hc_engine.parent = NULL; /* hcomm_comm_parent gives NULL from now on */
  comm_release(comm);
  hc_engine_unlock();
  return HC_OK;
}

static int comm_compare_groups(const hcomm_comm_t *a, const hcomm_comm_t *b) {
  if (a->size != b->size)
    return HCOMM_UNEQUAL;
  int same_order = 1;
  for (int r = 0; r < a->size; r++) {
    int w = a->world_ranks[r];
    if (b->rank_of_world[w] < 0)
      return HCOMM_UNEQUAL;
    if (b->world_ranks[r] != w)
      same_order = 0;
  }
  return same_order ? HCOMM_CONGRUENT : HCOMM_SIMILAR;
}

/* Intercommunicators compare both groups; the weaker answer wins. */
int hcomm_comm_compare(const hcomm_comm_t *a, const hcomm_comm_t *b) {
  if (a == b)
    return HCOMM_IDENT;
  if (a == NULL || b == NULL || (a->local == NULL) != (b->local == NULL))
    return HCOMM_UNEQUAL;
  int result = comm_compare_groups(a, b);
  if (a->local != NULL) {
    int local = comm_compare_groups(a->local, b->local);
    if (local > result)
      result = local;
  }
  return result;
}

hcomm_comm_t *hcomm_comm_world(void) { return comm_world; }
hcomm_comm_t *hcomm_comm_self(void) { return comm_self; }

int hcomm_comm_rank(const hcomm_comm_t *comm) {
  return comm != NULL ? comm->rank : -1;
}

int hcomm_comm_size(const hcomm_comm_t *comm) {
  if (comm == NULL)
    return -1;
  return comm->local != NULL ? comm->local->size : comm->size;
}

int hcomm_comm_world_rank(const hcomm_comm_t *comm, int rank) {
  if (comm != NULL && comm->local != NULL)
    comm = comm->local;
  if (comm == NULL || rank < 0 || rank >= comm->size)
    return -1;
  return comm->world_ranks[rank];
}

int hcomm_comm_is_inter(const hcomm_comm_t *comm) {
  return comm != NULL && comm->local != NULL;
}

int hcomm_comm_remote_size(const hcomm_comm_t *comm) {
  return hcomm_comm_is_inter(comm) ? comm->size : 0;
}

int hcomm_comm_remote_world_rank(const hcomm_comm_t *comm, int rank) {
  if (!hcomm_comm_is_inter(comm) || rank < 0 || rank >= comm->size)
    return -1;
  return comm->world_ranks[rank];
}

int hcomm_comm_peer_size(const hcomm_comm_t *comm) {
  return comm != NULL ? comm->size : -1;
}

hc_status_t hc_comm_init_predefined(void) {
  hc_ctxid_init();
  int n = hc_engine.world_size;
  int *world = malloc((size_t)n * sizeof *world);
  if (world == NULL)
    return HC_ERR_NOMEM;
  for (int r = 0; r < n; r++)
    world[r] = r;
  comm_world = comm_new(0, n, world);
  comm_self = comm_new(1, 1, &hc_engine.world_rank);
  free(world);
  if (comm_world == NULL || comm_self == NULL) {
    hc_comm_fini_predefined();
    return HC_ERR_NOMEM;
  }
  comm_world->predefined = 1;
  comm_self->predefined = 1;
  hc_ctxid_take(COMM_LINK_ID);
  return HC_OK;
}

void hc_comm_fini_predefined(void) {
  if (comm_world != NULL)
    comm_destroy(comm_world);
  if (comm_self != NULL)
    comm_destroy(comm_self);
  comm_world = NULL;
  comm_self = NULL;
}

/* ---- creation over a group, split by node -------------------------------- */

/* etag: the engine tag of the agreement, in one of the reserved windows. */
static hc_status_t comm_create_group_locked(hcomm_comm_t *comm, int n,
                                            const int *ranks, int etag,
                                            hcomm_comm_t **newcomm) {
  comm_members_t m = {comm, n, ranks, etag};
  int id = -1;
  hc_status_t rc = hc_ctxid_agree_locked(comm_agree_key(comm->context_id, etag),
                                         1, comm_and_members, &m, &id);
  if (rc != HC_OK)
    return rc;
  int *world = malloc((size_t)n * sizeof *world);
  if (world == NULL) {
    hc_ctxid_put(id);
    return HC_ERR_NOMEM;
  }
  for (int i = 0; i < n; i++)
    world[i] = comm->world_ranks[ranks[i]];
  *newcomm = comm_new(id, n, world);
  free(world);
  if (*newcomm == NULL)
    hc_ctxid_put(id);
  return *newcomm != NULL ? HC_OK : HC_ERR_NOMEM;
}

/* ---- fault-tolerant creation (ft.c's shrink) ----------------------------- */

void hc_comm_ids_offer(uint32_t *mask) { hc_ctxid_hold(mask); }

void hc_comm_ids_withdraw(void) { hc_ctxid_unhold(); }

/* The ids were held at every member (hc_ctxid_hold), so the lowest of the
 * AND is free everywhere; bit 0 says whether anyone held some back. */
/* Takes the lowest id set in an agreed mask out of it; -1 when none is. */
static int comm_mask_pop(uint32_t *mask) {
  for (int w = 0; w < HC_CTXID_WORDS; w++)
    if (mask[w] != 0) {
      int id = w * 32 + __builtin_ctz(mask[w]);
      mask[w] &= ~(1u << (id % 32));
      return id;
    }
  return -1;
}

hc_status_t hc_comm_new_agreed(uint32_t *mask, int n, const int *world_ranks,
                               hcomm_comm_t **newcomm) {
  int open = (int)(mask[0] & 1u);
  mask[0] &= ~1u;
  int id = comm_mask_pop(mask);
  if (id >= 0)
    *newcomm = comm_new(id, n, world_ranks);
  hc_ctxid_unhold();
  if (id < 0)
    return open ? HC_ERR_NO_CONTEXT : HC_ERR_AGAIN;
  return *newcomm != NULL ? HC_OK : HC_ERR_NOMEM;
}

hc_status_t hcomm_comm_create_group(hcomm_comm_t *comm, int n, const int *ranks,
                                    int tag, hcomm_comm_t **newcomm) {
  hc_engine_lock();
  int me = 0;
  hc_status_t rc = comm_check_create(comm, n, ranks, newcomm, &me);
  if (rc == HC_OK && (!me || tag < 0))
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = comm_create_group_locked(
        comm, n, ranks, COMM_TAG_GROUP_BASE + tag % COMM_TAG_WINDOW, newcomm);
  hc_engine_unlock();
  return rc;
}

/* The node's lowest world rank names the node: every rank of a node
 * computed the same node-local list at init.  On an intercommunicator the
 * result pairs the members of one node in the local group with those of
 * the same node in the remote group. */
hc_status_t hcomm_comm_split_shared(hcomm_comm_t *comm, int join, int key,
                                    hcomm_comm_t **newcomm) {
  hc_engine_lock();
  hc_status_t rc = comm_check_parent(comm, newcomm);
  int color = join ? hc_engine.local_world_ranks[0] : HCOMM_UNDEFINED;
  if (rc == HC_OK)
    rc = comm_split_any_locked(comm, color, key, newcomm);
  hc_engine_unlock();
  return rc;
}

/* ---- non-blocking dup ------------------------------------------------------
 * hcomm_comm_idup must not block: its context ids are agreed (ctxid.h) by a
 * schedule on the parent (nbc.c) that the engine's progress advances while
 * the caller goes on.  A round: offer; AND of the offers; vote; AND of the
 * votes; decide (take the ids and make the duplicate, or run another
 * round). */

static hcomm_comm_t *comm_new_inter(int id, hcomm_comm_t *local, int n,
                                    const int *remote_world);

typedef struct comm_idup {
  hcomm_comm_t *parent;
  hcomm_comm_t **out;
  uint64_t key;
  int begun; /* agree is in flight (begun in the first round) */
  hc_ctxid_agreement_t agree;
  uint32_t mask[HC_CTXID_WORDS];
  uint32_t theirs[HC_CTXID_WORDS]; /* intercommunicator: the other group's */
  uint32_t vote;
  int nids;  /* ids needed: 2 for an intercommunicator (its local group) */
  int id[2]; /* agreed and taken, not yet made into the duplicate; -1 */
} comm_idup_t;

static void comm_band32(const void *in, void *inout, size_t count, void *ctx) {
  const uint32_t *a = in;
  uint32_t *b = inout;
  (void)ctx;
  for (size_t i = 0; i < count; i++)
    b[i] &= a[i];
}

static void comm_idup_put(comm_idup_t *d) {
  for (int i = 0; i < 2; i++) {
    if (d->id[i] >= 0)
      hc_ctxid_put(d->id[i]);
    d->id[i] = -1;
  }
}

static void comm_idup_offer(hc_nbc_sched_t *s, void *arg) {
  comm_idup_t *d = arg;
  (void)s;
  if (!d->begun)
    hc_ctxid_begin(&d->agree, d->key, d->nids);
  d->begun = 1;
  hc_ctxid_offer(&d->agree, d->mask);
}

static void comm_idup_vote(hc_nbc_sched_t *s, void *arg) {
  comm_idup_t *d = arg;
  (void)s;
  d->vote = hc_ctxid_vote(&d->agree, d->mask);
}

/* The duplicate on the agreed ids. */
static hcomm_comm_t *comm_idup_make(comm_idup_t *d) {
  hcomm_comm_t *p = d->parent;
  if (p->local == NULL)
    return comm_new(d->id[0], p->size, p->world_ranks);
  hcomm_comm_t *lc = comm_new(d->id[1], p->local->size, p->local->world_ranks);
  hcomm_comm_t *inter =
      lc != NULL ? comm_new_inter(d->id[0], lc, p->size, p->world_ranks) : NULL;
  if (inter != NULL)
    inter->merge_order = p->merge_order;
  if (inter == NULL && lc != NULL) {
    comm_destroy(lc);
    d->id[1] = -1; /* released with lc */
  }
  return inter;
}

static void comm_idup_attempt(hc_nbc_sched_t *s, comm_idup_t *d);

static void comm_idup_decide(hc_nbc_sched_t *s, void *arg) {
  comm_idup_t *d = arg;
  hc_status_t rc = hc_ctxid_decide(&d->agree, d->vote, d->id);
  if (rc == HC_OK) {
    *d->out = comm_idup_make(d);
    if (*d->out == NULL) {
      hc_nbc_fail(s, HC_ERR_NOMEM); /* the cleanup puts the ids back */
    } else {
      d->id[0] = -1;
      d->id[1] = -1;
    }
  } else if (rc == HC_ERR_AGAIN) {
    hc_nbc_yield(s); /* the agreement that goes first must move */
    comm_idup_attempt(s, d);
  } else {
    hc_nbc_fail(s, rc);
  }
}

/* In-place AND of words at every member: of the parent, or of both groups
 * of an intercommunicator (an allreduce in each group, the leaders swap
 * theirs, each group learns the other's and combines). */
static void comm_idup_and(hc_nbc_sched_t *s, comm_idup_t *d, uint32_t *words,
                          size_t n) {
  hcomm_comm_t *p = d->parent;
  if (p->local == NULL) {
    hc_nbc_add_allreduce(s, words, n);
    return;
  }
  hc_nbc_set_comm(s, p->local);
  hc_nbc_add_allreduce(s, words, n);
  hc_nbc_set_comm(s, p);
  if (p->local->rank == 0) {
    hc_nbc_add_recv(s, d->theirs, n * sizeof *words, 0);
    hc_nbc_add_send(s, words, n * sizeof *words, 0);
  }
  hc_nbc_set_comm(s, p->local);
  hc_nbc_add_bcast(s, d->theirs, n * sizeof *words, 0);
  hc_nbc_add_combine(s, d->theirs, words, n);
}

static void comm_idup_attempt(hc_nbc_sched_t *s, comm_idup_t *d) {
  hc_nbc_add_call(s, comm_idup_offer, d);
  comm_idup_and(s, d, d->mask, HC_CTXID_WORDS);
  hc_nbc_add_call(s, comm_idup_vote, d);
  comm_idup_and(s, d, &d->vote, 1);
  hc_nbc_add_call(s, comm_idup_decide, d);
}

/* Runs with the engine lock held when the schedule is freed. */
static void comm_idup_cleanup(void *arg) {
  comm_idup_t *d = arg;
  if (d->begun)
    hc_ctxid_end(&d->agree);
  comm_idup_put(d);
  free(d);
}

/* An intercommunicator's duplicate takes two ids: its own and its local
 * group's. */
hc_status_t hcomm_comm_idup(hcomm_comm_t *comm, hcomm_comm_t **newcomm,
                            hcomm_request_t **req) {
  static const hcomm_reduce_op_t band = {comm_band32, NULL, sizeof(uint32_t),
                                         1};
  if (comm == NULL)
    return HC_ERR_COMM;
  if (newcomm == NULL || req == NULL)
    return HC_ERR_ARG;
  comm_idup_t *d = calloc(1, sizeof *d);
  hc_nbc_sched_t *s = NULL;
  if (d == NULL || hc_nbc_new(comm, &band, &s) != HC_OK) {
    free(d);
    return HC_ERR_NOMEM;
  }
  *d = (comm_idup_t){.parent = comm, .out = newcomm, .id = {-1, -1}};
  d->nids = comm->local != NULL ? 2 : 1;
  /* coll_seq: the parent's collectives start in one order everywhere. */
  d->key = (uint64_t)comm->context_id << 32 | comm->coll_seq;
  hc_nbc_set_cleanup(s, comm_idup_cleanup, d);
  comm_idup_attempt(s, d);
  return hc_nbc_start(s, req);
}

/* ---- intercommunicators -------------------------------------------------- */

/* What one group's leader tells the other's. */
typedef struct comm_bridge_msg {
  int size;
  int high;
  int bridge_id; /* the bridge's context id: the agreement's key */
  int unused;
  hc_proc_name_t leader; /* the group's first member (merge's order) */
} comm_bridge_msg_t;

/* Two groups that agree through their leaders: local's members, its
 * leader, and the bridge over which the leaders talk (peer: the other
 * leader's rank there; tag: the engine tag of their messages). */
typedef struct comm_bridge {
  hcomm_comm_t *local;
  int leader;
  hcomm_comm_t *bridge;
  int peer;
  int tag;
} comm_bridge_t;

/* Linear broadcast from root over comm's collective context. */
static hc_status_t comm_bcast_locked(hcomm_comm_t *comm, int root, void *buf,
                                     size_t bytes) {
  if (comm->rank != root)
    return comm_recv_wait(buf, bytes, root, COMM_TAG_LOCAL_BCAST, comm);
  for (int r = 0; r < comm->size; r++) {
    if (r == root)
      continue;
    hc_status_t rc = comm_send_wait(buf, bytes, r, COMM_TAG_LOCAL_BCAST, comm);
    if (rc != HC_OK)
      return rc;
  }
  return HC_OK;
}

/* Leader-to-leader swap over bridge (both post the receive first). */
static hc_status_t comm_swap_locked(hcomm_comm_t *bridge, int peer, int tag,
                                    const void *out, size_t out_bytes, void *in,
                                    size_t in_bytes) {
  hcomm_request_t *rreq, *sreq;
  hc_status_t rc = hc_irecv_locked(in, in_bytes, peer, tag, bridge, 1, &rreq);
  if (rc != HC_OK)
    return rc;
  rc = hc_isend_locked(out, out_bytes, peer, tag, bridge, HCOMM_SEND_STANDARD,
                       1, &sreq);
  hc_status_t rc2 = comm_wait_release(rreq);
  if (rc == HC_OK)
    rc = comm_wait_release(sreq);
  return rc == HC_OK ? rc2 : rc;
}

/* The leaders swap out (bytes, significant at the leader) and every
 * member of local receives the other leader's into in. */
static hc_status_t comm_bridge_swap(const comm_bridge_t *b, const void *out,
                                    void *in, size_t bytes) {
  hc_status_t rc = HC_OK;
  if (b->local->rank == b->leader)
    rc = comm_swap_locked(b->bridge, b->peer, b->tag, out, bytes, in, bytes);
  return rc == HC_OK ? comm_bcast_locked(b->local, b->leader, in, bytes) : rc;
}

/* In-place AND of words over both groups (an hc_ctxid_and_cb). */
static hc_status_t comm_and_bridge(void *arg, uint32_t *words, size_t n) {
  const comm_bridge_t *b = arg;
  comm_members_t m = {b->local, b->local->size, NULL, b->tag};
  uint32_t theirs[HC_CTXID_WORDS];
  hc_status_t rc = comm_and_members(&m, words, n);
  if (rc == HC_OK)
    rc = comm_bridge_swap(b, words, theirs, n * sizeof *words);
  for (size_t k = 0; rc == HC_OK && k < n; k++)
    words[k] &= theirs[k];
  return rc;
}

/* The leaders swap *mine (every member learns *theirs), then both groups
 * agree on an id (taken here). */
static hc_status_t comm_bridge_agree(comm_bridge_t *b, comm_bridge_msg_t *mine,
                                     comm_bridge_msg_t *theirs, int *id) {
  if (b->local->rank == b->leader)
    mine->bridge_id = b->bridge->context_id;
  hc_status_t rc = comm_bridge_swap(b, mine, theirs, sizeof *mine);
  if (rc != HC_OK)
    return rc;
  return hc_ctxid_agree_locked(comm_agree_key(theirs->bridge_id, b->tag), 1,
                               comm_and_bridge, b, id);
}

/* An intercommunicator on id over local (adopted) and the remote group. */
static hcomm_comm_t *comm_new_inter(int id, hcomm_comm_t *local, int n,
                                    const int *remote_world) {
  hcomm_comm_t *comm = comm_new(id, n, remote_world);
  if (comm == NULL)
    return NULL;
  comm->rank = local->rank;
  comm->local = local;
  return comm;
}

/* ft.c's shrink of an intercommunicator (comm.h): the two lowest agreed
 * ids, the intercommunicator's and its local group's. */
hc_status_t hc_comm_new_inter_agreed(uint32_t *mask, int nlocal,
                                     const int *local_world, int nremote,
                                     const int *remote_world,
                                     hcomm_comm_t **newcomm) {
  int open = (int)(mask[0] & 1u);
  mask[0] &= ~1u;
  int inter_id = comm_mask_pop(mask);
  int local_id = comm_mask_pop(mask);
  hcomm_comm_t *local = NULL;
  *newcomm = NULL;
  if (local_id >= 0 && (local = comm_new(local_id, nlocal, local_world)))
    *newcomm = comm_new_inter(inter_id, local, nremote, remote_world);
  if (local != NULL && *newcomm == NULL)
    comm_release(local);
  hc_ctxid_unhold();
  if (local_id < 0)
    return open ? HC_ERR_NO_CONTEXT : HC_ERR_AGAIN;
  return *newcomm != NULL ? HC_OK : HC_ERR_NOMEM;
}

/* etag: the engine tag of the leaders' exchange, in a reserved window. */
/* The names of comm's members, in rank order (malloc'd). */
static hc_proc_name_t *comm_names(const hcomm_comm_t *comm) {
  hc_proc_name_t *names = malloc((size_t)comm->size * sizeof *names);
  for (int r = 0; names != NULL && r < comm->size; r++)
    names[r] = hc_peer_name(comm->world_ranks[r]);
  return names;
}

/* An accepting member's entry in the linking of two jobs' groups. */
typedef struct comm_link_entry {
  int32_t status;                 /* its listener opened (or it needs none) */
  char addr[HC_DYNAMIC_ADDR_MAX]; /* "" when it lacks no link */
} comm_link_entry_t;

/* What the accepting leader hands the dialing group. */
typedef struct comm_link_offer {
  char token[HC_SECRET_HEX];
  comm_link_entry_t members[]; /* the accepting group's, in rank order */
} comm_link_offer_t;

/* The accepting group's part: members lacking links listen, the leader
 * sends their addresses and a fresh token to the other leader and shares
 * the token, and each accepts the dials of the members it lacks. */
static hc_status_t comm_link_accept(const comm_bridge_t *b, int nremote,
                                    const hc_proc_name_t *rnames, int lacking,
                                    int *remote) {
  hcomm_comm_t *lc = b->local;
  size_t bytes =
      sizeof(comm_link_offer_t) + (size_t)lc->size * sizeof(comm_link_entry_t);
  comm_link_offer_t *offer = calloc(1, bytes);
  comm_link_entry_t mine = {HC_OK, ""};
  void *listener = NULL;
  if (offer == NULL)
    return HC_ERR_NOMEM; /* the others wait out their timeouts */
  if (lacking > 0)
    mine.status = hc_dynamic_listen_locked(mine.addr, &listener);
  hc_status_t rc =
      comm_allgather_locked(lc, &mine, sizeof mine, offer->members);
  if (rc == HC_OK && lc->rank == b->leader &&
      hc_secret_new(offer->token, sizeof offer->token) != 0)
    offer->members[b->leader].status = HC_ERR_SYSTEM;
  if (rc == HC_OK && lc->rank == b->leader)
    rc = comm_swap_locked(b->bridge, b->peer, b->tag, offer, bytes, NULL, 0);
  if (rc == HC_OK)
    rc = comm_bcast_locked(lc, b->leader, offer, bytes);
  for (int r = 0; rc == HC_OK && r < lc->size; r++)
    rc = offer->members[r].status;
  if (rc == HC_OK && lacking > 0)
    rc = hc_dynamic_accept_locked(listener, offer->token, lacking, nremote,
                                  rnames, remote);
  if (rc != HC_OK)
    hc_log(HC_LOG_ERROR, "comm",
           "rank %d: linking another job's group: accepting %d: %s",
           hc_engine.world_rank, lacking, hcomm_strerror(rc));
  hc_dynamic_unlisten_locked(listener);
  free(offer);
  return rc;
}

/* The dialing group's part: the leader receives the offer and shares it;
 * each member dials the accepting members it lacks. */
static hc_status_t comm_link_dial(const comm_bridge_t *b, int nremote,
                                  const hc_proc_name_t *rnames, int *remote) {
  hcomm_comm_t *lc = b->local;
  size_t bytes =
      sizeof(comm_link_offer_t) + (size_t)nremote * sizeof(comm_link_entry_t);
  comm_link_offer_t *offer = calloc(1, bytes);
  if (offer == NULL)
    return HC_ERR_NOMEM;
  hc_status_t rc = HC_OK;
  if (lc->rank == b->leader)
    rc = comm_swap_locked(b->bridge, b->peer, b->tag, NULL, 0, offer, bytes);
  if (rc == HC_OK)
    rc = comm_bcast_locked(lc, b->leader, offer, bytes);
  for (int r = 0; rc == HC_OK && r < nremote; r++)
    rc = offer->members[r].status;
  offer->token[HC_SECRET_HEX - 1] = '\0';
  for (int r = 0; rc == HC_OK && r < nremote; r++) {
    offer->members[r].addr[HC_DYNAMIC_ADDR_MAX - 1] = '\0';
    if (remote[r] < 0)
      rc = hc_dynamic_dial_locked(offer->members[r].addr, offer->token,
                                  lc->rank, &rnames[r], &remote[r]);
    if (rc != HC_OK)
      hc_log(HC_LOG_ERROR, "comm",
             "rank %d: linking another job's group: dialling member %d at "
             "'%s': %s",
             hc_engine.world_rank, r, offer->members[r].addr,
             hcomm_strerror(rc));
  }
  free(offer);
  return rc;
}

/* Members of two groups of different jobs (a spawn's children and their
 * parents' world, say) may lack links to each other: every member maps
 * the other group's names to its peers (-1 where it has none) and,
 * when the groups span more than one job, the group whose first member's
 * name is lower accepts while the other dials the pairs that lack a link.
 * Links are symmetric, so both ends of a pair see the same lack. */
static hc_status_t comm_inter_link(const comm_bridge_t *b,
                                   const hc_proc_name_t *lnames, int nremote,
                                   const hc_proc_name_t *rnames, int *remote) {
  int lacking = 0;
  for (int r = 0; r < nremote; r++)
    if ((remote[r] = hc_peer_of_name(&rnames[r])) < 0)
      lacking++;
  if (!hc_proc_names_span_jobs(lnames, b->local->size, rnames, nremote))
    return lacking > 0 ? HC_ERR_PEER_CORRUPT : HC_OK;
  if (hc_proc_name_cmp(&lnames[0], &rnames[0]) < 0)
    return comm_link_accept(b, nremote, rnames, lacking, remote);
  return comm_link_dial(b, nremote, rnames, remote);
}

/* The leaders swap their groups' names over the peer communicator (world
 * ranks would mean nothing to another job), each shares the other's in
 * its group, and members link where they must (comm_inter_link). */
static hc_status_t comm_inter_create_locked(hcomm_comm_t *local, int leader,
                                            hcomm_comm_t *peer, int rleader,
                                            int etag, hcomm_comm_t **newcomm) {
  hcomm_comm_t *lc = NULL;
  int *remote = NULL, id = -1;
  hc_proc_name_t *lnames = NULL, *rnames = NULL;
  comm_bridge_msg_t mine = {0}, theirs = {0};
  hc_status_t rc = comm_dup_intra_locked(local, &lc);
  if (rc != HC_OK)
    return rc;
  mine.size = lc->size;
  comm_bridge_t b = {lc, leader, peer, rleader, etag};
  rc = comm_bridge_agree(&b, &mine, &theirs, &id);
  if (rc == HC_OK) {
    remote = malloc((size_t)theirs.size * sizeof *remote);
    rnames = malloc((size_t)theirs.size * sizeof *rnames);
    lnames = comm_names(lc);
    rc = remote == NULL || rnames == NULL || lnames == NULL ? HC_ERR_NOMEM
                                                            : HC_OK;
  }
  if (rc == HC_OK && lc->rank == leader)
    rc = comm_swap_locked(peer, rleader, etag, lnames,
                          (size_t)lc->size * sizeof *lnames, rnames,
                          (size_t)theirs.size * sizeof *rnames);
  if (rc == HC_OK)
    rc = comm_bcast_locked(lc, leader, rnames,
                           (size_t)theirs.size * sizeof *rnames);
  if (rc != HC_OK)
    hc_log(HC_LOG_ERROR, "comm",
           "rank %d: intercommunicator: agreement or "
           "names: %s",
           hc_engine.world_rank, hcomm_strerror(rc));
  if (rc == HC_OK)
    rc = comm_inter_link(&b, lnames, theirs.size, rnames, remote);
  if (rc == HC_OK) {
    *newcomm = comm_new_inter(id, lc, theirs.size, remote);
    rc = *newcomm != NULL ? HC_OK : HC_ERR_NOMEM;
  }
  if (rc != HC_OK && id >= 0)
    hc_ctxid_put(id);
  if (rc != HC_OK)
    comm_release(lc);
  free(remote);
  free(lnames);
  free(rnames);
  return rc;
}

hc_status_t hcomm_intercomm_create(hcomm_comm_t *local, int local_leader,
                                   hcomm_comm_t *peer, int remote_leader,
                                   int tag, hcomm_comm_t **newcomm) {
  hc_engine_lock();
  hc_status_t rc = comm_check_parent(local, newcomm);
  if (rc == HC_OK && local->local != NULL)
    rc = HC_ERR_COMM;
  if (rc == HC_OK && (local_leader < 0 || local_leader >= local->size))
    rc = HC_ERR_RANK;
  if (rc == HC_OK && local->rank == local_leader &&
      (peer == NULL || remote_leader < 0 || remote_leader >= peer->size))
    rc = peer == NULL ? HC_ERR_COMM : HC_ERR_RANK;
  if (rc == HC_OK && tag < 0)
    rc = HC_ERR_TAG;
  if (rc == HC_OK)
    rc = comm_inter_create_locked(local, local_leader, peer, remote_leader,
                                  COMM_TAG_INTER_BASE + tag % COMM_TAG_WINDOW,
                                  newcomm);
  hc_engine_unlock();
  return rc;
}

/* ---- communicators from bare groups ----------------------------------------
 * MPI-4's sessions build communicators from a group alone.  Every process of
 * the job is in the engine's world communicator, whichever model started the
 * engine, so the members agree on a context id among themselves over the
 * world's collective context: the group-local agreement of create_group, with
 * no launcher round trip.  The caller's tag (a string tag's hash) keeps
 * concurrent creations by overlapping groups apart. */

static hc_status_t comm_check_world_list(int n, const int *world_ranks, int tag,
                                         void *out) {
  int me = 0;
  hc_status_t rc = comm_check_parent(comm_world, out);
  if (rc == HC_OK)
    rc = comm_check_list(comm_world, n, world_ranks, &me);
  if (rc == HC_OK && (n == 0 || !me))
    rc = HC_ERR_ARG;
  if (rc == HC_OK && tag < 0)
    rc = HC_ERR_TAG;
  return rc;
}

hc_status_t hcomm_comm_from_world_ranks(int n, const int *world_ranks, int tag,
                                        hcomm_comm_t **newcomm) {
  hc_engine_lock();
  hc_status_t rc = comm_check_world_list(n, world_ranks, tag, newcomm);
  if (rc == HC_OK)
    rc = comm_create_group_locked(
        comm_world, n, world_ranks,
        COMM_TAG_NAMED_BASE + tag % COMM_TAG_NAMED_WINDOW, newcomm);
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_intercomm_from_world_ranks(int n, const int *local_world,
                                             int local_leader,
                                             int remote_leader_world, int tag,
                                             hcomm_comm_t **newcomm) {
  hc_engine_lock();
  hcomm_comm_t *local = NULL;
  hc_status_t rc = comm_check_world_list(n, local_world, tag, newcomm);
  if (rc == HC_OK &&
      (local_leader < 0 || local_leader >= n || remote_leader_world < 0 ||
       remote_leader_world >= comm_world->size))
    rc = HC_ERR_RANK;
  if (rc == HC_OK)
    rc = comm_create_group_locked(
        comm_world, n, local_world,
        COMM_TAG_NAMED_BASE + tag % COMM_TAG_NAMED_WINDOW, &local);
  if (rc == HC_OK) {
    /* The intercommunicator adopts a duplicate of local, not local. */
    rc = comm_inter_create_locked(
        local, local_leader, comm_world, remote_leader_world,
        COMM_TAG_NAMED_INTER_BASE + tag % COMM_TAG_NAMED_WINDOW, newcomm);
    comm_release(local);
  }
  hc_engine_unlock();
  return rc;
}

/* ---- intercommunicators over run-time links ------------------------------
 * Two jobs met at run time share no communicator to agree on a context id
 * over: their leaders talk through a bridge (comm.h). */

hcomm_comm_t *hc_comm_link_bridge_new(int peer) {
  int members[2] = {hc_engine.world_rank, peer};
  return comm_new(COMM_LINK_ID, 2, members);
}

/* Not comm_destroy: that would offer COMM_LINK_ID to creations. */
void hc_comm_link_bridge_free(hcomm_comm_t *bridge) {
  if (bridge == NULL)
    return;
  free(bridge->world_ranks);
  free(bridge->rank_of_world);
  free(bridge);
}

hc_status_t hc_comm_link_swap_locked(hcomm_comm_t *bridge, const void *out,
                                     size_t out_bytes, void *in,
                                     size_t in_bytes) {
  return comm_swap_locked(bridge, 1, COMM_TAG_LINK, out, out_bytes, in,
                          in_bytes);
}

hc_status_t hc_comm_inter_from_link_locked(hcomm_comm_t *local, int leader,
                                           hcomm_comm_t *bridge, int n,
                                           const int *remote, int merge_order,
                                           hcomm_comm_t **newcomm) {
  hcomm_comm_t *lc = NULL;
  comm_bridge_msg_t mine = {0}, theirs = {0};
  int id = -1;
  hc_status_t rc = comm_dup_intra_locked(local, &lc);
  if (rc != HC_OK)
    return rc;
  mine.size = lc->size;
  comm_bridge_t b = {lc, leader, bridge, 1, COMM_TAG_LINK};
  rc = comm_bridge_agree(&b, &mine, &theirs, &id);
  if (rc == HC_OK && theirs.size != n)
    rc = HC_ERR_INTERNAL;
  if (rc == HC_OK) {
    *newcomm = comm_new_inter(id, lc, n, remote);
    rc = *newcomm != NULL ? HC_OK : HC_ERR_NOMEM;
  }
  if (rc == HC_OK) {
    (*newcomm)->merge_order = merge_order;
    return rc;
  }
  if (id >= 0)
    hc_ctxid_put(id);
  comm_release(lc);
  return rc;
}

static hc_status_t comm_dup_inter_locked(hcomm_comm_t *inter,
                                         hcomm_comm_t **newcomm) {
  hcomm_comm_t *lc = NULL;
  comm_bridge_msg_t mine = {0}, theirs = {0};
  int id = -1;
  hc_status_t rc = comm_dup_intra_locked(inter->local, &lc);
  if (rc != HC_OK)
    return rc;
  comm_bridge_t b = {lc, 0, inter, 0, COMM_TAG_INTER_BASE};
  rc = comm_bridge_agree(&b, &mine, &theirs, &id);
  if (rc == HC_OK) {
    *newcomm = comm_new_inter(id, lc, inter->size, inter->world_ranks);
    rc = *newcomm != NULL ? HC_OK : HC_ERR_NOMEM;
  }
  if (rc == HC_OK) {
    (*newcomm)->merge_order = inter->merge_order;
    return rc;
  }
  if (id >= 0)
    hc_ctxid_put(id);
  comm_release(lc);
  return rc;
}

static hc_status_t comm_merge_locked(hcomm_comm_t *inter, int high,
                                     hcomm_comm_t **newcomm) {
  hcomm_comm_t *local = inter->local;
  comm_bridge_msg_t mine = {0}, theirs = {0};
  int id = -1;
  mine.high = high != 0;
  mine.leader = hc_peer_name(local->world_ranks[0]);
  comm_bridge_t b = {local, 0, inter, 0, COMM_TAG_INTER_BASE};
  hc_status_t rc = comm_bridge_agree(&b, &mine, &theirs, &id);
  if (rc != HC_OK)
    return rc;
  int local_first = mine.high != theirs.high ? !mine.high
                    : inter->merge_order != 0
                        ? inter->merge_order == 1
                        : hc_proc_name_cmp(&mine.leader, &theirs.leader) < 0;
  int n = local->size + inter->size;
  int *world = malloc((size_t)n * sizeof *world);
  if (world == NULL) {
    hc_ctxid_put(id);
    return HC_ERR_NOMEM;
  }
  const hcomm_comm_t *first = local_first ? local : inter;
  const hcomm_comm_t *second = local_first ? inter : local;
  memcpy(world, first->world_ranks, (size_t)first->size * sizeof(int));
  memcpy(world + first->size, second->world_ranks,
         (size_t)second->size * sizeof(int));
  *newcomm = comm_new(id, n, world);
  free(world);
  if (*newcomm == NULL)
    hc_ctxid_put(id);
  return *newcomm != NULL ? HC_OK : HC_ERR_NOMEM;
}

hc_status_t hcomm_intercomm_merge(hcomm_comm_t *inter, int high,
                                  hcomm_comm_t **newcomm) {
  hc_engine_lock();
  hc_status_t rc = comm_check_parent(inter, newcomm);
  if (rc == HC_OK && inter->local == NULL)
    rc = HC_ERR_COMM;
  if (rc == HC_OK)
    rc = comm_merge_locked(inter, high, newcomm);
  hc_engine_unlock();
  return rc;
}

/* ---- intercommunicator split --------------------------------------------
 * Every member of both groups learns every (color, key) entry: an
 * allgather in each group, a swap between the leaders (local rank 0) and a
 * broadcast in each group.  Two ids free at every member are agreed,
 * one for all the new local groups and one for all the new
 * intercommunicators: results of different colors have no member in
 * common, and the local groups of one color on the two sides never
 * address each other. */

/* The entries of the local group (local rank order) into *mine_all and of
 * the remote group (remote rank order) into *their_all, both malloc'd. */
static hc_status_t comm_inter_allgather(hcomm_comm_t *inter,
                                        const comm_entry_t *mine,
                                        comm_entry_t **mine_all,
                                        comm_entry_t **their_all) {
  hcomm_comm_t *local = inter->local;
  size_t entry = sizeof *mine;
  *mine_all = malloc((size_t)local->size * entry);
  *their_all = malloc((size_t)inter->size * entry);
  if (*mine_all == NULL || *their_all == NULL)
    return HC_ERR_NOMEM;
  hc_status_t rc = comm_allgather_locked(local, mine, entry, *mine_all);
  if (rc == HC_OK && local->rank == 0)
    rc = comm_swap_locked(inter, 0, COMM_TAG_INTER_BASE, *mine_all,
                          (size_t)local->size * entry, *their_all,
                          (size_t)inter->size * entry);
  if (rc == HC_OK)
    rc = comm_bcast_locked(local, 0, *their_all, (size_t)inter->size * entry);
  return rc;
}

/* The intercommunicator of my color: local members from mine_all, remote
 * ones from their_all; NULL when the remote group has none of them.  The
 * agreed ids it makes nothing on go back. */
static hc_status_t comm_inter_build_split(hcomm_comm_t *inter,
                                          const comm_entry_t *mine_all,
                                          const comm_entry_t *their_all,
                                          int color, const int *ids,
                                          hcomm_comm_t **newcomm) {
  int *remote = malloc((size_t)inter->size * sizeof *remote), n = 0;
  hcomm_comm_t *lc = NULL;
  hc_status_t rc = remote == NULL ? HC_ERR_NOMEM : HC_OK;
  if (rc == HC_OK)
    rc = comm_split_members(inter->size, inter->world_ranks, their_all, color,
                            remote, &n);
  if (rc == HC_OK && n > 0)
    rc = comm_build_split(inter->local, mine_all, color, ids[0], &lc);
  if (rc == HC_OK && n > 0) {
    *newcomm = comm_new_inter(ids[1], lc, n, remote);
    rc = *newcomm != NULL ? HC_OK : HC_ERR_NOMEM;
  }
  if (*newcomm == NULL) {
    hc_ctxid_put(ids[1]);
    if (lc != NULL)
      comm_release(lc); /* which puts ids[0] back */
    else
      hc_ctxid_put(ids[0]);
  }
  free(remote);
  return rc;
}

static hc_status_t comm_inter_split_locked(hcomm_comm_t *inter, int color,
                                           int key, hcomm_comm_t **newcomm) {
  comm_entry_t mine = {.color = color, .key = key};
  comm_entry_t *mine_all = NULL, *their_all = NULL;
  int ids[2] = {-1, -1};
  *newcomm = NULL;
  comm_bridge_t b = {inter->local, 0, inter, 0, COMM_TAG_INTER_BASE};
  hc_status_t rc = comm_inter_allgather(inter, &mine, &mine_all, &their_all);
  if (rc == HC_OK)
    rc = hc_ctxid_agree_locked(
        comm_agree_key(inter->context_id, COMM_TAG_ALLGATHER), 2,
        comm_and_bridge, &b, ids);
  if (rc == HC_OK && color != HCOMM_UNDEFINED) {
    rc =
        comm_inter_build_split(inter, mine_all, their_all, color, ids, newcomm);
  } else if (rc == HC_OK) {
    hc_ctxid_put(ids[0]);
    hc_ctxid_put(ids[1]);
  }
  free(mine_all);
  free(their_all);
  return rc;
}
