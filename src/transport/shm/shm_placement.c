/*
 * Where the two ranks of a node sit: a cache line's ping-pong between them
 * at connect tells near cores (a shared cache, ~0.05 us one way on the AMD
 * EPYC VM) from far ones (~0.2 us), and the far verdict takes the far
 * choices of shm.c (reads from HCMPI_SHM_FAR_READ_MIN, cells filled past
 * the cache from HCMPI_SHM_FAR_CELL_STREAM_MIN) and is what the placement
 * op reports.  HCMPI_SHM_PLACEMENT forces either.
 *
 * The host may move the two vCPUs apart or together while the ranks run
 * (on the EPYC VM, within minutes): a pair judged near then streamed
 * 4 MiB messages at 6 GB/s where a read takes 20, and a pair judged far
 * read at 20 where streaming takes 34 (bench/NOTES.md, adapt28).  So the
 * verdict only opens the read-or-stream choice of rendezvous from
 * far_read_min on: the engine tells how long each took by either path
 * (rndv_measured), and the choice follows the path that delivers more,
 * sending one rendezvous down the other path whenever that path's
 * measure is older than SHM_RATES_FRESH_NS.  The receiver tells the
 * sender what it concluded (its slot's far_now), and the sender's cell
 * fills follow that instead of the verdict too: past the cache while the
 * receiver reads (far), plain while it streams.
 */
#include "config.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "transport/shm/shm_impl.h"
#include "util/env.h"
#include "util/fence.h"
#include "util/log.h"

/* One way of a cache line between the two ranks' cores from which the
 * pair counts as far apart: bench/compare.py's line (near ~0.05 us, far
 * ~0.2 on the AMD EPYC VM, bench/NOTES.md rate24 and far25).  From
 * SHM_SHARED_ONE_WAY_NS a batch met a context switch (the two ranks on
 * one core, as they may be before the engine binds them) and says
 * nothing. */
#define SHM_FAR_ONE_WAY_NS 120
#define SHM_SHARED_ONE_WAY_NS 600
/* The ping-pong: batches of round trips, each timed by local rank 0, the
 * quickest of SHM_PROBE_BATCHES clean ones counting, since a preempted
 * batch only reads slower.  All of it ends by SHM_PROBE_LIMIT_NS after it
 * began, whatever the peer does. */
#define SHM_PROBE_BATCHES 16
#define SHM_PROBE_TRIPS 8
#define SHM_PROBE_LIMIT_NS 10000000ull
/* Polls of a wait before it yields the core now and then: the peer may
 * share it. */
#define SHM_PROBE_SPINS 1024
/* Local rank 0's verdict after the last trip: this value plus far. */
#define SHM_PROBE_VERDICT ((uint64_t)1 << 32)

/* How long a path's measure stays the one to go by: past it, one
 * rendezvous takes that path again to measure it.  Longer than a burst of
 * messages, far shorter than the host's moves; at 4 MiB the wrong path
 * once each time costs ~0.5 ms (far, streaming) or ~0.1 ms (near,
 * reading), 0.05-0.25 % of a busy pair's time. */
#define SHM_RATES_FRESH_NS 200000000ull

/* Waits until *line reads want or a verdict; returns what it read, 0 at
 * the deadline. */
static uint64_t shm_probe_wait(_Atomic uint64_t *line, uint64_t want,
                               uint64_t deadline_ns) {
  for (unsigned polls = 1;; polls++) {
    uint64_t v = atomic_load_explicit(line, memory_order_acquire);
    if (v == want || v >= SHM_PROBE_VERDICT)
      return v;
    hc_spin_pause();
    if (polls % 128 == 0) {
      if (hc_shm_now_ns() > deadline_ns)
        return 0;
      if (polls >= SHM_PROBE_SPINS)
        sched_yield();
    }
  }
}

/* Local rank 0's side: round trips on its probe line (it writes odd
 * steps, the peer answers each with the next even one) until
 * SHM_PROBE_BATCHES clean batches or the deadline; far when the quickest
 * took SHM_FAR_ONE_WAY_NS or more each way.  The verdict goes on the
 * line, which ends the peer's side. */
static int shm_probe_lead(_Atomic uint64_t *line, uint64_t deadline_ns,
                          uint64_t *best_ns, int *clean) {
  uint64_t step = 0, best = UINT64_MAX;
  int batches = 0, gone = 0;
  while (batches < SHM_PROBE_BATCHES && !gone) {
    uint64_t t0 = hc_shm_now_ns();
    for (int i = 0; i < SHM_PROBE_TRIPS && !gone; i++) {
      atomic_store_explicit(line, step + 1, memory_order_release);
      step += 2;
      gone = shm_probe_wait(line, step, deadline_ns) != step;
    }
    uint64_t one_way = (hc_shm_now_ns() - t0) / (2 * SHM_PROBE_TRIPS);
    if (!gone && one_way < SHM_SHARED_ONE_WAY_NS) {
      batches++;
      best = one_way < best ? one_way : best;
    }
  }
  int far = batches == SHM_PROBE_BATCHES && best >= SHM_FAR_ONE_WAY_NS;
  atomic_store_explicit(line, SHM_PROBE_VERDICT + (uint64_t)far,
                        memory_order_release);
  *best_ns = batches > 0 ? best : 0;
  *clean = batches;
  return far;
}

/* The other rank's side: answers every odd step until the verdict. */
static int shm_probe_answer(_Atomic uint64_t *line, uint64_t deadline_ns) {
  for (uint64_t step = 1;; step += 2) {
    uint64_t v = shm_probe_wait(line, step, deadline_ns);
    if (v >= SHM_PROBE_VERDICT)
      return v == SHM_PROBE_VERDICT + 1;
    if (v != step)
      return 0; /* the deadline */
    atomic_store_explicit(line, step + 1, memory_order_release);
  }
}

/* Whether the two ranks of a node sit on cores far apart, by a ping-pong
 * on local rank 0's probe line, led and judged by local rank 0, whose
 * verdict rank 1 takes, so both agree.  A peer late or gone leaves near
 * (the profile's choice) by the deadline; either verdict moves the same
 * bytes. */
static hc_transport_placement_t shm_probe_placement(shm_ctx_t *shm) {
  _Atomic uint64_t *line = &shm->slots[0].placement_probe;
  uint64_t start = hc_shm_now_ns(), deadline = start + SHM_PROBE_LIMIT_NS;
  uint64_t best = 0;
  int clean = 0, far;
  if (shm->local_rank == 0)
    far = shm_probe_lead(line, deadline, &best, &clean);
  else /* waits longer: rank 0 may start late and still judge */
    far = shm_probe_answer(line, deadline + SHM_PROBE_LIMIT_NS);
  hc_log(HC_LOG_DEBUG, "shm",
         "placement: %s (quickest one way %.3f us over %d clean batches, "
         "%.1f us in all)",
         far ? "far" : "near", (double)best / 1000.0, clean,
         (double)(hc_shm_now_ns() - start) / 1000.0);
  return far ? HC_TRANSPORT_PLACEMENT_FAR : HC_TRANSPORT_PLACEMENT_NEAR;
}

/* The pair's placement, whose far verdict takes the far choices
 * (HCMPI_SHM_FAR_READ_MIN, HCMPI_SHM_FAR_CELL_STREAM_MIN): forced by
 * HCMPI_SHM_PLACEMENT, else probed where one could matter (two ranks, not
 * crowded; far reads with CMA on and the far threshold below the stream
 * one, or far cell streaming on); unknown where not probed. */
hc_transport_placement_t hc_shm_placement_choose(shm_ctx_t *shm) {
  const char *forced = hc_env_string("HCMPI_SHM_PLACEMENT", "auto");
  /* Tests: a forced verdict that the rates may still overrule, as a
   * probed one, so that the choice is checked from a known start. */
  int rates_too = hc_env_bool("HCMPI_TEST_SHM_RATES", 0);
  if (strcmp(forced, "far") == 0) {
    shm->rates_on = rates_too;
    return HC_TRANSPORT_PLACEMENT_FAR;
  }
  if (strcmp(forced, "near") == 0) {
    shm->rates_on = rates_too;
    return HC_TRANSPORT_PLACEMENT_NEAR;
  }
  int far_reads =
      shm->cma_enabled && shm->far_read_min < shm->cma_min && shm->runq_max > 0;
  if (shm->local_size != 2 || shm->crowded ||
      (!far_reads && shm->far_cell_stream_min == 0))
    return HC_TRANSPORT_PLACEMENT_UNKNOWN;
  shm->rates_on = far_reads;
  return shm_probe_placement(shm);
}

/* A path's new measure, in MB/s: its rate is the best measure taken
 * within SHM_RATES_FRESH_NS of the last better one, since a measure only
 * reads slow for what is not the path's (a first read pins pages the
 * next ones find pinned: 4.7, 5.1, 10.2, 12.3, 13.8 GB/s, then ~20; a
 * sender busy elsewhere); past that, the new one however slow (the
 * host's moves are sudden). */
static void shm_rates_take(struct shm_path_rate *path, uint64_t now,
                           uint32_t mbps) {
  if (mbps < path->mbps && now - path->measured_ns <= SHM_RATES_FRESH_NS)
    return;
  path->mbps = mbps > 0 ? mbps : 1;
  path->measured_ns = now;
}

/* The way rendezvous of far_read_min or more from local rank p go by the
 * rates, both measured or one: 1 read, 0 streamed. */
static int shm_rates_reads(const struct shm_rates *r) {
  const struct shm_path_rate *stream = &r->path[0], *read = &r->path[1];
  return stream->mbps == 0 ? 1
         : read->mbps == 0 ? 0
                           : read->mbps > stream->mbps;
}

/* Tells p, in my slot's far_now, whether I take our cores for far apart
 * (I read its large rendezvous), so that its cell fills follow: not while
 * a rendezvous streams to measure that way, whose cells must be filled as
 * a near pair's would be, or it measures the fills, not the way. */
static void shm_rates_publish(shm_ctx_t *shm, int p, uint64_t now) {
  const struct shm_path_rate *stream = &shm->rates[p].path[0];
  int measuring = stream->tried_ns > stream->measured_ns &&
                  now - stream->tried_ns <= SHM_RATES_FRESH_NS;
  uint32_t far = 1u + (uint32_t)(shm_rates_reads(&shm->rates[p]) && !measuring);
  _Atomic uint32_t *word = &shm->slots[shm->local_rank].far_now;
  if (atomic_load_explicit(word, memory_order_relaxed) != far)
    atomic_store_explicit(word, far, memory_order_release);
}

void hc_shm_rndv_measured(void *ctx, int peer_world_rank, size_t bytes,
                          uint64_t ns, int read) {
  shm_ctx_t *shm = ctx;
  if (!shm->rates_on || bytes < shm->far_read_min || ns == 0)
    return;
  int p = shm_local_of(shm, peer_world_rank);
  if (p < 0 || p == shm->local_rank)
    return;
  uint64_t mbps = (uint64_t)bytes * 1000u / ns;
  uint64_t now = hc_shm_now_ns();
  shm_rates_take(&shm->rates[p].path[read != 0], now,
                 mbps > UINT32_MAX ? UINT32_MAX : (uint32_t)mbps);
  shm_rates_publish(shm, p, now);
}

int hc_shm_far_reads(shm_ctx_t *shm, int p, int choose) {
  const struct shm_path_rate *stream = &shm->rates[p].path[0];
  const struct shm_path_rate *read = &shm->rates[p].path[1];
  if (!shm->rates_on || (read->mbps == 0 && stream->mbps == 0))
    return shm->placement == HC_TRANSPORT_PLACEMENT_FAR;
  /* The path that delivered more; with one path measured, that one. */
  int reads = shm_rates_reads(&shm->rates[p]);
  if (choose == SHM_FAR_ASK)
    return reads;
  if (shm->rates[p].chosen != 1 + reads) {
    hc_log(HC_LOG_DEBUG, "shm",
           "rendezvous of %zu B or more from local rank %d: %s (read %u MB/s, "
           "streamed %u MB/s)",
           shm->far_read_min, shm->local_world_ranks[p],
           reads ? "read" : "streamed", read->mbps, stream->mbps);
    shm->rates[p].chosen = 1 + reads;
  }
  /* The other path's measure is old or missing, and no rendezvous went
   * to take it lately: this one does, and the ones behind it (a window)
   * stay on this path.  Not a read while streams still land: amid a
   * window of streams a read measured 2.8-7 GB/s where reads alone
   * take ~20 (bench/NOTES.md, adapt28). */
  struct shm_path_rate *other = &shm->rates[p].path[!reads];
  uint64_t now = hc_shm_now_ns();
  uint64_t last = other->tried_ns > other->measured_ns ? other->tried_ns
                                                       : other->measured_ns;
  int measure = now - last > SHM_RATES_FRESH_NS &&
                (reads || choose != SHM_FAR_CHOOSE_BUSY);
  if (measure)
    other->tried_ns = now;
  shm_rates_publish(shm, p, now);
  return measure ? !reads : reads;
}
