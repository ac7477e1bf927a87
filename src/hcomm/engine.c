/* Engine life cycle: bootstrap, node discovery, transports, finalize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hcomm/coll.h"
#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/proto.h"
#include "transport/tcp/tcp_auth.h"
#include "transport/verbs/verbs.h"
#include "util/env.h"
#include "util/lock.h"
#include "util/log.h"

#define ENGINE_HOST_MAX 320

hc_engine_t hc_engine = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* What the bootstrap said at init: placement to check the host ids
 * against, the address that reached the launcher for tcp. */
static hc_bootstrap_info_t engine_boot_info;

const char *hcomm_strerror(hc_status_t status) {
  switch (status) {
#define HC_STATUS_TEXT(name, value, text)                                      \
  case name:                                                                   \
    return text;
    HC_STATUS_LIST(HC_STATUS_TEXT)
#undef HC_STATUS_TEXT
  }
  return "unknown status";
}

int hcomm_initialized(void) {
  return hc_engine.initialized && !hc_engine.finalized;
}
int hcomm_finalized(void) { return hc_engine.finalized; }
int hcomm_appnum(void) { return hc_engine.appnum; }
int hcomm_universe_size(void) { return hc_engine.universe_size; }

/* hostname plus boot id: two containers with one hostname stay apart, and
 * hosts that differ only in hostname (UTS namespaces sharing /dev/shm and
 * the boot id, as the tests build them) are apart too.  HCMPI_NODE_ID
 * overrides it for hosts cloned with both equal. */
static void engine_host_id(char *buf, size_t len) {
  char host[256] = "localhost";
  const char *forced = hc_env_string("HCMPI_NODE_ID", NULL);
  if (forced != NULL) {
    snprintf(buf, len, "id:%s", forced);
    for (char *p = buf; *p != '\0'; p++)
      if (*p == ' ' || *p == '\t' || *p == '=')
        *p = '_';
    return;
  }
  char boot[64] = "";
  gethostname(host, sizeof host - 1);
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  if (f != NULL) {
    if (fgets(boot, sizeof boot, f) == NULL)
      boot[0] = '\0';
    fclose(f);
  }
  boot[strcspn(boot, "\n")] = '\0';
  snprintf(buf, len, "%s_%s", host, boot);
  for (char *p = buf; *p != '\0'; p++)
    if (*p == ' ' || *p == '\t' || *p == '=')
      *p = '_';
}

/* Where the launcher knows the placement (PMIx: local rank and size), the
 * host ids must group the ranks the same way; a disagreement means hosts
 * that look alike (or one host that looks like several), so shm would be
 * tried where memory is not shared, or skipped where it is. */
static void engine_check_placement(const hc_bootstrap_info_t *info) {
  const char *node = info->node[0] != '\0' ? info->node : "?";
  if (info->local_size < 0)
    return;
  if (info->local_size == hc_engine.local_size &&
      info->local_rank == hc_engine.local_rank)
    hc_log(HC_LOG_DEBUG, "engine",
           "rank %d: local rank %d of %d on node %s, as the launcher says",
           hc_engine.world_rank, hc_engine.local_rank, hc_engine.local_size,
           node);
  else
    hc_log(HC_LOG_WARN, "engine",
           "rank %d: host ids make it local rank %d of %d, the launcher "
           "says %d of %d on node %s (HCMPI_NODE_ID tells cloned hosts "
           "apart)",
           hc_engine.world_rank, hc_engine.local_rank, hc_engine.local_size,
           info->local_rank, info->local_size, node);
}

static hc_status_t engine_find_local(void) {
  const hc_bootstrap_ops_t *boot = hc_engine.boot;
  char mine[ENGINE_HOST_MAX], theirs[HC_BOOTSTRAP_VALUE_MAX];
  char key[HC_BOOTSTRAP_KEY_MAX];
  engine_host_id(mine, sizeof mine);
  snprintf(key, sizeof key, "hc-host-%d", hc_engine.world_rank);
  hc_status_t rc = boot->put(hc_engine.boot_ctx, key, mine);
  if (rc == HC_OK)
    rc = boot->fence(hc_engine.boot_ctx);
  if (rc != HC_OK)
    return rc;
  int n = hc_engine.world_size;
  hc_engine.local_world_ranks = malloc((size_t)n * sizeof(int));
  if (hc_engine.local_world_ranks == NULL)
    return HC_ERR_NOMEM;
  hc_engine.local_size = 0;
  for (int r = 0; r < n; r++) {
    if (r != hc_engine.world_rank) {
      snprintf(key, sizeof key, "hc-host-%d", r);
      rc = boot->get(hc_engine.boot_ctx, key, theirs, sizeof theirs);
      if (rc != HC_OK)
        return rc;
      if (strcmp(theirs, mine) != 0)
        continue;
    } else {
      hc_engine.local_rank = hc_engine.local_size;
    }
    hc_engine.local_world_ranks[hc_engine.local_size++] = r;
  }
  engine_check_placement(&engine_boot_info);
  return HC_OK;
}

static hc_status_t engine_self_init(const hc_transport_init_args_t *args) {
  const hc_transport_ops_t *ops = &hc_transport_self_ops;
  char addr[HC_TRANSPORT_ADDRESS_MAX];
  hc_status_t rc = ops->init(args, &hc_engine.self_ctx);
  if (rc == HC_OK)
    rc = ops->address(hc_engine.self_ctx, addr, sizeof addr);
  if (rc == HC_OK)
    rc = ops->connect(hc_engine.self_ctx, hc_engine.world_rank, addr);
  if (rc == HC_OK)
    rc = ops->connected(hc_engine.self_ctx);
  return rc;
}

/* 1 when HCMPI_TRANSPORTS (a comma-separated list; default: all) names
 * the transport.  The self transport is always on. */
static int engine_transport_enabled(const char *name) {
  const char *list = hc_env_string("HCMPI_TRANSPORTS", NULL);
  if (list == NULL)
    return 1;
  size_t n = strlen(name);
  for (const char *p = list; *p != '\0';) {
    size_t len = strcspn(p, ",");
    if (len == n && strncmp(p, name, n) == 0)
      return 1;
    p += len;
    if (*p == ',')
      p++;
  }
  return 0;
}

/* Every rank runs both fences even when it has no local peers or failed,
 * so the job-wide fence count always agrees. */
static hc_status_t engine_shm_init(const hc_transport_init_args_t *args) {
  const hc_transport_ops_t *ops = &hc_transport_shm_ops;
  const hc_bootstrap_ops_t *boot = hc_engine.boot;
  char addr[HC_BOOTSTRAP_VALUE_MAX], key[HC_BOOTSTRAP_KEY_MAX];
  hc_status_t rc = HC_OK;
  int use = hc_engine.local_size > 1 && engine_transport_enabled("shm");
  if (use)
    rc = ops->init(args, &hc_engine.shm_ctx);
  if (use && rc == HC_OK)
    rc = ops->address(hc_engine.shm_ctx, addr, HC_TRANSPORT_ADDRESS_MAX);
  snprintf(key, sizeof key, "hc-shm-%d", hc_engine.world_rank);
  if (use && rc == HC_OK)
    rc = boot->put(hc_engine.boot_ctx, key, addr);
  hc_status_t frc = boot->fence(hc_engine.boot_ctx);
  for (int i = 0;
       use && rc == HC_OK && frc == HC_OK && i < hc_engine.local_size; i++) {
    int peer = hc_engine.local_world_ranks[i];
    if (peer == hc_engine.world_rank)
      continue;
    snprintf(key, sizeof key, "hc-shm-%d", peer);
    rc = boot->get(hc_engine.boot_ctx, key, addr, sizeof addr);
    if (rc == HC_OK)
      rc = ops->connect(hc_engine.shm_ctx, peer, addr);
  }
  if (frc == HC_OK)
    frc = boot->fence(hc_engine.boot_ctx);
  if (use && rc == HC_OK && frc == HC_OK)
    rc = ops->connected(hc_engine.shm_ctx);
  return rc != HC_OK ? rc : frc;
}

static int engine_is_local(int world_rank) {
  for (int i = 0; i < hc_engine.local_size; i++)
    if (hc_engine.local_world_ranks[i] == world_rank)
      return 1;
  return 0;
}

/* The ranks tcp serves: those neither self nor reached through shm. */
static int engine_tcp_serves(int world_rank) {
  return world_rank != hc_engine.world_rank &&
         !(hc_engine.shm_ctx != NULL && engine_is_local(world_rank));
}

/* tcp is needed when some rank sits on another node, or when shm is off and
 * this node has several ranks; both facts read the same on every rank, so
 * every rank agrees on running the fence below. */
static int engine_tcp_needed(void) {
  if (!engine_transport_enabled("tcp") || hc_engine.world_size < 2)
    return 0;
  return hc_engine.world_size > hc_engine.local_size ||
         !engine_transport_enabled("shm");
}

/* Without HCMPI_JOB_SECRET from the launcher, rank 0 makes the tcp secret
 * and publishes it before the fence (before_fence), every other rank reads
 * it after (!before_fence).  It is set before any connection is served:
 * HELLOs are read only in progress, after init. */
static hc_status_t engine_tcp_secret(int before_fence) {
  const hc_bootstrap_ops_t *boot = hc_engine.boot;
  char hex[HC_BOOTSTRAP_VALUE_MAX];
  if (hc_tcp_has_secret(hc_engine.tcp_ctx))
    return HC_OK;
  if (before_fence && hc_engine.world_rank != 0)
    return HC_OK;
  if (before_fence) {
    if (hc_tcp_new_secret(hex, sizeof hex) != 0)
      return HC_ERR_SYSTEM;
    hc_status_t rc = boot->put(hc_engine.boot_ctx, "hc-tcp-secret", hex);
    if (rc == HC_OK && hc_tcp_set_secret(hc_engine.tcp_ctx, hex) != 0)
      rc = HC_ERR_INTERNAL;
    memset(hex, 0, sizeof hex);
    return rc;
  }
  hc_status_t rc =
      boot->get(hc_engine.boot_ctx, "hc-tcp-secret", hex, sizeof hex);
  if (rc == HC_OK && hc_tcp_set_secret(hc_engine.tcp_ctx, hex) != 0)
    rc = HC_ERR_TRANSPORT;
  memset(hex, 0, sizeof hex);
  return rc;
}

/* Publishes hc-tcp-<rank> = ip:port, fences, and records every peer's
 * address (connections open lazily on first send).  Runs after shm, so it
 * knows which peers shm serves. */
static hc_status_t engine_tcp_init(const hc_transport_init_args_t *args) {
  const hc_transport_ops_t *ops = &hc_transport_tcp_ops;
  const hc_bootstrap_ops_t *boot = hc_engine.boot;
  char addr[HC_BOOTSTRAP_VALUE_MAX], key[HC_BOOTSTRAP_KEY_MAX];
  if (!engine_tcp_needed())
    return HC_OK;
  hc_status_t rc = ops->init(args, &hc_engine.tcp_ctx);
  if (rc == HC_OK)
    rc = ops->address(hc_engine.tcp_ctx, addr, HC_TRANSPORT_ADDRESS_MAX);
  snprintf(key, sizeof key, "hc-tcp-%d", hc_engine.world_rank);
  if (rc == HC_OK)
    rc = boot->put(hc_engine.boot_ctx, key, addr);
  if (rc == HC_OK)
    rc = engine_tcp_secret(1);
  hc_status_t frc = boot->fence(hc_engine.boot_ctx);
  if (rc == HC_OK && frc == HC_OK)
    rc = engine_tcp_secret(0);
  for (int r = 0; rc == HC_OK && frc == HC_OK && r < hc_engine.world_size;
       r++) {
    if (!engine_tcp_serves(r))
      continue;
    snprintf(key, sizeof key, "hc-tcp-%d", r);
    rc = boot->get(hc_engine.boot_ctx, key, addr, sizeof addr);
    if (rc == HC_OK)
      rc = ops->connect(hc_engine.tcp_ctx, r, addr);
  }
  if (rc == HC_OK && frc == HC_OK)
    rc = ops->connected(hc_engine.tcp_ctx);
  return rc != HC_OK ? rc : frc;
}

/* verbs runs where HCMPI_TRANSPORTS names it or, without that list, when
 * some rank sits on another node: the same answer on every rank, so every
 * rank runs the fence below. */
static int engine_verbs_needed(void) {
  if (hc_engine.world_size < 2)
    return 0;
  if (hc_env_string("HCMPI_TRANSPORTS", NULL) != NULL)
    return engine_transport_enabled("verbs");
  return hc_engine.world_size > hc_engine.local_size;
}

/* Publishes hc-ib-<rank> (device address and UD QP, or "none") and records
 * every served peer's; the queue pairs are made on first use, negotiated
 * by the transport itself.  Runs after shm (it serves the peers shm does
 * not). */
static hc_status_t engine_verbs_init(const hc_transport_init_args_t *args) {
  const hc_transport_ops_t *ops = &hc_transport_verbs_ops;
  const hc_bootstrap_ops_t *boot = hc_engine.boot;
  char addr[HC_BOOTSTRAP_VALUE_MAX], key[HC_BOOTSTRAP_KEY_MAX];
  if (!engine_verbs_needed())
    return HC_OK;
  if (ops->init(args, &hc_engine.verbs_ctx) != HC_OK ||
      ops->address(hc_engine.verbs_ctx, addr, HC_TRANSPORT_ADDRESS_MAX) !=
          HC_OK) {
    ops->fini(hc_engine.verbs_ctx);
    hc_engine.verbs_ctx = NULL;
    snprintf(addr, sizeof addr, "none");
  }
  snprintf(key, sizeof key, "hc-ib-%d", hc_engine.world_rank);
  hc_status_t rc = boot->put(hc_engine.boot_ctx, key, addr);
  hc_status_t frc = boot->fence(hc_engine.boot_ctx);
  for (int r = 0; hc_engine.verbs_ctx != NULL && rc == HC_OK && frc == HC_OK &&
                  r < hc_engine.world_size;
       r++) {
    if (!engine_tcp_serves(r))
      continue;
    snprintf(key, sizeof key, "hc-ib-%d", r);
    if (boot->get(hc_engine.boot_ctx, key, addr, sizeof addr) == HC_OK &&
        strcmp(addr, "none") != 0)
      ops->connect(hc_engine.verbs_ctx, r, addr); /* refused: tcp */
  }
  if (hc_engine.verbs_ctx == NULL && !engine_transport_enabled("tcp")) {
    hc_log(HC_LOG_ERROR, "engine",
           "HCMPI_TRANSPORTS leaves only verbs for remote peers, and verbs "
           "has no device");
    return HC_ERR_TRANSPORT;
  }
  return rc != HC_OK ? rc : frc;
}

/* The one place that decides how a peer on another node (or any peer shm
 * does not serve) is reached. */
static const hc_transport_ops_t *engine_remote_transport(int world_rank,
                                                         void **tctx) {
  if (hc_verbs_serves(hc_engine.verbs_ctx, world_rank)) {
    *tctx = hc_engine.verbs_ctx;
    return &hc_transport_verbs_ops;
  }
  *tctx = hc_engine.tcp_ctx;
  return hc_engine.tcp_ctx != NULL ? &hc_transport_tcp_ops : NULL;
}

static hc_status_t engine_peers_init(void) {
  hc_engine.peers = calloc((size_t)hc_engine.world_size, sizeof(hc_peer_t));
  if (hc_engine.peers == NULL)
    return HC_ERR_NOMEM;
  for (int r = 0; r < hc_engine.world_size; r++) {
    hc_peer_t *peer = &hc_engine.peers[r];
    peer->world_rank = r;
    if (r == hc_engine.world_rank) {
      peer->ops = &hc_transport_self_ops;
      peer->tctx = hc_engine.self_ctx;
    } else if (hc_engine.shm_ctx != NULL && engine_is_local(r)) {
      peer->ops = &hc_transport_shm_ops;
      peer->tctx = hc_engine.shm_ctx;
    } else {
      peer->ops = engine_remote_transport(r, &peer->tctx);
    }
    if (peer->ops != NULL)
      hc_proto_peer_setup(peer);
    if (hc_log_level() >= HC_LOG_DEBUG)
      hc_log(HC_LOG_DEBUG, "engine", "rank %d: peer %d via %s",
             hc_engine.world_rank, r,
             peer->ops != NULL ? peer->ops->name : "none");
  }
  return HC_OK;
}

static hc_status_t engine_transports_init(void) {
  hc_transport_init_args_t args = {
      .world_rank = hc_engine.world_rank,
      .world_size = hc_engine.world_size,
      .local_rank = hc_engine.local_rank,
      .local_size = hc_engine.local_size,
      .local_world_ranks = hc_engine.local_world_ranks,
      .recv_cb = hc_proto_recv_cb,
      .engine = &hc_engine,
      .peer_failed_cb = hc_engine_peer_failed,
      .reached_ip = engine_boot_info.reached_ip,
      .place_cb = hc_proto_place_cb,
      .placed_cb = hc_proto_placed_cb,
      .place_head = sizeof(hc_pkt_hdr_t),
  };
  hc_status_t rc = engine_self_init(&args);
  hc_status_t src = engine_shm_init(&args);
  if (rc == HC_OK)
    rc = src;
  /* After shm, which decides the peers tcp serves; its fence runs even
   * when shm failed, so the job's fence count stays in step. */
  src = engine_tcp_init(&args);
  if (rc == HC_OK)
    rc = src;
  src = engine_verbs_init(&args);
  if (rc == HC_OK)
    rc = src;
  if (rc == HC_OK)
    rc = engine_peers_init();
  return rc;
}

static void engine_teardown(void) {
  hc_comm_fini_predefined();
  hc_proto_fini();
  hc_transport_tcp_ops.fini(hc_engine.tcp_ctx);
  hc_transport_verbs_ops.fini(hc_engine.verbs_ctx);
  hc_engine.verbs_ctx = NULL;
  hc_transport_shm_ops.fini(hc_engine.shm_ctx);
  hc_transport_self_ops.fini(hc_engine.self_ctx);
  hc_engine.tcp_ctx = NULL;
  hc_engine.failed_peers = 0;
  hc_engine.failures_pending = 0;
  hc_engine.shm_ctx = NULL;
  hc_engine.self_ctx = NULL;
  free(hc_engine.peers);
  free(hc_engine.contexts);
  free(hc_engine.local_world_ranks);
  hc_engine.peers = NULL;
  hc_engine.contexts = NULL;
  hc_engine.local_world_ranks = NULL;
  if (hc_engine.boot != NULL)
    hc_engine.boot->fini(hc_engine.boot_ctx);
  hc_engine.boot_ctx = NULL;
}

static hc_status_t engine_contexts_init(void) {
  hc_engine.contexts = calloc(HC_MATCH_CONTEXTS, sizeof(hc_match_context_t));
  if (hc_engine.contexts == NULL)
    return HC_ERR_NOMEM;
  for (int c = 0; c < HC_MATCH_CONTEXTS; c++)
    hc_match_context_init(&hc_engine.contexts[c]);
  return HC_OK;
}

static hc_status_t engine_start(void) {
  hc_bootstrap_info_t *info = &engine_boot_info;
  hc_engine.boot = hc_bootstrap_select();
  hc_status_t rc = hc_engine.boot->init(&hc_engine.boot_ctx, info);
  if (rc != HC_OK)
    return rc;
  hc_engine.world_rank = info->rank;
  hc_engine.world_size = info->size;
  hc_engine.appnum = info->appnum;
  hc_engine.universe_size = info->universe_size;
  rc = engine_contexts_init();
  if (rc == HC_OK)
    rc = engine_find_local();
  if (rc == HC_OK)
    rc = engine_transports_init();
  if (rc == HC_OK)
    rc = hc_comm_init_predefined();
  return rc;
}

/* The launcher's job secret leaves the environment once the transports
 * took their copy (the tcp context keeps it): a program's children
 * (system(), fork+exec) must not inherit it.  Its characters are wiped in
 * place first, so /proc/<pid>/environ, which shows the original block, no
 * longer holds it either. */
static void engine_forget_secret(void) {
  char *secret = getenv("HCMPI_JOB_SECRET");
  if (secret == NULL)
    return;
  memset(secret, 0, strlen(secret));
  unsetenv("HCMPI_JOB_SECRET");
}

hc_status_t hcomm_init(int thread_level, int *provided) {
  if (hc_engine.initialized || hc_engine.finalized)
    return HC_ERR_STATE;
  if (thread_level < HCOMM_THREAD_SINGLE)
    thread_level = HCOMM_THREAD_SINGLE;
  if (thread_level > HCOMM_THREAD_MULTIPLE)
    thread_level = HCOMM_THREAD_MULTIPLE;
  hc_engine.spin = hc_env_long("HCMPI_SPIN", 2000);
  hc_engine.wait_ms = (int)hc_env_long("HCMPI_WAIT_MS", 20);
  hc_engine.hang_timeout = (double)hc_env_long("HCMPI_HANG_TIMEOUT", 0);
  hc_coll_tuning_load();
  hc_status_t rc = engine_start();
  engine_forget_secret();
  if (rc != HC_OK) {
    hc_log(HC_LOG_ERROR, "engine", "init failed: %s", hcomm_strerror(rc));
    engine_teardown();
    return rc;
  }
  hc_engine.locking = thread_level == HCOMM_THREAD_MULTIPLE;
  if (hc_engine.locking)
    hc_lock_make_real();
  hc_engine.initialized = 1;
  hc_progress_policy_init();
  hc_progress_thread_start();
  if (provided != NULL)
    *provided = thread_level;
  return HC_OK;
}

static double engine_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sends left active after the world barrier (an abandoned rendezvous, say)
 * get a bounded grace period rather than a hang. */
static void engine_drain_sends(void) {
  long spins = 0;
  double deadline = engine_now() + 2.0;
  while ((hc_request_active_sends() > 0 || hc_proto_backlogged()) &&
         engine_now() < deadline) {
    if (hc_progress_locked() == 0)
      hc_idle_locked(&spins);
  }
  if (hc_request_active_sends() > 0)
    hc_log(HC_LOG_WARN, "engine", "finalize: %ld sends never completed",
           hc_request_active_sends());
}

hc_status_t hcomm_finalize(void) {
  hc_progress_thread_stop();
  hc_engine_lock();
  hc_status_t rc = hc_engine_check();
  if (rc != HC_OK) {
    hc_engine_unlock();
    return rc;
  }
  hc_engine.finalizing = 1;
  long spins = 0;
  while (hc_proto_backlogged())
    if (hc_progress_locked() == 0)
      hc_idle_locked(&spins);
  rc = hc_comm_barrier_locked(hcomm_comm_world());
  engine_drain_sends();
  engine_teardown();
  hc_engine.finalized = 1;
  hc_engine.initialized = 0;
  int locking = hc_engine.locking;
  hc_engine.locking = 0;
  if (locking)
    pthread_mutex_unlock(&hc_engine.lock);
  return rc;
}

void hcomm_abort(int code, const char *why) {
  fprintf(stderr, "hcmpi: abort (code %d)%s%s\n", code, why ? ": " : "",
          why ? why : "");
  if (hc_engine.boot != NULL && hc_engine.boot_ctx != NULL)
    hc_engine.boot->abort(hc_engine.boot_ctx, code, why ? why : "abort");
  _exit(code);
}
