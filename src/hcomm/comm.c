/*
 * Communicators and context ids.  Each process keeps a bitmap of free
 * context ids; creating a communicator ANDs the bitmaps of the parent's
 * members (an allgather on the parent's collective context) and takes the
 * lowest id free everywhere.  Disjoint results of one split share an id:
 * their groups never exchange messages.
 */
#include "hcomm/comm.h"

#include <stdlib.h>
#include <string.h>

#include "hcomm/core.h"
#include "hcomm/engine.h"

#define COMM_MASK_WORDS (HC_CONTEXT_IDS / 32)
#define COMM_TAG_ALLGATHER (HC_COLL_TAG_ENGINE_BASE + 1)
#define COMM_TAG_BCAST (HC_COLL_TAG_ENGINE_BASE + 2)
#define COMM_TAG_BARRIER (HC_COLL_TAG_ENGINE_BASE + 3)

/* One rank's contribution to a communicator creation. */
typedef struct comm_entry {
  int color;
  int key;
  uint32_t free_mask[COMM_MASK_WORDS];
} comm_entry_t;

static uint32_t comm_free_ids[COMM_MASK_WORDS]; /* bit set: id free */
static hcomm_comm_t *comm_world;
static hcomm_comm_t *comm_self;

int hc_comm_match_ctx(const hcomm_comm_t *comm, int coll) {
  return 2 * comm->context_id + (coll ? 1 : 0);
}

int hc_comm_rank_of_world(const hcomm_comm_t *comm, int world_rank) {
  if (comm == NULL || world_rank < 0 || world_rank >= hc_engine.world_size)
    return -1;
  return comm->rank_of_world[world_rank];
}

int hc_comm_world_of_rank(const hcomm_comm_t *comm, int rank) {
  return comm->world_ranks[rank];
}

static void comm_destroy(hcomm_comm_t *comm) {
  int id = comm->context_id;
  comm_free_ids[id / 32] |= 1u << (id % 32);
  free(comm->world_ranks);
  free(comm->rank_of_world);
  free(comm);
}

void hc_comm_op_begin(hcomm_comm_t *comm) { comm->active_ops++; }

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
  comm->rank_of_world = malloc((size_t)hc_engine.world_size * sizeof(int));
  if (comm->world_ranks == NULL || comm->rank_of_world == NULL) {
    free(comm->world_ranks);
    free(comm->rank_of_world);
    free(comm);
    return NULL;
  }
  for (int w = 0; w < hc_engine.world_size; w++)
    comm->rank_of_world[w] = -1;
  for (int r = 0; r < n; r++) {
    comm->world_ranks[r] = world_ranks[r];
    comm->rank_of_world[world_ranks[r]] = r;
  }
  comm->context_id = id;
  comm->size = n;
  comm->rank = comm->rank_of_world[hc_engine.world_rank];
  comm_free_ids[id / 32] &= ~(1u << (id % 32));
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

/* Allgathers every member's (color, key, free ids) and picks the lowest
 * context id free at all of them.  *entries is malloc'd. */
static hc_status_t comm_agree(hcomm_comm_t *parent, int color, int key,
                              comm_entry_t **entries, int *id) {
  comm_entry_t mine;
  mine.color = color;
  mine.key = key;
  memcpy(mine.free_mask, comm_free_ids, sizeof mine.free_mask);
  comm_entry_t *all = malloc((size_t)parent->size * sizeof *all);
  if (all == NULL)
    return HC_ERR_NOMEM;
  hc_status_t rc = comm_allgather_locked(parent, &mine, sizeof mine, all);
  if (rc != HC_OK) {
    free(all);
    return rc;
  }
  *id = -1;
  for (int w = 0; w < COMM_MASK_WORDS && *id < 0; w++) {
    uint32_t bits = ~0u;
    for (int r = 0; r < parent->size; r++)
      bits &= all[r].free_mask[w];
    if (bits != 0)
      *id = w * 32 + __builtin_ctz(bits);
  }
  *entries = all;
  return *id < 0 ? HC_ERR_NO_CONTEXT : HC_OK;
}

static hc_status_t comm_check_parent(hcomm_comm_t *comm, void *out) {
  hc_status_t rc = hc_engine_check();
  if (rc != HC_OK)
    return rc;
  if (comm == NULL)
    return HC_ERR_COMM;
  return out == NULL ? HC_ERR_ARG : HC_OK;
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

/* Members of my color ordered by (key, parent rank), as world ranks. */
static hc_status_t comm_build_split(hcomm_comm_t *parent,
                                    const comm_entry_t *all, int color, int id,
                                    hcomm_comm_t **newcomm) {
  comm_member_t *m = malloc((size_t)parent->size * sizeof *m);
  int *world = malloc((size_t)parent->size * sizeof *world);
  int n = 0;
  hc_status_t rc = HC_ERR_NOMEM;
  if (m == NULL || world == NULL)
    goto out;
  for (int r = 0; r < parent->size; r++) {
    if (all[r].color != color)
      continue;
    m[n].key = all[r].key;
    m[n].rank = r;
    n++;
  }
  qsort(m, (size_t)n, sizeof *m, comm_member_cmp);
  for (int i = 0; i < n; i++)
    world[i] = parent->world_ranks[m[i].rank];
  *newcomm = comm_new(id, n, world);
  rc = *newcomm != NULL ? HC_OK : HC_ERR_NOMEM;
out:
  free(m);
  free(world);
  return rc;
}

static hc_status_t comm_split_locked(hcomm_comm_t *comm, int color, int key,
                                     hcomm_comm_t **newcomm) {
  comm_entry_t *all = NULL;
  int id;
  *newcomm = NULL;
  hc_status_t rc = comm_agree(comm, color, key, &all, &id);
  if (rc == HC_OK && color != HCOMM_UNDEFINED)
    rc = comm_build_split(comm, all, color, id, newcomm);
  free(all);
  return rc;
}

hc_status_t hcomm_comm_split(hcomm_comm_t *comm, int color, int key,
                             hcomm_comm_t **newcomm) {
  hc_engine_lock();
  hc_status_t rc = comm_check_parent(comm, newcomm);
  if (rc == HC_OK && color < 0 && color != HCOMM_UNDEFINED)
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = comm_split_locked(comm, color, key, newcomm);
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_comm_dup(hcomm_comm_t *comm, hcomm_comm_t **newcomm) {
  hc_engine_lock();
  hc_status_t rc = comm_check_parent(comm, newcomm);
  comm_entry_t *all = NULL;
  int id;
  if (rc == HC_OK)
    rc = comm_agree(comm, 0, comm->rank, &all, &id);
  if (rc == HC_OK) {
    *newcomm = comm_new(id, comm->size, comm->world_ranks);
    rc = *newcomm != NULL ? HC_OK : HC_ERR_NOMEM;
  }
  free(all);
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

hc_status_t hcomm_comm_create(hcomm_comm_t *comm, int n, const int *ranks,
                              hcomm_comm_t **newcomm) {
  hc_engine_lock();
  hc_status_t rc = comm_check_parent(comm, newcomm);
  int me = 0;
  if (rc == HC_OK) {
    *newcomm = NULL;
    rc = comm_check_list(comm, n, ranks, &me);
  }
  comm_entry_t *all = NULL;
  int *world = NULL;
  int id;
  if (rc == HC_OK)
    rc = comm_agree(comm, 0, 0, &all, &id);
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
  free(world);
  free(all);
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_comm_free(hcomm_comm_t *comm) {
  if (comm == NULL || comm->predefined)
    return HC_ERR_COMM;
  hc_engine_lock();
  if (comm->active_ops == 0)
    comm_destroy(comm);
  else
    comm->free_pending = 1;
  hc_engine_unlock();
  return HC_OK;
}

int hcomm_comm_compare(const hcomm_comm_t *a, const hcomm_comm_t *b) {
  if (a == b)
    return HCOMM_IDENT;
  if (a == NULL || b == NULL || a->size != b->size)
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

hcomm_comm_t *hcomm_comm_world(void) { return comm_world; }
hcomm_comm_t *hcomm_comm_self(void) { return comm_self; }

int hcomm_comm_rank(const hcomm_comm_t *comm) {
  return comm != NULL ? comm->rank : -1;
}

int hcomm_comm_size(const hcomm_comm_t *comm) {
  return comm != NULL ? comm->size : -1;
}

int hcomm_comm_world_rank(const hcomm_comm_t *comm, int rank) {
  if (comm == NULL || rank < 0 || rank >= comm->size)
    return -1;
  return comm->world_ranks[rank];
}

hc_status_t hc_comm_init_predefined(void) {
  for (int w = 0; w < COMM_MASK_WORDS; w++)
    comm_free_ids[w] = ~0u;
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
