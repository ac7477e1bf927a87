/*
 * Engine-wide state shared by the files of src/hcomm (not by coll.c, which
 * uses engine.h only): peers and their transports, matching contexts, the
 * engine lock, the blocking-wait loop.
 */
#ifndef HC_CORE_H
#define HC_CORE_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "bootstrap/bootstrap.h"
#include "hcomm.h"
#include "hcomm/counters.h"
#include "hcomm/match.h"
#include "hcomm/request.h"
#include "transport/transport.h"

/* Context ids per process; each gives HC_MATCH_KINDS matching contexts
 * (comm.h: point-to-point, collectives, partitioned). */
#define HC_CONTEXT_IDS 2048
#define HC_MATCH_KINDS 3
#define HC_MATCH_CONTEXTS (HC_MATCH_KINDS * HC_CONTEXT_IDS)

/* Most transports one engine runs (the registration list's length). */
#define HC_ENGINE_TRANSPORTS_MAX 8

typedef struct hc_backlog_item hc_backlog_item_t;

/* One transport the engine runs: its ops and the context init gave. */
typedef struct hc_engine_transport {
  const hc_transport_ops_t *ops;
  void *ctx;
  /* HC_TRANSPORT_POLL_AFTER_SEND: polled only while sent is set. */
  int poll_after_send;
  int sent; /* a packet went through it since its last poll */
  hc_counters_transport_t counts; /* for the tool interface (counters.h) */
} hc_engine_transport_t;

/* What an empty poll reads of a transport polled every time, packed. */
typedef struct hc_engine_polled {
  int (*progress)(void *ctx);
  void *ctx;
} hc_engine_polled_t;

/* A process's name across jobs: its job's random key (the same in every
 * process the job's launcher started, different in every other job) and
 * its rank in that job's world.  Engine peer numbers are this process's
 * own; names are what two jobs can swap (procname.c).  Fixed layout: it
 * travels as bytes. */
typedef struct hc_proc_name {
  uint64_t job;
  int32_t rank;
  int32_t unused; /* zero */
} hc_proc_name_t;

typedef struct hc_peer {
  int world_rank; /* the engine's number for it (its index in peers) */
  /* Its name, for peers met at run time (world peers are named by
   * hc_peer_name from the engine's job and their index). */
  hc_proc_name_t name;
  /* NULL when no transport reaches this peer (another node, until remote
   * transports exist): sends fail with HC_ERR_NOT_SUPPORTED. */
  const hc_transport_ops_t *ops;
  void *tctx;
  hc_engine_transport_t *via; /* the engine's entry of ops, or NULL */
  size_t max_packet;
  size_t eager_limit; /* largest eager payload */
  /* Sends above eager_limit ask the transport's eager_max_now (it has one,
   * and HCMPI_EAGER_LIMIT is unset). */
  int eager_ask;
  uint64_t rndv_sent_last; /* id of our latest rendezvous send to it */
  hc_backlog_item_t *backlog_head;
  hc_backlog_item_t *backlog_tail;
  struct hc_peer *next_backlogged;
  int backlogged; /* on the engine's list of peers with a backlog */
  int failed;     /* its transport reported the connection lost */
  /* Why (HC_ERR_PEER_*), once failed. */
  hc_status_t failure;
  int watched; /* its transport's watch was called */
  /* Size classes (bit k: gets of 2^k to 2^(k+1)-1 bytes) of the
   * single-copy gets from it already logged at debug level: each class is
   * logged once, the rest only counted (rndv_get), since a line per
   * rendezvous slowed the very runs that read the log (bench/NOTES.md,
   * sched27, far28). */
  uint64_t gets_logged;
  /* Host rendezvous receives from it that stream now (their CTS sent,
   * bytes still to land): get_min's streams_landing. */
  int streams_landing;
} hc_peer_t;

typedef struct hc_engine {
  int initialized;
  int finalized;
  int locking; /* THREAD_MULTIPLE: the engine lock is real */
  pthread_mutex_t lock;
  int world_rank;
  int world_size;
  uint64_t job; /* this job's key (hc_proc_name_t), set at init */
  int appnum;
  int universe_size;
  int local_rank;
  int local_size;
  int *local_world_ranks;
  /* The ranks of this job on this kernel (one boot id), which share its
   * cores even where HCMPI_NODE_ID or namespaces make them other nodes:
   * the wait policy counts them, and binds by cpu_rank. */
  int cpu_rank;
  int cpu_size;
  const hc_bootstrap_ops_t *boot;
  void *boot_ctx;
  /* The transports that started, in the registration list's order. */
  hc_engine_transport_t transports[HC_ENGINE_TRANSPORTS_MAX];
  int ntransports;
  /* Those of them polled every time, and whether one of the others got a
   * packet to send (hc_engine_sent_to) since the last poll. */
  hc_engine_polled_t polled[HC_ENGINE_TRANSPORTS_MAX];
  int npolled;
  int quiet_sent;
  /* Peers in use: the world ranks, then the processes met at run time
   * (dynamic.c), numbered on from world_size below peers_max. */
  int npeers;
  int peers_max;
  int failed_peers;     /* peers marked failed so far */
  int failures_pending; /* a failure not yet applied to requests */
  int finalizing;       /* in hcomm_finalize: peers may leave normally */
  hc_peer_t *peers;
  /* Spawned: the intercommunicator with the parents (dynamic.c); NULL
   * otherwise or once freed. */
  hcomm_comm_t *parent;
  hc_match_context_t *contexts;
  hc_peer_t *backlogged;         /* peers with packets waiting */
  hcomm_request_t *pending_head; /* matched rendezvous receives to start */
  hcomm_request_t *pending_tail;
  long spin;
  /* Until about then a peer reads a rendezvous we offered (progress.c:
   * a dedicated waiter polls on rather than sleeping); 0 when none. */
  uint64_t peer_reads_until_ns;
  /* The recurring wait in progress (progress.c), or NULL; until about
   * then its peers are due (0: not judged yet, or not due). */
  struct hc_progress_recurring *recurring;
  uint64_t peers_due_until_ns;
  int wait_ms;
  /* HCMPI_HANG_TIMEOUT watchdog (progress.c): seconds, 0 off; when the
   * current stretch without completions began, and the count then. */
  double hang_timeout;
  double idle_since;
  double idle_last; /* the watchdog's previous look */
  unsigned long idle_seen;
} hc_engine_t;

extern hc_engine_t hc_engine;

/* Inline: every engine call takes and drops the lock. */
static inline void hc_engine_lock(void) {
  if (hc_engine.locking)
    pthread_mutex_lock(&hc_engine.lock);
}

static inline void hc_engine_unlock(void) {
  if (hc_engine.locking)
    pthread_mutex_unlock(&hc_engine.lock);
}

/* Call after a packet was handed to peer's transport: one that is polled
 * only after sends (HC_TRANSPORT_POLL_AFTER_SEND) is polled next. */
static inline void hc_engine_sent_to(const hc_peer_t *peer) {
  if (peer->via->poll_after_send) {
    peer->via->sent = 1;
    hc_engine.quiet_sent = 1;
  }
}

/* HC_OK when initialised and not finalised, else HC_ERR_STATE. */
static inline hc_status_t hc_engine_check(void) {
  return hc_engine.initialized && !hc_engine.finalized ? HC_OK : HC_ERR_STATE;
}

/* Drives every transport, backlogs and pending work once; returns how much
 * happened.  Caller holds the lock. */
int hc_progress_locked(void);
/* Blocks until req is done (spin, then sleep without the lock). */
void hc_wait_locked(hcomm_request_t *req);
/* One step of a blocking loop that waits for messages and found nothing
 * to do: after enough fruitless spins, sleeps on every transport with the
 * lock dropped.  *spins counts the spins so far. */
void hc_idle_locked(long *spins);
/* The same for a loop that waits on a flag in shared memory whose writer
 * rings no doorbell (a window's lock word): oversubscribed, it yields
 * rather than sleeping soon (progress.c, the wait policy). */
void hc_idle_flag_locked(long *spins);
/* The wait policy for a loop that waits on something other than the
 * transports (the shared-memory collectives' flags; oversubscribed, it
 * yields sooner and sleeps later than a wait for messages): 1 while it
 * should poll again (past the pure polls, the core was yielded first);
 * 0 when it should sleep its own way now, failures and the hang watchdog
 * having been looked at as before any sleep. */
int hc_idle_poll_locked(long *spins);
/* Sleeps on every transport at most timeout_ms, as hc_idle_locked does,
 * unless ready(arg), which is asked once the transports are readied to
 * sleep: so a peer that publishes what ready reads, fences and then calls
 * hc_engine_wake_peer_locked for this rank cannot leave it asleep.
 * Caller holds the lock (dropped during the sleep). */
void hc_idle_sleep_unless_locked(int (*ready)(void *arg), void *arg,
                                 int timeout_ms);
/* 1 when every peer in world_ranks[0..n) can be woken through its
 * transport (its ops have wake). */
int hc_engine_can_wake_peers_locked(const int *world_ranks, int n);
/* Wakes world_rank through its transport, if it sleeps there. */
void hc_engine_wake_peer_locked(int world_rank);
/* Tells the hang watchdog that a wait that slept ended well although no
 * request completed (a shared-memory collective). */
void hc_watchdog_feed_locked(void);
/* Why a member of comm's group was lost (as a collective on it fails);
 * HC_OK when none was or the engine is finalizing. */
hc_status_t hc_comm_failure_locked(const hcomm_comm_t *comm);
/* HC_ERR_REVOKED when comm (or the one whose operations it carries) was
 * revoked, else HC_OK. */
hc_status_t hc_comm_revoked_locked(const hcomm_comm_t *comm);
/* Chooses the wait policy (oversubscribed or not) and, with a core per
 * local rank, binds the calling thread to its core (HCMPI_BIND=0: not).
 * Called once at init; idempotent. */
void hc_progress_policy_init(void);
/* A peer is about to read bytes of a rendezvous this rank offered. */
void hc_progress_peer_reads(size_t bytes);
/* A blocking wait that recurs (a window's fence): how long the last one
 * went on past the spin (0: not at all, or not yet), and when the present
 * one went past it; whether it polls through, until when, and the
 * thread's CPU time when it began to; the average share (percent) of the
 * last poll-throughs spent off the core; how many such waits sleep as
 * before since that passed its bound, and that count now.  Zero it to
 * start. */
typedef struct hc_progress_recurring {
  uint64_t last_ns, past_spin_ns;
  int polling_through;
  uint64_t poll_until_ns, poll_cpu_ns;
  unsigned off_core_percent;
  int sleeps_left, backoff;
} hc_progress_recurring_t;
/* Around one such wait (engine lock held): a dedicated rank polls through
 * it while its peers are due, judged by the last one (progress.c). */
void hc_progress_recurring_begin(hc_progress_recurring_t *wait);
void hc_progress_recurring_end(hc_progress_recurring_t *wait);
/* HCMPI_ASYNC_PROGRESS=1: starts the progress thread (and turns the engine
 * lock on); returns 1 when it runs.  Call after the transports are up,
 * without the lock.  stop joins it; call before taking the lock in
 * finalize. */
int hc_progress_thread_start(void);
void hc_progress_thread_stop(void);
/* At finalize: closes the user bell (hcomm_request_new_pending) and
 * forgets what it watched, so that the descriptor does not outlive the
 * engine and a later start makes a fresh one. */
void hc_progress_fini(void);
/* The transport of run-time peers (REACH_RUNTIME), started on the first
 * call; HC_ERR_NOT_SUPPORTED when none is compiled in.  Caller holds the
 * lock. */
hc_status_t hc_engine_runtime_transport(hc_engine_transport_t **t);
/* Numbers the next n run-time peers (the first in *first), reached
 * through t once their sockets are adopted; HC_ERR_NOMEM when that would
 * pass peers_max.  Caller holds the lock. */
hc_status_t hc_engine_peers_add(hc_engine_transport_t *t, int n, int *first);
/* Spawned: connects to the parents' port (HCMPI_PARENT_PORT from
 * hcmpirun, else launcher_port, what the bootstrap was handed; "" when not
 * spawned) at the end of init, without the lock (dynamic.c). */
hc_status_t hc_dynamic_init_parent(const char *launcher_port);
/* Finalize: closes the ports the program left open, before the
 * transports stop.  Caller holds the lock. */
void hc_dynamic_fini_locked(void);
/* Links between members of two groups of different jobs (comm.c's
 * intercommunicator creation): the accepting members listen (addr, of
 * HC_DYNAMIC_ADDR_MAX bytes), each accepts count connections presenting
 * token and a value below n, the dialer's rank in its group, and numbers
 * that member's new peer into remote[value] (-1 until then), named from
 * names; each dialing member dials one address per member it lacks,
 * presenting its rank.  Caller holds the lock; they drop it while they
 * wait on sockets. */
#define HC_DYNAMIC_ADDR_MAX 64
hc_status_t hc_dynamic_listen_locked(char *addr, void **listener);
void hc_dynamic_unlisten_locked(void *listener);
hc_status_t hc_dynamic_accept_locked(void *listener, const char *token,
                                     int count, int n,
                                     const hc_proc_name_t *names, int *remote);
hc_status_t hc_dynamic_dial_locked(const char *addr, const char *token,
                                   int value, const hc_proc_name_t *name,
                                   int *peer);
/* Process names (procname.c).  share: rank 0 makes the job's key and
 * publishes it before the init's first fence (before_fence), the others
 * read it after; a world of one makes its own.  Caller holds the lock for
 * the rest. */
hc_status_t hc_procname_share(int before_fence);
hc_proc_name_t hc_peer_name(int peer);
/* The peer named name: a world peer when it is of this job, else the
 * lowest-numbered live peer met at run time that carries it; -1 when none
 * (or name is of this job but no rank of it). */
int hc_peer_of_name(const hc_proc_name_t *name);
/* <0, 0, >0: an order on names every process sees alike. */
int hc_proc_name_cmp(const hc_proc_name_t *a, const hc_proc_name_t *b);
/* 1 when the names of a (na) and b (nb) together are of more than one
 * job. */
int hc_proc_names_span_jobs(const hc_proc_name_t *a, int na,
                            const hc_proc_name_t *b, int nb);
/* Set from the signal handler when the launcher told of a death
 * (bootstrap.h's failure_signal); progress then asks it which ranks died
 * (hc_engine_launcher_notice, caller holds the lock) and fails them. */
extern volatile sig_atomic_t hc_launcher_noticed;
void hc_engine_launcher_notice(void);
/* 1 when world_rank runs on this rank's node. */
int hc_engine_is_local(int world_rank);
/* What the transport that reaches world_rank says of its core against
 * this rank's (its placement op); UNKNOWN where it has no op, no
 * transport reaches the peer, or it is out of range.  Not for hot paths:
 * ask once and keep the answer. */
hc_transport_placement_t hc_engine_peer_placement(int world_rank);
/* The transports' peer_failed_cb: records that world_rank is lost and
 * why; the requests that need it fail with that status in the next
 * progress. */
void hc_engine_peer_failed(void *engine, int world_rank, hc_status_t why);

/* Locked point-to-point used inside the engine (comm.c, nbc.c, part.c);
 * coll is the hc_match_kind of the context (comm.h). */
hc_status_t hc_isend_locked(const void *buf, size_t bytes, int dest, int tag,
                            hcomm_comm_t *comm, int mode, int coll,
                            hcomm_request_t **req);
hc_status_t hc_irecv_locked(void *buf, size_t bytes, int source, int tag,
                            hcomm_comm_t *comm, int coll,
                            hcomm_request_t **req);
/* The same through an accessor (schedules of derived types, nbc.c). */
hc_status_t hc_isend_acc_locked(const hcomm_accessor_t *acc, size_t bytes,
                                int dest, int tag, hcomm_comm_t *comm,
                                int coll, hcomm_request_t **req);
hc_status_t hc_irecv_acc_locked(const hcomm_accessor_t *acc, size_t bytes,
                                int source, int tag, hcomm_comm_t *comm,
                                int coll, hcomm_request_t **req);
/* hcomm_imrecv with the lock held (rma.c takes its messages this way). */
hc_status_t hc_imrecv_locked(void *buf, size_t bytes, hcomm_message_t *msg,
                             hcomm_request_t **req);

#endif /* HC_CORE_H */
