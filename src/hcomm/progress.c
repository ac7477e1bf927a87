/* Progress and the blocking waits: spin on progress, then sleep on every
 * transport at once with the engine lock dropped, so ranks > cores stays
 * prompt.  Peer failures reported by a transport fail the
 * requests that need the peer here, outside any transport call. */
#include "config.h" /* _GNU_SOURCE, for sched_getaffinity */

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/counters.h"
#include "hcomm/devpath.h"
#include "hcomm/ft.h"
#include "hcomm/part.h"
#include "hcomm/nbc.h"
#include "hcomm/rma.h"
#include "hcomm/proto.h"
#include "util/env.h"
#include "util/lock.h"
#include "util/log.h"

/* A transport that sleeps its own way (no descriptor to poll) does not
 * see the others' wake-ups, nor they its: beside others each sleeps this
 * long at most and they take turns. */
#define PROGRESS_SHARED_WAIT_MS 1
/* The longest idle sleep while a schedule is in a shared-memory step:
 * such a step's partners ring the segment's bell, messages ring the
 * transports', and one sleep hears only one of them. */
#define PROGRESS_SHM_STEP_WAIT_MS 1

void hc_engine_peer_failed(void *engine, int world_rank, hc_status_t why) {
  (void)engine;
  if (hc_engine.peers == NULL || world_rank < 0 ||
      world_rank >= hc_engine.npeers || hc_engine.peers[world_rank].failed)
    return;
  hc_engine.peers[world_rank].failed = 1;
  hc_engine.peers[world_rank].failure = why;
  hc_engine.failed_peers++;
  hc_engine.failures_pending = 1;
}

int hcomm_failed_peers(int *world_ranks, int max) {
  hc_engine_lock();
  int n = 0;
  for (int w = 0; hc_engine.peers != NULL && w < hc_engine.world_size; w++) {
    if (!hc_engine.peers[w].failed)
      continue;
    if (n < max && world_ranks != NULL)
      world_ranks[n] = w;
    n++;
  }
  hc_engine_unlock();
  return n;
}

hc_status_t hcomm_peer_failure(int world_rank) {
  hc_engine_lock();
  hc_status_t why = HC_OK;
  if (hc_engine.peers != NULL && world_rank >= 0 &&
      world_rank < hc_engine.npeers && hc_engine.peers[world_rank].failed)
    why = hc_engine.peers[world_rank].failure;
  hc_engine_unlock();
  return why;
}

/* Why world_rank was lost; HC_OK when it was not. */
static hc_status_t progress_peer_failure(int world_rank) {
  if (world_rank < 0 || world_rank >= hc_engine.npeers ||
      !hc_engine.peers[world_rank].failed)
    return HC_OK;
  return hc_engine.peers[world_rank].failure;
}

/* Why a member of comm's (point-to-point) group was lost (the lowest such
 * world rank); HC_OK when none was.  Not during finalize: ranks that
 * passed the final barrier exit, which is no failure of the operations
 * still waiting on the ranks that remain. */
static hc_status_t progress_comm_failure(const hcomm_comm_t *comm) {
  if (hc_engine.finalizing)
    return HC_OK;
  for (int w = 0; comm != NULL && w < hc_engine.npeers; w++)
    if (hc_engine.peers[w].failed && comm->rank_of_world[w] >= 0)
      return hc_engine.peers[w].failure;
  return comm != NULL && comm->fails_with != NULL
             ? progress_comm_failure(comm->fails_with)
             : HC_OK;
}

hc_status_t hc_comm_revoked_locked(const hcomm_comm_t *comm) {
  if (hc_ft_nrevoked == 0)
    return HC_OK;
  for (; comm != NULL; comm = comm->fails_with)
    if (hc_ft_comm_revoked(comm))
      return HC_ERR_REVOKED;
  return HC_OK;
}

/* A matched rendezvous receive not yet started: proto starts it later. */
static int progress_rndv_pending(const hcomm_request_t *req) {
  for (const hcomm_request_t *p = hc_engine.pending_head; p != NULL;
       p = p->next)
    if (p == req)
      return 1;
  return 0;
}

/* A send waiting for the failed peer's FIN/ACK/CTS, or a matched receive
 * waiting for its DATA.  Sends still in a backlog fail as it drains.  On a
 * collective context any member's failure fails the operation: a live
 * partner may itself have given up on the collective, and would never
 * answer. */
static void progress_fail_one(hcomm_request_t *req, void *arg) {
  (void)arg;
  if ((req->kind != HC_REQ_SEND && req->kind != HC_REQ_RECV) || req->posted)
    return;
  hc_status_t why = hc_comm_revoked_locked(req->comm);
  if (why == HC_OK)
    why = progress_peer_failure(req->peer);
  if (why == HC_OK && hc_match_ctx_kind(req->match_ctx) == HC_CTX_COLL)
    why = progress_comm_failure(req->comm);
  if (why == HC_OK)
    return;
  if (req->kind == HC_REQ_SEND &&
      (req->backlog_item != NULL ||
       hc_engine.peers[req->peer].backlog_head != NULL))
    return;
  if (req->dev != NULL || progress_rndv_pending(req))
    return;
  if (req->kind == HC_REQ_RECV)
    req->status.bytes = 0;
  hc_request_complete(req, why);
}

/* Takes a posted receive out of its queue and completes it with why. */
static void progress_fail_posted_one(hcomm_request_t *req, hc_status_t why) {
  hc_match_entry_t *e = &req->entry;
  hc_match_remove(&hc_engine.contexts[req->match_ctx].posted, e);
  req->posted = 0;
  req->status.source = e->source == HCOMM_ANY_SOURCE
                           ? HCOMM_ANY_SOURCE
                           : hc_comm_rank_of_world(req->comm, e->source);
  req->status.bytes = 0;
  hc_request_complete(req, why);
}

/* Posted receives naming a failed peer as their source; collective ones on
 * a communicator with a failed member; any on a revoked communicator.  An
 * ANY_SOURCE receive stays posted while a failure is unacknowledged (ULFM:
 * a live sender may still match it; waits and tests report it pending,
 * a blocking wait gives it up, see hc_ft_recv_stalled), except the part
 * of a joined request, which fails as the dead one might have been its
 * sender. */
static void progress_fail_posted(void) {
  for (int c = 0; c < HC_MATCH_CONTEXTS; c++) {
    hc_match_entry_t *e = hc_engine.contexts[c].posted.head;
    while (e != NULL) {
      hc_match_entry_t *next = e->next;
      hcomm_request_t *req = (hcomm_request_t *)e;
      hc_status_t why = hc_comm_revoked_locked(req->comm);
      if (why == HC_OK)
        why = progress_peer_failure(e->source);
      if (why == HC_OK && hc_match_ctx_kind(c) == HC_CTX_COLL)
        why = progress_comm_failure(req->comm);
      else if (why == HC_OK && e->source == HCOMM_ANY_SOURCE &&
               req->join_parent != NULL)
        why = hc_ft_any_source_failure(req->comm); /* acknowledged: waits */
      if (why != HC_OK)
        progress_fail_posted_one(req, why);
      e = next;
    }
  }
}

/* Rerun while failures exist (from a wait about to sleep): a receive may
 * match a message of the failed peer, or be posted for it, later on. */
static void progress_apply_failures(void) {
  hc_engine.failures_pending = 0;
  if (hc_engine.peers == NULL || hc_engine.contexts == NULL)
    return;
  hc_request_foreach_active(progress_fail_one, NULL);
  progress_fail_posted();
}

/* The transports polled only after sends (self) that got one. */
static int progress_quiet_transports(void) {
  int moved = 0;
  hc_engine.quiet_sent = 0; /* what delivery sends sets it again */
  for (int i = 0; i < hc_engine.ntransports; i++) {
    hc_engine_transport_t *t = &hc_engine.transports[i];
    if (!t->poll_after_send || !t->sent)
      continue;
    t->sent = 0;
    moved += t->ops->progress(t->ctx);
  }
  return moved;
}

/* The transports polled after sends, the protocol's, device's,
 * collectives', partitioned and one-sided hooks and the failures to apply:
 * work an empty poll (most polls of a blocking wait) has none of. */
static int progress_hooks(void) {
  int moved = 0;
  if (hc_engine.quiet_sent)
    moved += progress_quiet_transports();
  if (hc_engine.backlogged != NULL || hc_engine.pending_head != NULL ||
      hc_devpath_nactive > 0)
    moved += hc_proto_progress();
  if (hc_nbc_nactive > 0)
    moved += hc_nbc_progress_locked(); /* non-blocking collectives */
  if (hc_part_nwaiting > 0)
    moved += hc_part_progress_locked(); /* partitioned receives (part.c) */
  if (hc_rma_nwindows > 0)
    moved += hc_rma_progress_locked(); /* one-sided active messages */
  if (hc_ft_nactive > 0)
    moved += hc_ft_progress_locked(); /* agreements and shrinks (ft.c) */
  if (hc_launcher_noticed) {
    hc_launcher_noticed = 0;
    hc_engine_launcher_notice();
    moved++;
  }
  if (hc_engine.failures_pending) {
    progress_apply_failures();
    moved++;
  }
  return moved;
}

static int progress_poll(void) {
  int moved = 0;
  const hc_engine_polled_t *p = hc_engine.polled;
  for (const hc_engine_polled_t *end = p + hc_engine.npolled; p < end; p++)
    moved += p->progress(p->ctx);
  /* One branch for all the hooks: the loads are of words that rarely
   * change, and the empty poll takes none of the calls. */
  if ((hc_engine.quiet_sent | hc_engine.failures_pending | hc_devpath_nactive |
       hc_nbc_nactive | hc_part_nwaiting | hc_rma_nwindows | hc_ft_nactive |
       hc_launcher_noticed | (hc_engine.backlogged != NULL) |
       (hc_engine.pending_head != NULL)) != 0)
    moved += progress_hooks();
  return moved;
}

/* The tool interface's clock: for the time waits sleep (a sleep is long
 * beside the call), and for the time polls take while a tool times them. */
static uint64_t progress_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int hc_progress_locked(void) {
  hc_counters.progress_polls++;
  /* Two clock reads would double an empty poll: only while asked. */
  if (!hc_counters.timing_progress)
    return progress_poll();
  uint64_t from = progress_now_ns();
  int moved = progress_poll();
  hc_counters.progress_ns += progress_now_ns() - from;
  return moved;
}

static void progress_print_waiting(hcomm_request_t *req, void *arg) {
  int *count = arg;
  const char *what = req->kind == HC_REQ_SEND   ? "send to"
                     : req->kind == HC_REQ_RECV ? "recv from"
                                                : "user request";
  int peer =
      req->kind == HC_REQ_RECV && req->posted ? req->entry.source : req->peer;
  int ctx = req->comm != NULL ? req->comm->context_id : -1;
  fprintf(stderr,
          "hcmpi: rank %d:   %s %d (world rank; -2 any) tag %d size %zu "
          "context %d%s%s\n",
          hc_engine.world_rank, what, peer, req->tag, req->bytes, ctx,
          hc_match_ctx_kind(req->match_ctx) == HC_CTX_COLL ? " (collective)"
          : hc_match_ctx_kind(req->match_ctx) == HC_CTX_PART
              ? " (partitioned)"
              : "",
          req->posted ? " (unmatched)" : "");
  ++*count;
}

static double progress_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* HCMPI_HANG_TIMEOUT: a rank that sleeps in a wait with no request
 * completing for that long is deadlocked, or waits for a hung peer; it
 * says what it waits for and ends the job rather than hang silently. */
static void progress_watchdog(void) {
  double now = progress_now();
  unsigned long done = hc_request_completions();
  double last = hc_engine.idle_last;
  hc_engine.idle_last = now;
  /* A gap between sleeps means the rank computed, not waited. */
  if (done != hc_engine.idle_seen || now - last > 1.0) {
    hc_engine.idle_seen = done;
    hc_engine.idle_since = now;
    return;
  }
  if (now - hc_engine.idle_since < hc_engine.hang_timeout)
    return;
  int count = 0;
  fprintf(stderr,
          "hcmpi: rank %d: no progress for %.0f s (HCMPI_HANG_TIMEOUT); "
          "pending requests:\n",
          hc_engine.world_rank, now - hc_engine.idle_since);
  hc_request_foreach_active(progress_print_waiting, &count);
  char why[96];
  snprintf(why, sizeof why, "rank %d hung with %d pending requests",
           hc_engine.world_rank, count);
  hcomm_abort(1, why);
}

/* Wait policy.  A peer's answer usually comes within a microsecond, and a
 * sleeping rank pays a futex wake-up (several microseconds) per message,
 * so a rank polls for a while before it sleeps on the doorbell.  How it
 * polls depends on whether it has a core of its own:
 * - dedicated (this kernel runs no more of the job's ranks than we may
 *   use cores; each rank is bound to one): pure polling, then sleep.  The
 *   peer that will answer runs on another core, so yielding ours cannot
 *   bring the answer sooner; it only hands the core to whatever else runs
 *   there (a busy loop, a daemon), which may then hold it for a whole time
 *   slice (with three nice-10 busy loops, Get with fence at 64 KiB fell to
 *   0.52 GB/s from 46 GB/s).  Sleeping gives the core away too, but the
 *   wake-up preempts the other work at once.
 * - oversubscribed (more ranks on this kernel than usable cores, counted
 *   across HCMPI_NODE_ID's fake nodes and namespace hosts, which share the
 *   cores), by what the wait is for:
 *   - messages (hc_idle_locked: point-to-point, one-sided, the transports'
 *     doorbells): yield from the first empty poll, a few hundred times
 *     (HCMPI_SPIN_CROWDED), then sleep.  The answer usually comes from a
 *     rank that shares our core and is runnable, and a yield hands the
 *     core to it at once, where a sleep costs the sender a futex wake and
 *     us a wake-up per message (4 ranks on 2 cores, 8 B: ~1.0-1.5 us
 *     yielding against ~1.5-4 us sleeping after 16 polls).  The bound on
 *     the yields keeps a rank whose answer is far off (a peer that
 *     computes, or 8 ranks on 2 cores) from staying in the run queue for
 *     long, where every switch to it is wasted and each yield can hand
 *     the core to other jobs' work; from there the doorbell's wake-up
 *     makes it runnable exactly when there is work.
 *   - flags in a shared-memory collective (hc_idle_poll_locked): yield
 *     from the first empty poll, then sleep: every rank of the collective
 *     is about to write, and the one sharing our core is the likeliest to
 *     (sleeping there made a 4-rank Bcast of 8 B 10x slower).
 *   Oversubscribed ranks are not bound: bound two to a core, a 4-rank
 *   Allreduce of 8 B took 70-190 us against 9-60 us unbound.
 * HCMPI_SPIN sets the polls before sleeping, HCMPI_SPIN_PURE those before
 * yielding starts, for both kinds when either is set;
 * HCMPI_OVERSUBSCRIBED=0/1 overrides the detection. */
#define PROGRESS_SPIN_DEDICATED 4000
/* Oversubscribed, waits on flags: yield for about a millisecond, then
 * sleep.  At 4 ranks on 2 cores, 8 B: 4.7-6.3 us against 14-23 us with 16
 * polls and 32 yields before sleeping (Open MPI, which yields and never
 * sleeps: 3-3.8 us in the same minutes). */
#define PROGRESS_SPIN_SHARED 2000
#define PROGRESS_PURE_SHARED 0
/* Oversubscribed, waits for messages: 256 polls (HCMPI_SPIN_CROWDED),
 * each after a yield, then sleep.  bench/latency 8 B, interleaved with 16
 * pure polls before the sleep (osub17's policy; bench/NOTES.md, rate17f):
 * 4 ranks on 2 cores median 1.18 us against 1.52 (and no 5-11 us runs),
 * 8 ranks 4.6 against 5.2.  osub17 found 2000 yields 2.5x slower than
 * sleeping at 8 ranks beside other jobs (load ~20): 256 keeps the
 * yielding to a few hundred microseconds at most.  64 was no quicker at 8
 * ranks beside other jobs (20 interleaved rounds, crowd30). */
#define PROGRESS_SPIN_SHARED_MESSAGES 256
#define PROGRESS_PURE_SHARED_MESSAGES 0

static int progress_policy_ready;
static int progress_oversubscribed;
static long progress_pure_polls; /* polls before yielding starts */
/* Waits for messages: the polls before sleeping (at most hc_engine.spin,
 * which tools may lower), and those before yielding starts. */
static long progress_message_spin;
static long progress_message_pure;
static cpu_set_t progress_cpus;  /* the affinity this process started with */
static int progress_cpus_known;

static int progress_usable_cpus(void) {
  CPU_ZERO(&progress_cpus);
  if (sched_getaffinity(0, sizeof progress_cpus, &progress_cpus) != 0)
    return 1;
  progress_cpus_known = 1;
  int n = CPU_COUNT(&progress_cpus);
  return n > 0 ? n : 1;
}

/* One core per rank of this kernel (the cpu_rank-th allowed CPU), for the
 * calling thread only.  Unbound, two ranks that wake each other through futexes
 * tend to be pulled onto one core (wake-affine scheduling), where each
 * hand-off then waits for a time slice.  HCMPI_BIND=0 leaves placement to
 * the scheduler. */
static void progress_bind(void) {
  if (!progress_cpus_known || hc_engine.cpu_size < 2 ||
      !hc_env_bool("HCMPI_BIND", 1))
    return;
  int want = hc_engine.cpu_rank, seen = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &progress_cpus) || seen++ != want)
      continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
      hc_log(HC_LOG_DEBUG, "engine", "binding to cpu %d failed", cpu);
    return;
  }
}

static void progress_policy_setup(void) {
  progress_policy_ready = 1;
  int over = hc_engine.cpu_size > progress_usable_cpus();
  over = hc_env_bool("HCMPI_OVERSUBSCRIBED", over);
  progress_oversubscribed = over;
  if (hc_env_string("HCMPI_SPIN", NULL) == NULL)
    hc_engine.spin = over ? PROGRESS_SPIN_SHARED : PROGRESS_SPIN_DEDICATED;
  long pure = over ? PROGRESS_PURE_SHARED : hc_engine.spin;
  progress_pure_polls = hc_env_long("HCMPI_SPIN_PURE", pure);
  progress_message_spin = hc_engine.spin;
  progress_message_pure = progress_pure_polls;
  /* HCMPI_SPIN_CROWDED, the more specific, wins over HCMPI_SPIN(_PURE);
   * its default only where neither is set. */
  int crowded_set = hc_env_string("HCMPI_SPIN_CROWDED", NULL) != NULL;
  int spin_set = hc_env_string("HCMPI_SPIN", NULL) != NULL ||
                 hc_env_string("HCMPI_SPIN_PURE", NULL) != NULL;
  if (over && (crowded_set || !spin_set)) {
    progress_message_spin =
        hc_env_long("HCMPI_SPIN_CROWDED", PROGRESS_SPIN_SHARED_MESSAGES);
    progress_message_pure = PROGRESS_PURE_SHARED_MESSAGES;
  }
  if (!over)
    progress_bind();
}

void hc_progress_policy_init(void) {
  if (!progress_policy_ready)
    progress_policy_setup();
}

/* The slowest copy rate a peer's single-copy read of our rendezvous is
 * expected to keep (bytes per ns), and the longest wait that counts on
 * it.  A 1 MiB read takes about 85 us here, longer than the dedicated
 * spin (4000 polls, 40-80 us); sleeping just before the FIN arrives cost
 * a wake-up per message: 1 MiB ping-pong 120-128 us, 90 us polling on. */
#define PROGRESS_PEER_READ_BYTES_PER_NS 4
#define PROGRESS_PEER_READ_MAX_NS 20000000u

void hc_progress_peer_reads(size_t bytes) {
  uint64_t ns = bytes / PROGRESS_PEER_READ_BYTES_PER_NS;
  if (ns > PROGRESS_PEER_READ_MAX_NS)
    ns = PROGRESS_PEER_READ_MAX_NS;
  uint64_t until = progress_now_ns() + ns;
  if (until > hc_engine.peer_reads_until_ns)
    hc_engine.peer_reads_until_ns = until;
}

/* A wait that recurs, such as the barrier that ends each fence epoch of
 * a window, tends to last about as long as it did the last time: the
 * peers do the same work in each epoch.  A rank that waits for peers
 * working on its window (a fence's target, which issues nothing) sleeps
 * past the spin, and each epoch's end then pays its wake-up: 35-45 us
 * here per fence (KVM, load 2), 4 % of a 1 ms epoch (Get with fence, 32 x
 * 1 MiB).  So a dedicated rank polls through such a wait for up to twice
 * as long past the spin as the last one went on past it, when that was at
 * most this long: beyond it a wake-up is 1 % of the epoch or less, not
 * worth a core polling for milliseconds.  The clock is read only past the
 * spin: a fence is a few hundred ns when the peers are there. */
#define PROGRESS_RECURRING_MAX_NS 4000000u
/* A rank that other work on its core preempts while it polls through is
 * off the core when its peers arrive, for up to a time slice, where a
 * sleeper's wake-up would have preempted that work at once: it does not
 * own its core after all.  How much of a poll-through it spent off the
 * core is its wall time less the thread's CPU time (polling, it is never
 * off by choice).  When that share, averaged over the last poll-throughs
 * (each weighs 1/PROGRESS_RECURRING_OFF_CORE_WEIGHT), passes this
 * percent, the next PROGRESS_RECURRING_BACKOFF such waits sleep as
 * before, doubled while it keeps happening (rma19i, beside two busy
 * loops, 1 MiB Get with fence: 16.5 GB/s backing off, 15.4 polling through
 * each time, 15.8 sleeping each time).  Poll-throughs each half off the
 * core (work sharing it turn for turn) pass the bound at the third in a
 * row.  Other sessions' nice builds take 0-5 % of most, and now and then
 * a whole slice (1.5 of a 1.9 ms poll-through at load 10); backing off
 * after any preemption, as rma19i did, left the target of 1 MiB Get with
 * fence or PSCW asleep in most epochs (bench/NOTES.md, rma20, rma21).  The
 * bound is the shm transport's for streaming (HCMPI_SHM_STREAM_RUNQ_MAX). */
#define PROGRESS_RECURRING_OFF_CORE_PERCENT 25
#define PROGRESS_RECURRING_OFF_CORE_WEIGHT 4
#define PROGRESS_RECURRING_BACKOFF 16
#define PROGRESS_RECURRING_BACKOFF_MAX 1024

/* The calling thread's CPU time so far (ns). */
static uint64_t progress_thread_cpu_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void hc_progress_recurring_begin(hc_progress_recurring_t *wait) {
  wait->past_spin_ns = 0;
  hc_engine.recurring = wait;
}

/* Takes the poll-through of wait, ended by now, into its average share
 * off the core; returns whether that passes the bound.  Past the
 * poll-through's end the rank slept (its CPU time stands still): that
 * time is not counted. */
static int progress_recurring_preempted(hc_progress_recurring_t *wait,
                                        uint64_t now) {
  uint64_t end = now < wait->poll_until_ns ? now : wait->poll_until_ns;
  if (end > wait->past_spin_ns) {
    uint64_t wall = end - wait->past_spin_ns;
    uint64_t cpu = progress_thread_cpu_ns() - wait->poll_cpu_ns;
    unsigned percent = wall > cpu ? (unsigned)((wall - cpu) * 100 / wall) : 0;
    wait->off_core_percent =
        (wait->off_core_percent * (PROGRESS_RECURRING_OFF_CORE_WEIGHT - 1) +
         percent) /
        PROGRESS_RECURRING_OFF_CORE_WEIGHT;
  }
  return wait->off_core_percent > PROGRESS_RECURRING_OFF_CORE_PERCENT;
}

void hc_progress_recurring_end(hc_progress_recurring_t *wait) {
  uint64_t now = wait->past_spin_ns != 0 ? progress_now_ns() : 0;
  wait->last_ns = now != 0 ? now - wait->past_spin_ns : 0;
  if (wait->polling_through) {
    wait->polling_through = 0;
    if (progress_recurring_preempted(wait, now)) {
      if (wait->backoff == 0)
        wait->backoff = PROGRESS_RECURRING_BACKOFF;
      else if (wait->backoff < PROGRESS_RECURRING_BACKOFF_MAX)
        wait->backoff *= 2;
      wait->sleeps_left = wait->backoff;
    } else if (hc_engine.peers_due_until_ns != 0) {
      wait->backoff = 0; /* the peers came while it polled, on its core */
    }
  }
  hc_engine.recurring = NULL;
  hc_engine.peers_due_until_ns = 0; /* what follows is another wait */
}

/* The recurring wait in progress went past the spin at now: from when its
 * peers count as overdue. */
static void progress_recurring_past_spin(uint64_t now) {
  hc_progress_recurring_t *wait = hc_engine.recurring;
  if (wait == NULL || wait->past_spin_ns != 0)
    return;
  wait->past_spin_ns = now;
  if (wait->last_ns == 0 || wait->last_ns > PROGRESS_RECURRING_MAX_NS)
    return;
  if (wait->sleeps_left > 0) {
    wait->sleeps_left--;
    return;
  }
  uint64_t ns = 2 * wait->last_ns;
  wait->poll_until_ns =
      now + (ns < PROGRESS_RECURRING_MAX_NS ? ns : PROGRESS_RECURRING_MAX_NS);
  hc_engine.peers_due_until_ns = wait->poll_until_ns;
  wait->polling_through = 1;
  wait->poll_cpu_ns = progress_thread_cpu_ns();
}

/* Past the spin, a dedicated rank whose peer still reads what it offered,
 * or whose recurring wait's peers are due, polls on: the answer comes
 * within the read's time (the epoch's), sooner than a sleep and its
 * wake-up.  Oversubscribed, the peer may need our core. */
static int progress_peer_answers_soon(long *spins) {
  if (progress_oversubscribed || hc_engine.spin < 64 ||
      (hc_engine.peer_reads_until_ns == 0 && hc_engine.recurring == NULL))
    return 0;
  uint64_t now = progress_now_ns();
  progress_recurring_past_spin(now);
  uint64_t until = hc_engine.peer_reads_until_ns;
  if (hc_engine.peers_due_until_ns > until)
    until = hc_engine.peers_due_until_ns;
  if (now >= until) {
    hc_engine.peer_reads_until_ns = 0;
    hc_engine.peers_due_until_ns = 0;
    return 0;
  }
  *spins = hc_engine.spin - 64; /* the clock again in 64 polls */
  return 1;
}

/* 1 while a blocking loop that found nothing should poll again rather
 * than sleep; past the pure polls, yields the core first.  messages: the
 * loop waits for messages (see the wait policy above). */
static int progress_keep_polling(long *spins, int messages) {
  if (!progress_policy_ready)
    progress_policy_setup();
  long n = ++*spins;
  long spin = hc_engine.spin, pure = progress_pure_polls;
  if (messages) {
    spin = progress_message_spin < spin ? progress_message_spin : spin;
    pure = progress_message_pure;
  }
  if (n >= spin)
    return progress_peer_answers_soon(spins);
  if (n > pure) {
    hc_engine_unlock();
    sched_yield();
    hc_engine_lock();
  }
  return 1;
}

/* Requests that another thread completes (hcomm_request_user_complete: a
 * generalized request's MPI_Grequest_complete, the MPI-IO worker's and
 * io_uring reaper's) wake no transport, so a waiter asleep on the
 * transports would see them only at its timeout (HCMPI_WAIT_MS, per
 * nonblocking file access).  While any is pending, a sleep also polls
 * this eventfd, which each such completion writes.  One the caller freed
 * first is no longer watched for: no wait can be waiting for it. */
static struct {
  int fd;      /* made with the first pending request; -1 none */
  int pending; /* started, neither completed nor freed (engine lock) */
} progress_user = {-1, 0};

/* Under the engine lock: req no longer keeps sleeps watching the bell. */
static void progress_user_unwatch(hcomm_request_t *req) {
  if (!req->user_bell)
    return;
  req->user_bell = 0;
  if (progress_user.pending > 0)
    progress_user.pending--;
}

void hc_progress_fini(void) {
  if (progress_user.fd >= 0)
    close(progress_user.fd);
  progress_user.fd = -1;
  progress_user.pending = 0;
}

/* Drains the wake-ups the user bell holds (nonblocking). */
static void progress_user_bell_drain(void) {
  uint64_t wakes;
  while (read(progress_user.fd, &wakes, sizeof wakes) > 0)
    ;
}

/* What the transports' wait_fd said, for one sleep (one more descriptor:
 * the user bell). */
typedef struct progress_sleep_set {
  struct pollfd fds[HC_ENGINE_TRANSPORTS_MAX + 1];
  int nfds;
  int user_bell;                     /* fds holds progress_user.fd */
  int own[HC_ENGINE_TRANSPORTS_MAX]; /* those that sleep through wait */
  int nown;
  int armed[HC_ENGINE_TRANSPORTS_MAX]; /* those owed a wait_done */
  int ntransports; /* those begin saw: another thread may add one (a
                    * spawn's or a port's runtime transport) while this
                    * one sleeps without the lock */
  int now;                             /* one has work now: no sleep */
  int timeout_ms;
} progress_sleep_set_t;

/* The transports that said _OWN, asked through wait_pollfd: those that
 * now give a descriptor (or _NOW) leave the own list for the poll. */
static void progress_sleep_ask_pollfds(progress_sleep_set_t *set,
                                       int *timeout_ms) {
  int kept = 0;
  for (int k = 0; k < set->nown; k++) {
    int i = set->own[k];
    hc_engine_transport_t *t = &hc_engine.transports[i];
    int fd = t->ops->wait_pollfd(t->ctx, timeout_ms);
    if (fd >= 0)
      set->fds[set->nfds++] = (struct pollfd){.fd = fd, .events = POLLIN};
    else if (fd != HC_TRANSPORT_WAIT_NOW)
      set->own[kept++] = i;
    set->armed[i] = fd >= 0 || fd == HC_TRANSPORT_WAIT_NOW;
    set->now |= fd == HC_TRANSPORT_WAIT_NOW;
  }
  set->nown = kept;
}

/* Under the engine lock, as progress: readies every transport to sleep
 * (wait_fd) for at most timeout_ms.  armed_only: the caller checks its own
 * condition after this, so every transport must be readied now: those that
 * sleep their own way are asked for a descriptor, and where one has none
 * (it readies itself only inside wait) the sleep is kept short. */
static void progress_sleep_begin_as(progress_sleep_set_t *set, int timeout_ms,
                                    int armed_only) {
  set->nfds = set->nown = set->now = 0;
  /* With the user bell in the poll, a transport that sleeps its own way
   * is asked for a descriptor as beside others. */
  set->user_bell = progress_user.pending > 0 && progress_user.fd >= 0;
  armed_only |= set->user_bell;
  set->ntransports = hc_engine.ntransports;
  for (int i = 0; i < set->ntransports; i++) {
    hc_engine_transport_t *t = &hc_engine.transports[i];
    int fd = t->ops->wait_fd(t->ctx, &timeout_ms);
    set->armed[i] = fd >= 0 || fd == HC_TRANSPORT_WAIT_NOW;
    if (fd >= 0)
      set->fds[set->nfds++] = (struct pollfd){.fd = fd, .events = POLLIN};
    else if (fd == HC_TRANSPORT_WAIT_OWN)
      set->own[set->nown++] = i;
    set->now |= fd == HC_TRANSPORT_WAIT_NOW;
  }
  /* Beside others, one that sleeps its own way is asked for a descriptor
   * after all (shm's pollable doorbell), so that one poll covers them. */
  if (set->nown > 0 && (armed_only || set->nown + (set->nfds > 0) > 1))
    progress_sleep_ask_pollfds(set, &timeout_ms);
  /* One that still sleeps its own way sees neither the poll's wake-ups
   * nor another's: beside others, each waits briefly in turn. */
  if (set->nown > 0 && (armed_only || set->nown + (set->nfds > 0) > 1) &&
      timeout_ms > PROGRESS_SHARED_WAIT_MS)
    timeout_ms = PROGRESS_SHARED_WAIT_MS;
  if (set->user_bell)
    set->fds[set->nfds++] =
        (struct pollfd){.fd = progress_user.fd, .events = POLLIN};
  set->timeout_ms = timeout_ms;
}

static void progress_sleep_begin(progress_sleep_set_t *set, int timeout_ms) {
  progress_sleep_begin_as(set, timeout_ms, 0);
}

/* Without the engine lock: sleeps until some transport may have work or
 * the timeout passed (one poll over every descriptor, then the waits of
 * those without one), and ends what begin readied (wait_done).  Returns 0
 * when no transport had anything to sleep on (the caller pauses its own
 * way). */
static int progress_sleep_unlocked(progress_sleep_set_t *set) {
  if (!set->now && set->nfds > 0)
    poll(set->fds, (nfds_t)set->nfds, set->timeout_ms);
  for (int k = 0; !set->now && k < set->nown; k++) {
    hc_engine_transport_t *t = &hc_engine.transports[set->own[k]];
    t->ops->wait(t->ctx, set->timeout_ms);
  }
  for (int i = 0; i < set->ntransports; i++) {
    hc_engine_transport_t *t = &hc_engine.transports[i];
    if (set->armed[i])
      t->ops->wait_done(t->ctx);
  }
  /* Drained after the sleep, never before it: a completion between the
   * waiter's last look and its poll leaves the bell readable. */
  if (set->user_bell)
    progress_user_bell_drain();
  return set->now || set->nfds > 0 || set->nown > 0;
}

static int progress_idle_poll(long *spins, int messages) {
  if (progress_keep_polling(spins, messages))
    return 1;
  *spins = 0;
  if (hc_engine.failed_peers > 0 || hc_ft_nrevoked > 0)
    progress_apply_failures();
  if (hc_engine.hang_timeout > 0)
    progress_watchdog();
  return 0;
}

int hc_idle_poll_locked(long *spins) { return progress_idle_poll(spins, 0); }

void hc_watchdog_feed_locked(void) {
  if (hc_engine.hang_timeout > 0)
    hc_engine.idle_since = progress_now();
}

hc_status_t hc_comm_failure_locked(const hcomm_comm_t *comm) {
  hc_status_t why = hc_comm_revoked_locked(comm);
  if (why != HC_OK)
    return why;
  return hc_engine.failed_peers > 0 ? progress_comm_failure(comm) : HC_OK;
}

/* messages: the loop waits for messages (hc_idle_locked), not for a flag
 * in shared memory (hc_idle_flag_locked). */
static void progress_idle(long *spins, int messages) {
  /* Beside a collective step that sleeps on its segment's bell or polls a
   * device event (1 ms sleeps that no message ends), every wait polls as
   * one on flags. */
  if (progress_idle_poll(spins,
                         messages && hc_nbc_nshm == 0 && hc_nbc_npoll == 0))
    return;
  /* A shared-memory collective step is woken by its segment's bell, not
   * by a transport; the bell sleep is kept short, as no message wakes it. */
  if (hc_nbc_nshm > 0 && hc_nbc_shm_sleep_locked(PROGRESS_SHM_STEP_WAIT_MS))
    return;
  progress_sleep_set_t set;
  /* A poll step (a device event) wakes no transport either. */
  progress_sleep_begin(&set, hc_nbc_nshm > 0 || hc_nbc_npoll > 0
                                 ? PROGRESS_SHM_STEP_WAIT_MS
                                 : hc_engine.wait_ms);
  uint64_t slept_from = progress_now_ns();
  hc_engine_unlock();
  if (!progress_sleep_unlocked(&set)) {
    /* Only this process (or another of its threads) can make progress. */
    struct timespec ts = {0, 50 * 1000};
    nanosleep(&ts, NULL);
  }
  hc_engine_lock();
  hc_counters.wait_sleep_ns += progress_now_ns() - slept_from;
}

void hc_idle_locked(long *spins) { progress_idle(spins, 1); }

void hc_idle_flag_locked(long *spins) { progress_idle(spins, 0); }

void hc_idle_sleep_unless_locked(int (*ready)(void *arg), void *arg,
                                 int timeout_ms) {
  progress_sleep_set_t set;
  progress_sleep_begin_as(&set, timeout_ms, 1);
  uint64_t slept_from = progress_now_ns();
  hc_engine_unlock();
  if (ready(arg))
    set.now = 1; /* only ends what begin readied */
  if (!progress_sleep_unlocked(&set)) {
    struct timespec ts = {0, 50 * 1000};
    nanosleep(&ts, NULL);
  }
  hc_engine_lock();
  hc_counters.wait_sleep_ns += progress_now_ns() - slept_from;
}

int hc_engine_can_wake_peers_locked(const int *world_ranks, int n) {
  for (int i = 0; i < n; i++) {
    int w = world_ranks[i];
    if (w < 0 || w >= hc_engine.npeers)
      return 0;
    const hc_peer_t *p = &hc_engine.peers[w];
    if (w != hc_engine.world_rank && (p->ops == NULL || p->ops->wake == NULL))
      return 0;
  }
  return 1;
}

void hc_engine_wake_peer_locked(int world_rank) {
  if (world_rank < 0 || world_rank >= hc_engine.npeers)
    return;
  const hc_peer_t *p = &hc_engine.peers[world_rank];
  if (p->ops != NULL && p->ops->wake != NULL)
    p->ops->wake(p->tctx, world_rank);
}

/* A blocking wait cannot leave a request pending: a wildcard receive
 * that an unacknowledged failure stalls is given up with that failure
 * (MPI_Recv from MPI_ANY_SOURCE returns MPIX_ERR_PROC_FAILED). */
static int progress_give_up_stalled(hcomm_request_t *req) {
  hc_status_t why = hc_ft_recv_stalled(req);
  if (why == HC_OK)
    return 0;
  progress_fail_posted_one(req, why);
  return 1;
}

void hc_wait_locked(hcomm_request_t *req) {
  long spins = 0;
  while (!atomic_load(&req->done)) {
    if (hc_progress_locked() > 0) {
      spins = 0;
      continue;
    }
    if (atomic_load(&req->done) || progress_give_up_stalled(req))
      break;
    hc_idle_locked(&spins);
  }
}

void hcomm_progress(void) {
  hc_engine_lock();
  if (hc_engine_check() == HC_OK)
    hc_progress_locked();
  hc_engine_unlock();
}

void hcomm_progress_idle(long *spins) {
  hc_engine_lock();
  if (hc_engine_check() != HC_OK || hc_progress_locked() > 0) {
    *spins = 0;
    hc_engine_unlock();
    return;
  }
  int poll_again = hc_idle_poll_locked(spins);
  hc_engine_unlock();
  if (!poll_again) {
    /* Not hc_idle_locked's sleep on the transports: the work watched may
     * complete on another thread without any message to this rank. */
    struct timespec ts = {0, 50 * 1000};
    nanosleep(&ts, NULL);
  }
}

int hcomm_request_done(const hcomm_request_t *req) {
  return req != NULL && atomic_load(&req->done);
}

int hcomm_request_failure_pending(const hcomm_request_t *req) {
  if (req == NULL || atomic_load(&req->done))
    return 0;
  hc_engine_lock();
  int stalled = hc_ft_recv_stalled(req) != HC_OK;
  hc_engine_unlock();
  return stalled;
}

int hcomm_requests_keep_pending(int n, hcomm_request_t **reqs) {
  int left = 0;
  hc_engine_lock();
  for (int i = 0; i < n; i++) {
    hcomm_request_t *req = reqs[i];
    if (req == NULL)
      continue;
    if (atomic_load(&req->done) || hc_ft_recv_stalled(req) != HC_OK)
      reqs[i] = NULL;
    else
      left++;
  }
  hc_engine_unlock();
  return left;
}

/* A collective's own step first: a round of every transport costs more
 * than the flags it waits for, which are mostly already raised. */
static int progress_settle(hcomm_request_t *req) {
  return hc_nbc_nactive > 0 && hc_nbc_settle_locked(req);
}

hc_status_t hcomm_test(hcomm_request_t *req, int *done,
                       hcomm_status_t *status) {
  if (req == NULL || done == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  if (!atomic_load(&req->done) && hc_engine_check() == HC_OK &&
      !progress_settle(req))
    hc_progress_locked();
  *done = atomic_load(&req->done);
  hc_status_t rc = HC_OK;
  if (*done) {
    if (status != NULL)
      *status = req->status;
    rc = req->status.error;
  } else if (hc_ft_recv_stalled(req) != HC_OK) {
    rc = HC_ERR_PEER_DEAD_PENDING;
  }
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_wait(hcomm_request_t *req, hcomm_status_t *status) {
  if (req == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  if (!atomic_load(&req->done)) {
    hc_status_t rc = hc_engine_check();
    if (rc != HC_OK) {
      hc_engine_unlock();
      return rc;
    }
    if (!progress_settle(req))
      hc_wait_locked(req);
  }
  if (status != NULL)
    *status = req->status;
  hc_status_t rc = req->status.error;
  hc_engine_unlock();
  return rc;
}

/* Counts the requests that are complete or stalled by a failure (whose
 * wait would not end by itself); *stalled how many are the latter. */
static int progress_count_done(int n, hcomm_request_t *const *reqs, int *active,
                               int *stalled) {
  int done = 0;
  *active = *stalled = 0;
  for (int i = 0; i < n; i++) {
    if (reqs[i] == NULL)
      continue;
    (*active)++;
    if (atomic_load(&reqs[i]->done)) {
      done++;
    } else if (hc_engine.failed_peers > 0 &&
               hc_ft_recv_stalled(reqs[i]) != HC_OK) {
      done++;
      (*stalled)++;
    }
  }
  return done;
}

/* The index of the first of reqs[from..n) that is neither NULL nor
 * complete; n when there is none. */
static int progress_first_running(int n, hcomm_request_t *const *reqs,
                                  int from) {
  while (from < n && (reqs[from] == NULL || atomic_load(&reqs[from]->done)))
    from++;
  return from;
}

hc_status_t hcomm_wait_some(int n, hcomm_request_t *const *reqs, int min_done) {
  if (n < 0 || (n > 0 && reqs == NULL))
    return HC_ERR_ARG;
  hc_engine_lock();
  long spins = 0;
  int active = 0, stalled = 0, done = 0, want = 0;
  unsigned long seen = hc_request_completions();
  int failed_seen = hc_engine.failed_peers;
  /* A wait for all of them with no peer lost (no receive can stall) only
   * asks whether one is still running: every request before first is
   * done (or NULL), so each scan goes on from the first still running
   * instead of counting all n again (a window of 64 receives completing
   * one by one cost 64 loads per completion).  A wait that names all n
   * (min_done >= n, MPI_Waitall's) starts so, without a first count
   * (want is then 1).  A failure seen during the wait turns it into a
   * count. */
  int first = 0;
  int all = min_done >= n && failed_seen == 0;
  if (all) {
    first = progress_first_running(n, reqs, 0);
    want = 1;
    done = first == n;
  } else {
    done = progress_count_done(n, reqs, &active, &stalled);
    want = min_done < active ? min_done : active;
    all = want == active && failed_seen == 0;
  }
  hc_status_t rc = HC_OK;
  if (done < want && n == 1 && hc_engine_check() == HC_OK &&
      progress_settle(reqs[0]))
    done = want;
  while (done < want) {
    rc = hc_engine_check();
    if (rc != HC_OK)
      break;
    if (hc_progress_locked() > 0)
      spins = 0;
    else
      hc_idle_locked(&spins);
    /* Rescanning n requests on every spin would make large waits
     * quadratic; only a completion somewhere, or a failure that stalls a
     * wildcard receive, can change the count. */
    if (hc_request_completions() != seen ||
        hc_engine.failed_peers != failed_seen) {
      seen = hc_request_completions();
      failed_seen = hc_engine.failed_peers;
      all = all && failed_seen == 0;
      if (all) {
        first = progress_first_running(n, reqs, first);
        done = first == n ? want : 0; /* only done < want is read */
      } else {
        done = progress_count_done(n, reqs, &active, &stalled);
        want = min_done < active ? min_done : active;
      }
    }
  }
  /* A wait that returns for a stalled receive moves messages once, as a
   * test does: a loop of such waits must see a live sender's message. */
  if (stalled > 0 && rc == HC_OK)
    hc_progress_locked();
  hc_engine_unlock();
  return rc;
}

int hcomm_request_free(hcomm_request_t *req) {
  if (req == NULL)
    return 0;
  hc_engine_lock();
  int released = atomic_load(&req->done);
  if (released) {
    hc_request_release(req);
  } else {
    req->user_freed = 1;
    progress_user_unwatch(req);
  }
  hc_engine_unlock();
  return released;
}

int hcomm_request_reap(hcomm_request_t *req, hcomm_status_t *status) {
  hcomm_status_t unread;
  return hcomm_requests_reap(1, &req, status != NULL ? status : &unread);
}

int hcomm_requests_reap(int n, hcomm_request_t **reqs,
                        hcomm_status_t *statuses) {
  int reaped = 0;
  hc_engine_lock();
  for (int i = 0; i < n; i++) {
    hcomm_request_t *req = reqs[i];
    if (req == NULL || !atomic_load(&req->done))
      continue;
    statuses[i] = req->status;
    hc_request_release_to_owner(req); /* hcomm.h: no drop */
    reqs[i] = NULL;
    reaped++;
  }
  hc_engine_unlock();
  return reaped;
}

hc_status_t hcomm_wait_free(hcomm_request_t *req, hcomm_status_t *status) {
  if (req == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = HC_OK;
  if (!atomic_load(&req->done) && (rc = hc_engine_check()) == HC_OK)
    hc_wait_locked(req);
  if (rc != HC_OK) { /* cannot wait: released when it completes */
    req->user_freed = 1;
    hc_engine_unlock();
    return rc;
  }
  if (status != NULL)
    *status = req->status;
  rc = req->status.error;
  hc_request_release(req);
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_cancel(hcomm_request_t *req) {
  if (req == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_proto_cancel(req);
  hc_engine_unlock();
  return HC_OK;
}

hc_status_t hcomm_request_new_completed(const hcomm_status_t *status,
                                        hcomm_request_t **req) {
  if (req == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hcomm_request_t *r = hc_request_alloc(HC_REQ_USER);
  if (r == NULL) {
    hc_engine_unlock();
    return HC_ERR_NOMEM;
  }
  if (status != NULL)
    r->status = *status;
  atomic_store(&r->done, 1);
  hc_engine_unlock();
  *req = r;
  return HC_OK;
}

hc_status_t hcomm_request_new_pending(hcomm_request_t **req) {
  if (req == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hcomm_request_t *r = hc_request_alloc(HC_REQ_USER);
  if (r != NULL && progress_user.fd < 0)
    progress_user.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (r != NULL) {
    r->user_bell = 1;
    progress_user.pending++;
  }
  hc_engine_unlock();
  if (r == NULL)
    return HC_ERR_NOMEM;
  *req = r;
  return HC_OK;
}

hc_status_t hcomm_request_user_complete(hcomm_request_t *req,
                                        const hcomm_status_t *status,
                                        int *freed) {
  if (req == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = HC_OK;
  if (req->kind != HC_REQ_USER || req->released || atomic_load(&req->done)) {
    rc = HC_ERR_REQUEST;
  } else {
    if (status != NULL)
      req->status = *status;
    progress_user_unwatch(req);
    if (freed != NULL)
      *freed = req->user_freed;
    hc_request_complete(req, req->status.error); /* releases a freed one */
    /* Wakes a waiter asleep on the transports (another thread's): one
     * write, as the completer cannot tell whether one sleeps. */
    uint64_t one = 1;
    if (progress_user.fd >= 0 &&
        write(progress_user.fd, &one, sizeof one) < 0 && errno != EAGAIN)
      hc_log(HC_LOG_DEBUG, "engine", "user bell: %s", strerror(errno));
  }
  hc_engine_unlock();
  return rc;
}

/* HCMPI_ASYNC_PROGRESS=1: a thread that progresses the engine while the
 * application computes, so a rendezvous (RTS, the receiver's CMA read,
 * FIN) completes without the application calling in.  It only ever
 * try-locks the engine: when an application thread holds the lock, that
 * thread is progressing already, and a thread blocked on the mutex would
 * cost every unlock a futex wake-up.  Idle, it sleeps on the doorbell. */
#define PROGRESS_THREAD_POLLS 256
#define PROGRESS_THREAD_BUSY_NS 20000
#define PROGRESS_THREAD_SLEEP_MS 1

static pthread_t progress_thread;
static int progress_thread_running;
static atomic_int progress_thread_stop;

/* Called with the engine lock, which it drops. */
static void progress_thread_sleep(void) {
  progress_sleep_set_t set;
  progress_sleep_begin(&set, PROGRESS_THREAD_SLEEP_MS);
  pthread_mutex_unlock(&hc_engine.lock);
  if (!progress_sleep_unlocked(&set)) {
    struct timespec ts = {0, PROGRESS_THREAD_SLEEP_MS * 1000000L};
    nanosleep(&ts, NULL);
  }
}

static void *progress_thread_main(void *arg) {
  (void)arg;
  long idle = 0;
  while (!atomic_load_explicit(&progress_thread_stop, memory_order_acquire)) {
    if (pthread_mutex_trylock(&hc_engine.lock) != 0) {
      struct timespec ts = {0, PROGRESS_THREAD_BUSY_NS};
      nanosleep(&ts, NULL);
      continue;
    }
    int moved = hc_engine.initialized ? hc_progress_locked() : 0;
    if (moved == 0 && ++idle >= PROGRESS_THREAD_POLLS) {
      idle = 0;
      progress_thread_sleep(); /* drops the lock */
      continue;
    }
    pthread_mutex_unlock(&hc_engine.lock);
    if (moved > 0)
      idle = 0;
    else
      sched_yield();
  }
  return NULL;
}

int hc_progress_thread_start(void) {
  if (!hc_env_bool("HCMPI_ASYNC_PROGRESS", 0) || progress_thread_running)
    return 0;
  hc_engine.locking = 1; /* the thread and the application share the engine */
  hc_lock_make_real();
  atomic_store(&progress_thread_stop, 0);
  /* The thread may run on any core the process may use, not only on the
   * core the application thread was bound to. */
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (progress_cpus_known)
    pthread_attr_setaffinity_np(&attr, sizeof progress_cpus, &progress_cpus);
  int rc = pthread_create(&progress_thread, &attr, progress_thread_main, NULL);
  pthread_attr_destroy(&attr);
  if (rc != 0)
    return 0;
  progress_thread_running = 1;
  return 1;
}

void hc_progress_thread_stop(void) {
  if (!progress_thread_running)
    return;
  atomic_store_explicit(&progress_thread_stop, 1, memory_order_release);
  pthread_join(progress_thread, NULL);
  progress_thread_running = 0;
}
