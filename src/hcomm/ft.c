/*
 * Fault tolerance after a peer's death (ULFM): revoke, the fault-tolerant
 * agreement and shrink.  Every message is an HC_PKT_FT packet naming a
 * context id and a fingerprint of the communicator's members, handled
 * here as it arrives, apart from every matching context: a revoked
 * communicator still agrees and shrinks, and nothing is left in a queue
 * for a receive that will never come.
 *
 * Revoke floods: the first time a process learns that a communicator is
 * revoked (its own call, or a packet) it tells every other live member,
 * so the news reaches all survivors even when the revoker dies midway.
 * The packet carries the members' names (procname.c: world ranks mean
 * nothing to another job), so a process can pass it on (and remember it)
 * before it has made the communicator itself.
 *
 * The agreement ANDs a vector of words over the live members.  Each
 * member sends its vote to the coordinator, the lowest member it does not
 * know to have failed.  The coordinator waits for the vote of every member
 * it does not know to have failed, ANDs in its own current view of who is
 * alive, and sends the decision to all.  A member that receives a decision
 * passes it on to every other member before it returns, so if any
 * survivor has it, all will get it; one whose coordinator dies first votes
 * again to the next.  Before acting on a death, the loop drains what
 * arrived (progress runs first), so a decision the dead coordinator sent
 * is taken before a new coordinator is chosen.  Votes and decisions are
 * kept per context id and agreement number until taken.
 *
 * Shrink is one agreement over the member mask and the free context ids
 * (comm.c's offer), so the survivors agree on the group and the id
 * together without the dead ones.
 */
#include "hcomm/ft.h"

#include <stdlib.h>
#include <string.h>

#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "util/log.h"

enum ft_kind { FT_REVOKE = 1, FT_VOTE = 2, FT_DECISION = 3 };

/* A vote or decision that arrived before its agreement took it. */
typedef struct ft_msg {
  struct ft_msg *next;
  int kind;
  int src; /* world rank */
  unsigned seq;
  uint64_t fp;
  int nwords;
  uint32_t words[];
} ft_msg_t;

/* What this process keeps per context id (one communicator at a time). */
typedef struct ft_slot {
  int revoked;
  uint64_t revoked_fp;
  unsigned seq; /* agreements started on the communicator */
  int nacked;   /* failures acknowledged (hcomm_comm_ack_failed) */
  ft_msg_t *msgs;
} ft_slot_t;

typedef struct ft_agree {
  struct ft_agree *next;
  hcomm_comm_t *comm;
  hcomm_request_t *req;
  uint64_t fp;
  unsigned seq;
  /* The members that agree, by index: comm's group, or both groups of an
   * intercommunicator, the one with the lower first world rank first. */
  int n;
  int *world; /* their world ranks */
  int me;     /* this process's index */
  int nwords;
  int mask_words;      /* words [0, mask_words): the live-member mask */
  uint32_t *vote;      /* own vote ANDed with those received */
  unsigned char *seen; /* members whose vote arrived */
  int sent_to;         /* member our vote went to; -1 none */
  int decided;
  int shrink;             /* else an agreement on *flag */
  uint32_t *flag;         /* agree: in and out */
  hcomm_comm_t **newcomm; /* shrink: out */
} ft_agree_t;

int hc_ft_nrevoked;
int hc_ft_nactive;
static ft_slot_t ft_slots[HC_CONTEXT_IDS];
static ft_agree_t *ft_active;
/* Peers (world ranks, then run-time peers) in the order this process
 * learnt of their failure, so the failed group of a communicator only
 * grows at its end. */
static int *ft_order;
static int ft_norder;

/* ---- members, failures, fingerprints ------------------------------------ */

static int ft_alive(int world) {
  return world == hc_engine.world_rank || !hc_engine.peers[world].failed;
}

static uint64_t ft_mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static uint64_t ft_mix_member(int peer) {
  hc_proc_name_t name = hc_peer_name(peer);
  return ft_mix(ft_mix(name.job) + (uint64_t)(uint32_t)name.rank +
                (1ull << 32));
}

/* The same at every member, for intercommunicators too (it sums over both
 * groups' names, whichever side is remote, and whichever job). */
static uint64_t ft_fingerprint(const hcomm_comm_t *comm) {
  uint64_t fp = ft_mix((uint64_t)comm->context_id);
  for (int r = 0; r < comm->size; r++)
    fp += ft_mix_member(comm->world_ranks[r]);
  for (int r = 0; comm->local != NULL && r < comm->local->size; r++)
    fp += ft_mix_member(comm->local->world_ranks[r]);
  return fp;
}

/* Appends the failures learnt since the last call to ft_order. */
static void ft_note_failures(void) {
  if (ft_norder == hc_engine.failed_peers)
    return;
  int *order = realloc(ft_order, (size_t)hc_engine.peers_max * sizeof *order);
  if (order == NULL)
    return;
  ft_order = order;
  for (int w = 0; w < hc_engine.npeers; w++) {
    if (!hc_engine.peers[w].failed)
      continue;
    int known = 0;
    for (int i = 0; i < ft_norder && !known; i++)
      known = ft_order[i] == w;
    if (!known)
      ft_order[ft_norder++] = w;
  }
}

/* World rank w is in comm's group or, for an intercommunicator, in its
 * local group. */
static int ft_is_member(const hcomm_comm_t *comm, int w) {
  return comm->rank_of_world[w] >= 0 ||
         (comm->local != NULL && comm->local->rank_of_world[w] >= 0);
}

/* The failed members of comm (both groups of an intercommunicator) as
 * world ranks, in the order they were learnt; returns how many, writes the
 * first max. */
static int ft_comm_failed(const hcomm_comm_t *comm, int *world, int max) {
  ft_note_failures();
  int n = 0;
  for (int i = 0; i < ft_norder; i++) {
    if (!ft_is_member(comm, ft_order[i]))
      continue;
    if (n < max && world != NULL)
      world[n] = ft_order[i];
    n++;
  }
  return n;
}

/* The index in comm's failed list of world rank w, or -1. */
static int ft_failed_index(const hcomm_comm_t *comm, int w) {
  int n = 0;
  for (int i = 0; i < ft_norder; i++) {
    if (ft_order[i] == w)
      return n;
    n += ft_is_member(comm, ft_order[i]);
  }
  return -1;
}

hc_status_t hc_ft_any_source_failure(const hcomm_comm_t *comm) {
  if (comm == NULL || hc_engine.failed_peers == 0)
    return HC_OK;
  int nacked = ft_slots[comm->context_id].nacked;
  int n = ft_comm_failed(comm, NULL, 0);
  if (n <= nacked)
    return HC_OK;
  int *world = malloc((size_t)n * sizeof *world);
  if (world == NULL)
    return HC_ERR_PEER_DEAD;
  ft_comm_failed(comm, world, n);
  hc_status_t why = hc_engine.peers[world[nacked]].failure;
  free(world);
  return why;
}

hc_status_t hc_ft_recv_stalled(const hcomm_request_t *req) {
  if (hc_engine.failed_peers == 0 || req->kind != HC_REQ_RECV || !req->posted ||
      req->entry.source != HCOMM_ANY_SOURCE || req->join_parent != NULL ||
      hc_match_ctx_kind(req->match_ctx) != HC_CTX_PT2PT)
    return HC_OK;
  return hc_ft_any_source_failure(req->comm);
}

hc_status_t hc_ft_probe_failure(const hcomm_comm_t *comm, int source_world) {
  if (hc_ft_nrevoked > 0 && hc_ft_comm_revoked(comm))
    return HC_ERR_REVOKED;
  if (hc_engine.failed_peers == 0)
    return HC_OK;
  if (source_world == HCOMM_ANY_SOURCE)
    return hc_ft_any_source_failure(comm);
  const hc_peer_t *peer = &hc_engine.peers[source_world];
  return peer->failed ? peer->failure : HC_OK;
}

/* Asks the transport, once, to notice world's death without traffic (tcp
 * connects), as a receive naming it does. */
static void ft_watch(int world) {
  hc_peer_t *peer = &hc_engine.peers[world];
  if (peer->watched || peer->ops == NULL)
    return;
  peer->watched = 1;
  peer->ops->watch(peer->tctx, world);
}

static void ft_send(int world, int kind, int id, unsigned seq, uint64_t fp,
                    const void *payload, size_t len) {
  if (world == hc_engine.world_rank || !ft_alive(world))
    return;
  hc_pkt_hdr_t hdr = {0};
  hdr.context = (uint32_t)id;
  hdr.tag = kind;
  hdr.sreq = seq;
  hdr.rreq = fp;
  hc_proto_send_ft(world, &hdr, payload, len);
}

/* ---- revoke ------------------------------------------------------------- */

/* Marks (id, fp) revoked; 1 when it was not before.  Pending operations
 * fail in the next progress (progress.c applies it like a failure). */
static int ft_mark_revoked(int id, uint64_t fp) {
  ft_slot_t *s = &ft_slots[id];
  if (s->revoked && s->revoked_fp == fp)
    return 0;
  if (!s->revoked)
    hc_ft_nrevoked++;
  s->revoked = 1;
  s->revoked_fp = fp;
  hc_engine.failures_pending = 1;
  return 1;
}

/* Members this process knows no link to (another job's, met by others
 * only) are skipped: those that know them pass it on. */
static void ft_flood_revoke(int id, uint64_t fp, const hc_proc_name_t *members,
                            int n) {
  for (int i = 0; i < n; i++) {
    int peer = hc_peer_of_name(&members[i]);
    if (peer >= 0)
      ft_send(peer, FT_REVOKE, id, 0, fp, members, (size_t)n * sizeof *members);
  }
}

int hc_ft_comm_revoked(const hcomm_comm_t *comm) {
  const ft_slot_t *s = &ft_slots[comm->context_id];
  return s->revoked && s->revoked_fp == ft_fingerprint(comm);
}

hc_status_t hcomm_comm_revoke(hcomm_comm_t *comm) {
  hc_engine_lock();
  hc_status_t rc = hc_engine_check();
  if (rc == HC_OK && comm == NULL)
    rc = HC_ERR_COMM;
  int n = 0;
  hc_proc_name_t *members = NULL;
  if (rc == HC_OK) {
    n = comm->size + (comm->local != NULL ? comm->local->size : 0);
    members = malloc((size_t)n * sizeof *members);
    rc = members != NULL ? HC_OK : HC_ERR_NOMEM;
  }
  if (rc == HC_OK) {
    for (int r = 0; r < comm->size; r++)
      members[r] = hc_peer_name(comm->world_ranks[r]);
    for (int r = comm->size; r < n; r++)
      members[r] = hc_peer_name(comm->local->world_ranks[r - comm->size]);
    uint64_t fp = ft_fingerprint(comm);
    if (ft_mark_revoked(comm->context_id, fp))
      ft_flood_revoke(comm->context_id, fp, members, n);
  }
  free(members);
  hc_engine_unlock();
  return rc;
}

int hcomm_comm_is_revoked(const hcomm_comm_t *comm) {
  hc_engine_lock();
  int revoked = comm != NULL && hc_ft_comm_revoked(comm);
  hc_engine_unlock();
  return revoked;
}

/* ---- acknowledgement ---------------------------------------------------- */

int hcomm_comm_failed(hcomm_comm_t *comm, int *world_ranks, int max) {
  hc_engine_lock();
  int n = comm != NULL ? ft_comm_failed(comm, world_ranks, max) : 0;
  hc_engine_unlock();
  return n;
}

int hcomm_comm_ack_failed(hcomm_comm_t *comm, int count) {
  if (comm == NULL)
    return 0;
  hc_engine_lock();
  ft_slot_t *s = &ft_slots[comm->context_id];
  int n = ft_comm_failed(comm, NULL, 0);
  int want = count < 0 || count > n ? n : count;
  if (want > s->nacked)
    s->nacked = want;
  int acked = s->nacked; /* ANY_SOURCE receives wait past these again */
  hc_engine_unlock();
  return acked;
}

/* ---- packets ------------------------------------------------------------ */

static void ft_keep(int src, const hc_pkt_hdr_t *hdr, const void *payload) {
  int nwords = (int)(hdr->payload_bytes / sizeof(uint32_t));
  ft_msg_t *m = malloc(sizeof *m + (size_t)nwords * sizeof(uint32_t));
  if (m == NULL) {
    hc_log(HC_LOG_ERROR, "ft", "no memory for a vote from rank %d", src);
    return;
  }
  m->kind = hdr->tag;
  m->src = src;
  m->seq = (unsigned)hdr->sreq;
  m->fp = hdr->rreq;
  m->nwords = nwords;
  memcpy(m->words, payload, (size_t)nwords * sizeof(uint32_t));
  ft_slot_t *s = &ft_slots[hdr->context];
  m->next = s->msgs;
  s->msgs = m;
}

void hc_ft_on_packet(int src, const hc_pkt_hdr_t *hdr, const void *payload) {
  if (hdr->context >= HC_CONTEXT_IDS || hdr->payload_bytes % 4 != 0) {
    hc_log(HC_LOG_WARN, "ft", "malformed packet from rank %d dropped", src);
    return;
  }
  if (hdr->tag == FT_VOTE || hdr->tag == FT_DECISION) {
    ft_keep(src, hdr, payload);
    return;
  }
  if (hdr->tag != FT_REVOKE || hdr->payload_bytes % sizeof(hc_proc_name_t))
    return;
  int n = (int)(hdr->payload_bytes / sizeof(hc_proc_name_t));
  hc_proc_name_t *members = malloc((size_t)n * sizeof *members + 1);
  if (members == NULL)
    return;
  memcpy(members, payload, (size_t)n * sizeof *members);
  if (ft_mark_revoked((int)hdr->context, hdr->rreq))
    ft_flood_revoke((int)hdr->context, hdr->rreq, members, n);
  free(members);
}

/* ---- the agreement ------------------------------------------------------ */

static int ft_coordinator(const ft_agree_t *a) {
  for (int r = 0; r < a->n; r++)
    if (ft_alive(a->world[r]))
      return r;
  return a->me;
}

/* The index of world rank w among a's members, or -1. */
static int ft_member_index(const ft_agree_t *a, int w) {
  for (int r = 0; r < a->n; r++)
    if (a->world[r] == w)
      return r;
  return -1;
}

/* ANDs this process's current view of who is alive into the mask. */
static void ft_and_alive(const ft_agree_t *a, uint32_t *words) {
  for (int r = 0; r < a->n; r++)
    if (!ft_alive(a->world[r]))
      words[r / 32] &= ~(1u << (r % 32));
}

static void ft_send_all(const ft_agree_t *a, int kind) {
  for (int r = 0; r < a->n; r++)
    ft_send(a->world[r], kind, a->comm->context_id, a->seq, a->fp, a->vote,
            (size_t)a->nwords * sizeof(uint32_t));
}

/* Takes the kept votes and decision of this agreement; drops those of
 * earlier ones. */
static void ft_take(ft_agree_t *a) {
  ft_slot_t *s = &ft_slots[a->comm->context_id];
  ft_msg_t **link = &s->msgs;
  while (*link != NULL) {
    ft_msg_t *m = *link;
    int mine = m->fp == a->fp && m->seq == a->seq && m->nwords == a->nwords;
    int stale = m->fp == a->fp && m->seq < a->seq;
    if (!mine && !stale) {
      link = &m->next;
      continue;
    }
    *link = m->next;
    int r = ft_member_index(a, m->src);
    if (mine && m->kind == FT_DECISION && !a->decided) {
      memcpy(a->vote, m->words, (size_t)a->nwords * sizeof(uint32_t));
      a->decided = 1;
      ft_send_all(a, FT_DECISION); /* pass it on before returning */
    } else if (mine && m->kind == FT_VOTE && !a->decided && r >= 0) {
      for (int i = 0; i < a->nwords; i++)
        a->vote[i] &= m->words[i];
      a->seen[r] = 1;
    }
    free(m);
  }
}

static int ft_all_voted(const ft_agree_t *a) {
  for (int r = 0; r < a->n; r++) {
    int w = a->world[r];
    if (r != a->me && ft_alive(w) && !a->seen[r]) {
      ft_watch(w);
      return 0;
    }
  }
  return 1;
}

/* One turn: take what arrived, then decide (coordinator) or make sure the
 * current coordinator has our vote. */
static void ft_step(ft_agree_t *a) {
  ft_take(a);
  if (a->decided)
    return;
  int coord = ft_coordinator(a);
  if (coord == a->me) {
    if (!ft_all_voted(a))
      return;
    ft_and_alive(a, a->vote);
    a->decided = 1;
    ft_send_all(a, FT_DECISION);
  } else if (coord != a->sent_to) {
    ft_send(a->world[coord], FT_VOTE, a->comm->context_id, a->seq, a->fp,
            a->vote, (size_t)a->nwords * sizeof(uint32_t));
    ft_watch(a->world[coord]);
    a->sent_to = coord;
  }
}

/* Starts agreement number slot->seq on a->comm over a->vote. */
static void ft_begin(ft_agree_t *a) {
  ft_slot_t *s = &ft_slots[a->comm->context_id];
  a->seq = s->seq++;
  a->sent_to = -1;
  a->decided = 0;
  memset(a->seen, 0, (size_t)a->n);
  memset(a->vote, 0, (size_t)a->mask_words * sizeof(uint32_t));
  for (int r = 0; r < a->n; r++)
    a->vote[r / 32] |= 1u << (r % 32);
  ft_and_alive(a, a->vote);
}

static void ft_agree_free(ft_agree_t *a) {
  free(a->world);
  free(a->vote);
  free(a->seen);
  free(a);
}

/* Lists a's members: comm's group, or for an intercommunicator both
 * groups, the one whose first member has the lower name first, so
 * that every member of either lists them alike.  0 when out of memory. */
static int ft_list_members(ft_agree_t *a) {
  const hcomm_comm_t *comm = a->comm, *local = comm->local;
  const hcomm_comm_t *first = comm, *second = NULL;
  if (local != NULL) {
    hc_proc_name_t mine = hc_peer_name(local->world_ranks[0]);
    hc_proc_name_t theirs = hc_peer_name(comm->world_ranks[0]);
    int local_first = hc_proc_name_cmp(&mine, &theirs) < 0;
    first = local_first ? local : comm;
    second = local_first ? comm : local;
  }
  a->n = first->size + (second != NULL ? second->size : 0);
  a->world = malloc((size_t)a->n * sizeof *a->world);
  if (a->world == NULL)
    return 0;
  for (int r = 0; r < first->size; r++)
    a->world[r] = first->world_ranks[r];
  for (int r = first->size; r < a->n; r++)
    a->world[r] = second->world_ranks[r - first->size];
  a->me = ft_member_index(a, hc_engine.world_rank);
  return 1;
}

static ft_agree_t *ft_agree_new(hcomm_comm_t *comm, int payload_words) {
  ft_agree_t *a = calloc(1, sizeof *a);
  if (a == NULL)
    return NULL;
  a->comm = comm;
  a->fp = ft_fingerprint(comm);
  if (ft_list_members(a)) {
    a->mask_words = (a->n + 31) / 32;
    a->nwords = a->mask_words + payload_words;
    a->vote = calloc((size_t)a->nwords, sizeof *a->vote);
    a->seen = calloc((size_t)a->n, 1);
    a->req = hc_request_alloc(HC_REQ_USER);
  }
  if (a->vote == NULL || a->seen == NULL || a->req == NULL) {
    if (a->req != NULL)
      hc_request_release(a->req);
    ft_agree_free(a);
    return NULL;
  }
  return a;
}

/* The agreed failed set holds a member whose failure this process has not
 * acknowledged on comm: HC_ERR_PEER_DEAD (MPIX_ERR_PROC_FAILED). */
static hc_status_t ft_unacked_in(const ft_agree_t *a) {
  ft_note_failures();
  int nacked = ft_slots[a->comm->context_id].nacked;
  for (int r = 0; r < a->n; r++) {
    if (a->vote[r / 32] & (1u << (r % 32)))
      continue;
    int i = ft_failed_index(a->comm, a->world[r]);
    if (i < 0 || i >= nacked)
      return HC_ERR_PEER_DEAD;
  }
  return HC_OK;
}

/* The survivors on the agreed ids: of an intracommunicator, in its order;
 * of an intercommunicator, each group's in its order (local ones in
 * world[0, nlocal), remote ones after). */
static hc_status_t ft_shrink_build(ft_agree_t *a, int *world, int nlocal,
                                   int n) {
  uint32_t *ids = a->vote + a->mask_words;
  if (a->comm->local == NULL)
    return hc_comm_new_agreed(ids, n, world, a->newcomm);
  if (n == nlocal) { /* the whole remote group failed */
    hc_comm_ids_withdraw();
    return HC_ERR_PEER_DEAD;
  }
  return hc_comm_new_inter_agreed(ids, nlocal, world, n - nlocal,
                                  world + nlocal, a->newcomm);
}

/* Shrink's end.  HC_ERR_AGAIN when another thread held ids back
 * everywhere: agree again. */
static hc_status_t ft_shrink_make(ft_agree_t *a) {
  int *world = malloc((size_t)a->n * sizeof *world), n = 0, nlocal = 0;
  if (world == NULL) {
    hc_comm_ids_withdraw();
    return HC_ERR_NOMEM;
  }
  const hcomm_comm_t *local = a->comm->local;
  for (int pass = 0; pass < (local != NULL ? 2 : 1); pass++) {
    for (int r = 0; r < a->n; r++) {
      int w = a->world[r];
      int is_local = local == NULL || local->rank_of_world[w] >= 0;
      if ((a->vote[r / 32] & (1u << (r % 32))) && is_local == (pass == 0))
        world[n++] = w;
    }
    nlocal = pass == 0 ? n : nlocal;
  }
  hc_status_t rc = HC_ERR_PEER_DEAD;
  if (a->vote[a->me / 32] & (1u << (a->me % 32))) {
    rc = ft_shrink_build(a, world, nlocal, n);
  } else {
    hc_log(HC_LOG_WARN, "ft", "shrink: the survivors count this rank failed");
    hc_comm_ids_withdraw();
  }
  free(world);
  return rc;
}

static void ft_offer(ft_agree_t *a) {
  if (a->shrink)
    hc_comm_ids_offer(a->vote + a->mask_words);
  else
    a->vote[a->mask_words] = *a->flag;
}

/* Runs a's turn; when decided, writes the outputs, completes its request
 * and frees it (unless a shrink must agree again).  1 when it moved. */
static int ft_advance(ft_agree_t *a) {
  int was = a->decided;
  ft_step(a);
  if (!a->decided)
    return 0;
  hc_status_t rc;
  if (a->shrink) {
    rc = ft_shrink_make(a);
    if (rc == HC_ERR_AGAIN) {
      ft_begin(a);
      ft_offer(a);
      return 1;
    }
  } else {
    *a->flag = a->vote[a->mask_words];
    rc = ft_unacked_in(a);
  }
  for (ft_agree_t **link = &ft_active; *link != NULL; link = &(*link)->next)
    if (*link == a) {
      *link = a->next;
      break;
    }
  hc_ft_nactive--;
  hc_comm_op_end(a->comm);
  hc_request_complete(a->req, rc);
  ft_agree_free(a);
  return !was;
}

int hc_ft_progress_locked(void) {
  int moved = 0;
  ft_agree_t *a = ft_active;
  while (a != NULL) {
    ft_agree_t *next = a->next;
    moved += ft_advance(a);
    a = next;
  }
  return moved;
}

/* Common start of iagree and ishrink: checks, then the first turn. */
static hc_status_t ft_start(hcomm_comm_t *comm, uint32_t *flag,
                            hcomm_comm_t **newcomm, hcomm_request_t **req) {
  hc_status_t rc = hc_engine_check();
  if (rc != HC_OK)
    return rc;
  if (comm == NULL)
    return HC_ERR_COMM;
  if (req == NULL || (flag == NULL && newcomm == NULL))
    return HC_ERR_ARG;
  ft_agree_t *a = ft_agree_new(comm, newcomm != NULL ? HC_COMM_ID_WORDS : 1);
  if (a == NULL)
    return HC_ERR_NOMEM;
  a->shrink = newcomm != NULL;
  a->flag = flag;
  a->newcomm = newcomm;
  if (newcomm != NULL)
    *newcomm = NULL;
  *req = a->req;
  hc_comm_op_begin(comm);
  ft_begin(a);
  ft_offer(a);
  a->next = ft_active;
  ft_active = a;
  hc_ft_nactive++;
  ft_advance(a);
  return HC_OK;
}

hc_status_t hcomm_comm_iagree(hcomm_comm_t *comm, uint32_t *flag,
                              hcomm_request_t **req) {
  if (flag == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = ft_start(comm, flag, NULL, req);
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_comm_ishrink(hcomm_comm_t *comm, hcomm_comm_t **newcomm,
                               hcomm_request_t **req) {
  if (newcomm == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = ft_start(comm, NULL, newcomm, req);
  hc_engine_unlock();
  return rc;
}

/* ---- lifetime ----------------------------------------------------------- */

static void ft_drop_msgs(ft_slot_t *s, uint64_t fp, int all) {
  ft_msg_t **link = &s->msgs;
  while (*link != NULL) {
    ft_msg_t *m = *link;
    if (all || m->fp == fp) {
      *link = m->next;
      free(m);
    } else {
      link = &m->next;
    }
  }
}

void hc_ft_comm_gone(const hcomm_comm_t *comm) {
  ft_slot_t *s = &ft_slots[comm->context_id];
  uint64_t fp = ft_fingerprint(comm);
  if (s->revoked && s->revoked_fp == fp) {
    s->revoked = 0;
    hc_ft_nrevoked--;
  }
  s->seq = 0;
  s->nacked = 0;
  ft_drop_msgs(s, fp, 0);
}

void hc_ft_fini(void) {
  for (int id = 0; id < HC_CONTEXT_IDS; id++) {
    ft_drop_msgs(&ft_slots[id], 0, 1);
    memset(&ft_slots[id], 0, sizeof ft_slots[id]);
  }
  while (ft_active != NULL) {
    ft_agree_t *a = ft_active;
    ft_active = a->next;
    ft_agree_free(a);
  }
  hc_ft_nrevoked = 0;
  hc_ft_nactive = 0;
  free(ft_order);
  ft_order = NULL;
  ft_norder = 0;
}
