/* Engine life cycle: bootstrap, node discovery, transports, finalize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/proto.h"
#include "util/env.h"
#include "util/log.h"

#define ENGINE_HOST_MAX 320

hc_engine_t hc_engine = {.lock = PTHREAD_MUTEX_INITIALIZER};

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

void hc_engine_lock(void) {
  if (hc_engine.locking)
    pthread_mutex_lock(&hc_engine.lock);
}

void hc_engine_unlock(void) {
  if (hc_engine.locking)
    pthread_mutex_unlock(&hc_engine.lock);
}

hc_status_t hc_engine_check(void) {
  return hc_engine.initialized && !hc_engine.finalized ? HC_OK : HC_ERR_STATE;
}

int hcomm_initialized(void) {
  return hc_engine.initialized && !hc_engine.finalized;
}
int hcomm_finalized(void) { return hc_engine.finalized; }
int hcomm_appnum(void) { return hc_engine.appnum; }
int hcomm_universe_size(void) { return hc_engine.universe_size; }

/* hostname plus boot id: two containers with one hostname stay apart. */
static void engine_host_id(char *buf, size_t len) {
  char host[256] = "localhost";
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

/* Every rank runs both fences even when it has no local peers or failed,
 * so the job-wide fence count always agrees. */
static hc_status_t engine_shm_init(const hc_transport_init_args_t *args) {
  const hc_transport_ops_t *ops = &hc_transport_shm_ops;
  const hc_bootstrap_ops_t *boot = hc_engine.boot;
  char addr[HC_BOOTSTRAP_VALUE_MAX], key[HC_BOOTSTRAP_KEY_MAX];
  hc_status_t rc = HC_OK;
  int use = hc_engine.local_size > 1;
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

/* Hook for remote transports (tcp, verbs): the one place that decides how a
 * peer on another node is reached.  None exist yet. */
static const hc_transport_ops_t *engine_remote_transport(int world_rank,
                                                         void **tctx) {
  (void)world_rank;
  *tctx = NULL;
  return NULL;
}

static int engine_is_local(int world_rank) {
  for (int i = 0; i < hc_engine.local_size; i++)
    if (hc_engine.local_world_ranks[i] == world_rank)
      return 1;
  return 0;
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
  };
  hc_status_t rc = engine_self_init(&args);
  hc_status_t src = engine_shm_init(&args);
  if (rc == HC_OK)
    rc = src;
  if (rc == HC_OK)
    rc = engine_peers_init();
  return rc;
}

static void engine_teardown(void) {
  hc_comm_fini_predefined();
  hc_proto_fini();
  hc_transport_shm_ops.fini(hc_engine.shm_ctx);
  hc_transport_self_ops.fini(hc_engine.self_ctx);
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
  hc_bootstrap_info_t info;
  hc_engine.boot = hc_bootstrap_select();
  hc_status_t rc = hc_engine.boot->init(&hc_engine.boot_ctx, &info);
  if (rc != HC_OK)
    return rc;
  hc_engine.world_rank = info.rank;
  hc_engine.world_size = info.size;
  hc_engine.appnum = info.appnum;
  hc_engine.universe_size = info.universe_size;
  rc = engine_contexts_init();
  if (rc == HC_OK)
    rc = engine_find_local();
  if (rc == HC_OK)
    rc = engine_transports_init();
  if (rc == HC_OK)
    rc = hc_comm_init_predefined();
  return rc;
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
  hc_status_t rc = engine_start();
  if (rc != HC_OK) {
    hc_log(HC_LOG_ERROR, "engine", "init failed: %s", hcomm_strerror(rc));
    engine_teardown();
    return rc;
  }
  hc_engine.locking = thread_level == HCOMM_THREAD_MULTIPLE;
  hc_engine.initialized = 1;
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
  hc_engine_lock();
  hc_status_t rc = hc_engine_check();
  if (rc != HC_OK) {
    hc_engine_unlock();
    return rc;
  }
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
