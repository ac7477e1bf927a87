/*
 * The engine's performance counters, as the tool interface (src/mpi/mpit*)
 * reads them.  Each counter is bumped where its path already writes the
 * data it describes, with a plain increment: the message counts sit in the
 * transport's engine entry that the send path already reads
 * (hc_engine_transport_t.counts), the rest here.  Every path that bumps
 * one holds the engine lock when the lock is real (THREAD_MULTIPLE or the
 * progress thread), so no atomics are needed; readers take a snapshot
 * under the same lock.  Nothing here is ever reset: tools compute
 * differences (their handles keep the offsets).
 */
#ifndef HC_COUNTERS_H
#define HC_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "hcomm.h"

/* Most transports the engine runs (core.h's HC_ENGINE_TRANSPORTS_MAX). */
#define HC_COUNTERS_TRANSPORTS 8

/* Message counts and bytes of one direction through one transport: a
 * message is an envelope (eager data or a rendezvous RTS) of a send or an
 * arrival; bytes are the message's payload, whatever path then moves it. */
typedef struct hc_counters_flow {
  uint64_t messages;
  uint64_t bytes;
} hc_counters_flow_t;

/* One transport's messages, by protocol: [0] eager, [1] rendezvous. */
typedef struct hc_counters_transport {
  hc_counters_flow_t sent[2];
  hc_counters_flow_t received[2];
} hc_counters_transport_t;

typedef struct hc_counters {
  /* Rendezvous payloads this rank pulled: by a single-copy get, or
   * streamed as DATA packets after a CTS (refused get, accessor, tcp). */
  hc_counters_flow_t rndv_get, rndv_pipelined;
  /* One-sided data operations this rank issued: moved directly (shared
   * mapping, CMA) or sent as active messages to the target's progress. */
  hc_counters_flow_t rma_direct, rma_active;
  /* Arrivals no posted receive took, and the longest any one matching
   * context's unexpected queue has been. */
  uint64_t unexpected;
  uint64_t unexpected_hwm;
  /* Progress polls (hc_progress_locked), and the nanoseconds blocking
   * waits slept in hc_idle_locked (the spins in between are polls). */
  uint64_t progress_polls;
  uint64_t wait_sleep_ns;
  /* Nanoseconds in polls, counted only while timing_progress is nonzero
   * (a tool started a handle on it: hc_counters_time_progress). */
  uint64_t progress_ns;
  int timing_progress;
} hc_counters_t;

/* Written by the engine only (see above). */
extern hc_counters_t hc_counters;

/* What hc_counters_read fills: the counters and the present levels. */
typedef struct hc_counters_snapshot {
  hc_counters_t c;
  /* Sends and arrivals by protocol, every transport together. */
  hc_counters_flow_t eager_sent, rndv_sent, eager_received, rndv_received;
  /* Per transport slot (hc_counters_transport_name), both protocols. */
  hc_counters_flow_t sent[HC_COUNTERS_TRANSPORTS];
  hc_counters_flow_t received[HC_COUNTERS_TRANSPORTS];
  uint64_t unexpected_queued; /* in every context's unexpected queue */
  uint64_t posted_queued;     /* in every context's posted queue */
  int ntransports;            /* slots in use */
  /* Per transport slot: shm cells of this rank's pool in flight; verbs
   * registration-cache hits and misses.  UINT64_MAX where that transport
   * keeps no such count. */
  uint64_t pool_cells_in_use[HC_COUNTERS_TRANSPORTS];
  uint64_t regcache_hits[HC_COUNTERS_TRANSPORTS];
  uint64_t regcache_misses[HC_COUNTERS_TRANSPORTS];
} hc_counters_snapshot_t;

/* Fills out under the engine lock; works before init and after finalize
 * (levels then read 0).  Never blocks on the network. */
void hc_counters_read(hc_counters_snapshot_t *out);

/* One more (on) or one fewer (off) tool handle that wants progress_ns
 * counted; under the engine lock. */
void hc_counters_time_progress(int on);

/* The name of transport slot i ("shm", "tcp", ...), or NULL when no
 * transport ran in that slot.  Slots fill at init and keep their names
 * after finalize. */
const char *hc_counters_transport_name(int i);

/* The engine's event source: called, when set, for each message that
 * arrived with no posted receive for it, with the engine lock held, from
 * inside progress (possibly on the progress thread).  It must not call the
 * engine.  source is the sender's world rank. */
typedef void (*hc_counters_unexpected_cb)(int source, int tag, int context,
                                          size_t bytes);
void hc_counters_set_unexpected_cb(hc_counters_unexpected_cb cb);
/* The engine's side: reports one unexpected arrival to the callback. */
void hc_counters_unexpected_event(int source, int tag, int context,
                                  size_t bytes);
/* Nonzero when the engine runs another thread or is THREAD_MULTIPLE, so
 * the callback above may run beside the application's threads. */
int hc_counters_threaded(void);

/* The engine's side: transport slot i started as name; slot i stops with
 * the counts it kept, which later snapshots add to the slot's (engine.c). */
void hc_counters_transport_started(int i, const char *name);
void hc_counters_transport_stopped(int i, const hc_counters_transport_t *kept);

/* ---- run-time settings the tool interface may change (its cvars) ------ */
typedef enum hc_setting {
  HC_SETTING_EAGER_LIMIT, /* bytes; any time, also before init */
  HC_SETTING_SPIN,        /* the rest: only while the engine runs */
  HC_SETTING_WAIT_MS,
  HC_SETTING_HANG_TIMEOUT,
  HC_SETTING_COLL_BCAST_LARGE,
  HC_SETTING_COLL_ALLREDUCE_LARGE,
  HC_SETTING_COLL_ALLGATHER_LARGE,
  HC_SETTING_COLL_ALLTOALL_LINEAR,
  HC_SETTING_COLL_ALLTOALL_BRUCK,
  HC_SETTING_COLL_GATHER_LINEAR_MAX
} hc_setting_t;

/* The value in force: HC_OK, or HC_ERR_STATE when the engine does not run
 * and the setting lives only while it does (the environment then says). */
hc_status_t hc_setting_get(hc_setting_t which, long long *value);
/* Changes it for what starts from now on (a send already under way keeps
 * its protocol, a collective its algorithm); HC_ERR_STATE as above.  The
 * caller checks the value's bounds. */
hc_status_t hc_setting_set(hc_setting_t which, long long value);

/* proto.c's eager limit: the tool interface's setting, else the
 * environment's; set applies to every peer (capped by its transport). */
size_t hc_proto_eager_limit(void);
void hc_proto_set_eager_limit(size_t bytes);

#endif /* HC_COUNTERS_H */
