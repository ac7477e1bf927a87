/* Engine life cycle: bootstrap, node discovery, transports, finalize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hcomm/coll.h"
#include "hcomm/comm.h"
#include "hcomm/counters.h"
#include "hcomm/core.h"
#include "hcomm/ft.h"
#include "hcomm/proto.h"
#include "hcomm/shmcoll.h"
#include "util/env.h"
#include "util/lock.h"
#include "util/log.h"
#include "util/secret.h"

#define ENGINE_HOST_MAX 320

hc_engine_t hc_engine = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* What the bootstrap said at init: placement to check the host ids
 * against, the address that reached the launcher for tcp. */
static hc_bootstrap_info_t engine_boot_info;
/* What the transports started with (a run-time one starts later). */
static hc_transport_init_args_t engine_transport_args;

int hcomm_initialized(void) {
  return hc_engine.initialized && !hc_engine.finalized;
}
int hcomm_finalized(void) { return hc_engine.finalized; }
int hcomm_node_world_ranks(const int **world_ranks) {
  *world_ranks = hc_engine.local_world_ranks;
  return hc_engine.local_size;
}
int hcomm_appnum(void) { return hc_engine.appnum; }
int hcomm_universe_size(void) { return hc_engine.universe_size; }

/* This kernel's boot id ("" where /proc does not say). */
static void engine_boot_id(char *buf, size_t len) {
  buf[0] = '\0';
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  if (f != NULL) {
    if (fgets(buf, (int)len, f) == NULL)
      buf[0] = '\0';
    fclose(f);
  }
  buf[strcspn(buf, "\n")] = '\0';
}

/* hostname plus boot id: two containers with one hostname stay apart, and
 * hosts that differ only in hostname (UTS namespaces sharing /dev/shm and
 * the boot id, as the tests build them) are apart too.  HCMPI_NODE_ID
 * overrides it for hosts cloned with both equal.  The value published is
 * "<host id>|<boot id>": the second part tells which ranks share cores. */
static void engine_host_id(char *buf, size_t len, const char *boot) {
  char host[256] = "localhost";
  const char *forced = hc_env_string("HCMPI_NODE_ID", NULL);
  if (forced != NULL) {
    snprintf(buf, len, "id:%s", forced);
  } else {
    gethostname(host, sizeof host - 1);
    snprintf(buf, len, "%s_%s", host, boot);
  }
  for (char *p = buf; *p != '\0'; p++)
    if (*p == ' ' || *p == '\t' || *p == '=' || *p == '|')
      *p = '_';
  size_t used = strlen(buf);
  snprintf(buf + used, len - used, "|%s", boot);
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
  char key[HC_BOOTSTRAP_KEY_MAX], boot_id[64];
  engine_boot_id(boot_id, sizeof boot_id);
  engine_host_id(mine, sizeof mine, boot_id);
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
  hc_engine.cpu_size = 0;
  const char *my_boot = strrchr(mine, '|') + 1;
  for (int r = 0; r < n; r++) {
    if (r == hc_engine.world_rank) {
      hc_engine.local_rank = hc_engine.local_size;
      hc_engine.cpu_rank = hc_engine.cpu_size++;
      hc_engine.local_world_ranks[hc_engine.local_size++] = r;
      continue;
    }
    snprintf(key, sizeof key, "hc-host-%d", r);
    rc = boot->get(hc_engine.boot_ctx, key, theirs, sizeof theirs);
    if (rc != HC_OK)
      return rc;
    const char *their_boot = strrchr(theirs, '|');
    /* An unknown boot id shares nothing we can count on. */
    if (their_boot != NULL && my_boot[0] != '\0' &&
        strcmp(their_boot + 1, my_boot) == 0)
      hc_engine.cpu_size++;
    if (strcmp(theirs, mine) == 0)
      hc_engine.local_world_ranks[hc_engine.local_size++] = r;
  }
  engine_check_placement(&engine_boot_info);
  return HC_OK;
}

/* 1 when HCMPI_TRANSPORTS (a comma-separated list; default: all) names
 * the transport.  Transports of reach SELF are always on. */
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

/* 1 when some registered transport of reach NODE is enabled. */
static int engine_node_transport_enabled(void) {
  const hc_transport_ops_t *const *list;
  int n = hc_transport_registered(&list);
  for (int i = 0; i < n; i++)
    if (list[i]->reach == HC_TRANSPORT_REACH_NODE &&
        engine_transport_enabled(list[i]->name))
      return 1;
  return 0;
}

/* Whether this rank starts ops.  For reach ANY every rank answers alike
 * (the job's shape and environment are the same everywhere): on a job of
 * one node such a transport starts only when no node transport is enabled
 * and it serves local ranks by default or HCMPI_TRANSPORTS names it. */
static int engine_transport_wanted(const hc_transport_ops_t *ops) {
  if (ops->reach == HC_TRANSPORT_REACH_SELF)
    return 1;
  if (ops->reach == HC_TRANSPORT_REACH_RUNTIME)
    return 0; /* hc_engine_runtime_transport starts it when needed */
  if (!engine_transport_enabled(ops->name))
    return 0;
  if (ops->reach == HC_TRANSPORT_REACH_NODE)
    return hc_engine.local_size > 1;
  if (hc_engine.world_size < 2)
    return 0;
  if (hc_engine.world_size > hc_engine.local_size)
    return 1;
  return !engine_node_transport_enabled() &&
         ((ops->flags & HC_TRANSPORT_LOCAL_DEFAULT) ||
          hc_env_string("HCMPI_TRANSPORTS", NULL) != NULL);
}

static void engine_address_key(char *key, const hc_transport_ops_t *ops,
                               int world_rank) {
  snprintf(key, HC_BOOTSTRAP_KEY_MAX, "hc-%s-%d", ops->name, world_rank);
}

/* Starts ops and publishes its address (reach SELF: nothing to publish).
 * An optional transport that fails is closed again and publishes "none";
 * *dropped then says so. */
static hc_status_t engine_transport_start(const hc_transport_ops_t *ops,
                                          const hc_transport_init_args_t *args,
                                          int *dropped) {
  hc_engine_transport_t *t = &hc_engine.transports[hc_engine.ntransports++];
  char addr[HC_BOOTSTRAP_VALUE_MAX], key[HC_BOOTSTRAP_KEY_MAX];
  t->ops = ops;
  t->poll_after_send = (ops->flags & HC_TRANSPORT_POLL_AFTER_SEND) != 0;
  hc_status_t rc = ops->init(args, &t->ctx);
  if (rc == HC_OK)
    rc = ops->address(t->ctx, addr, HC_TRANSPORT_ADDRESS_MAX);
  *dropped = rc != HC_OK && (ops->flags & HC_TRANSPORT_OPTIONAL);
  if (*dropped) {
    ops->fini(t->ctx);
    memset(t, 0, sizeof *t);
    hc_engine.ntransports--;
    snprintf(addr, sizeof addr, "none");
    rc = HC_OK;
  }
  if (rc == HC_OK && !*dropped)
    hc_counters_transport_started(hc_engine.ntransports - 1, ops->name);
  if (rc != HC_OK || ops->reach == HC_TRANSPORT_REACH_SELF)
    return rc;
  engine_address_key(key, ops, hc_engine.world_rank);
  return hc_engine.boot->put(hc_engine.boot_ctx, key, addr);
}

/* 1 when a started transport wants the job secret. */
static int engine_secret_wanted(void) {
  const char *given = getenv("HCMPI_JOB_SECRET"); /* init took it */
  if (given != NULL && given[0] != '\0')
    return 0;
  for (int i = 0; i < hc_engine.ntransports; i++)
    if (hc_engine.transports[i].ops->flags & HC_TRANSPORT_WANTS_SECRET)
      return 1;
  return 0;
}

/* Without HCMPI_JOB_SECRET from the launcher, rank 0 makes the secret and
 * publishes it before the fence (before_fence), every other rank reads it
 * after (!before_fence).  It is set before any connection is served:
 * a transport reads its peers only in progress, after init. */
static hc_status_t engine_secret_share(int before_fence) {
  const hc_bootstrap_ops_t *boot = hc_engine.boot;
  char hex[HC_BOOTSTRAP_VALUE_MAX];
  hc_status_t rc = HC_OK;
  if (!engine_secret_wanted() || before_fence != (hc_engine.world_rank == 0))
    return HC_OK;
  if (before_fence && hc_secret_new(hex, sizeof hex) != 0)
    return HC_ERR_SYSTEM;
  if (before_fence)
    rc = boot->put(hc_engine.boot_ctx, "hc-job-secret", hex);
  else
    rc = boot->get(hc_engine.boot_ctx, "hc-job-secret", hex, sizeof hex);
  for (int i = 0; rc == HC_OK && i < hc_engine.ntransports; i++) {
    hc_engine_transport_t *t = &hc_engine.transports[i];
    if (t->ops->flags & HC_TRANSPORT_WANTS_SECRET)
      rc = t->ops->set_secret(t->ctx, hex);
  }
  memset(hex, 0, sizeof hex);
  return rc;
}

/* Initialises every wanted transport of the registration list and
 * publishes its address.  dropped collects the optional ones that failed
 * (*ndropped of them). */
static hc_status_t engine_transports_start(const hc_transport_init_args_t *args,
                                           const hc_transport_ops_t **dropped,
                                           int *ndropped) {
  const hc_transport_ops_t *const *list;
  int n = hc_transport_registered(&list);
  hc_status_t rc = HC_OK;
  *ndropped = 0;
  if (n > HC_ENGINE_TRANSPORTS_MAX) {
    hc_log(HC_LOG_ERROR, "engine", "%d transports registered, room for %d", n,
           HC_ENGINE_TRANSPORTS_MAX);
    return HC_ERR_INTERNAL;
  }
  for (int i = 0; rc == HC_OK && i < n; i++) {
    int gone = 0;
    if (engine_transport_wanted(list[i]))
      rc = engine_transport_start(list[i], args, &gone);
    if (gone)
      dropped[(*ndropped)++] = list[i];
  }
  if (rc == HC_OK)
    rc = engine_secret_share(1);
  if (rc == HC_OK)
    rc = hc_procname_share(1);
  return rc;
}

int hc_engine_is_local(int world_rank) {
  for (int i = 0; i < hc_engine.local_size; i++)
    if (hc_engine.local_world_ranks[i] == world_rank)
      return 1;
  return 0;
}

hc_transport_placement_t hc_engine_peer_placement(int world_rank) {
  if (world_rank < 0 || world_rank >= hc_engine.npeers)
    return HC_TRANSPORT_PLACEMENT_UNKNOWN;
  const hc_peer_t *peer = &hc_engine.peers[world_rank];
  if (peer->ops == NULL || peer->ops->placement == NULL)
    return HC_TRANSPORT_PLACEMENT_UNKNOWN;
  return peer->ops->placement(peer->tctx, world_rank);
}

/* 1 when a started transport of a reach narrower than reach covers r. */
static int engine_narrower_covers(hc_transport_reach_t reach, int r);

/* The peers t connects to: those of its reach that no started transport
 * of a narrower reach covers. */
static int engine_transport_covers(hc_transport_reach_t reach, int r) {
  int me = hc_engine.world_rank;
  switch (reach) {
  case HC_TRANSPORT_REACH_SELF:
    return r == me;
  case HC_TRANSPORT_REACH_NODE:
    return r != me && hc_engine_is_local(r);
  case HC_TRANSPORT_REACH_ANY:
    return r != me && !engine_narrower_covers(reach, r);
  case HC_TRANSPORT_REACH_RUNTIME:
    return 0;
  }
  return 0;
}

static int engine_narrower_covers(hc_transport_reach_t reach, int r) {
  for (int i = 0; i < hc_engine.ntransports; i++) {
    hc_transport_reach_t other = hc_engine.transports[i].ops->reach;
    if (other < reach && engine_transport_covers(other, r))
      return 1;
  }
  return 0;
}

/* Connects t to world rank r from its published address; the first
 * transport (in list order) that connects reaches r.  An optional
 * transport skips a peer that published "none" or that it refuses. */
static hc_status_t engine_transport_connect(hc_engine_transport_t *t, int r) {
  const hc_transport_ops_t *ops = t->ops;
  char addr[HC_BOOTSTRAP_VALUE_MAX], key[HC_BOOTSTRAP_KEY_MAX];
  int optional = (ops->flags & HC_TRANSPORT_OPTIONAL) != 0;
  hc_status_t rc;
  if (ops->reach == HC_TRANSPORT_REACH_SELF) {
    rc = ops->address(t->ctx, addr, HC_TRANSPORT_ADDRESS_MAX);
  } else {
    engine_address_key(key, ops, r);
    rc = hc_engine.boot->get(hc_engine.boot_ctx, key, addr, sizeof addr);
    if (rc == HC_OK && optional && strcmp(addr, "none") == 0)
      return HC_OK;
  }
  if (rc == HC_OK)
    rc = ops->connect(t->ctx, r, addr);
  if (rc == HC_OK && hc_engine.peers[r].via == NULL) {
    hc_engine.peers[r].via = t;
    hc_engine.peers[r].ops = ops;
    hc_engine.peers[r].tctx = t->ctx;
  }
  return optional ? HC_OK : rc;
}

static hc_status_t engine_transports_connect(void) {
  hc_status_t rc = engine_secret_share(0);
  if (rc == HC_OK)
    rc = hc_procname_share(0);
  for (int i = 0; rc == HC_OK && i < hc_engine.ntransports; i++) {
    hc_engine_transport_t *t = &hc_engine.transports[i];
    for (int r = 0; rc == HC_OK && r < hc_engine.world_size; r++)
      if (engine_transport_covers(t->ops->reach, r))
        rc = engine_transport_connect(t, r);
  }
  return rc;
}

/* A peer no transport reaches because an optional one that would have did
 * not start (and HCMPI_TRANSPORTS left nothing else) fails the init. */
static hc_status_t
engine_check_reached(const hc_transport_ops_t *const *dropped, int ndropped) {
  for (int r = 0; ndropped > 0 && r < hc_engine.world_size; r++) {
    if (hc_engine.peers[r].ops != NULL)
      continue;
    for (int i = 0; i < ndropped; i++) {
      if (!engine_transport_covers(dropped[i]->reach, r))
        continue;
      hc_log(HC_LOG_ERROR, "engine",
             "rank %d: no transport reaches rank %d: %s did not start and "
             "HCMPI_TRANSPORTS (%s) allows no other",
             hc_engine.world_rank, r, dropped[i]->name,
             hc_env_string("HCMPI_TRANSPORTS", "all"));
      return HC_ERR_TRANSPORT;
    }
  }
  return HC_OK;
}

/* The transports every poll visits (all but those polled after sends). */
static void engine_polled_setup(void) {
  hc_engine.npolled = 0;
  for (int i = 0; i < hc_engine.ntransports; i++) {
    hc_engine_transport_t *t = &hc_engine.transports[i];
    if (!t->poll_after_send)
      hc_engine.polled[hc_engine.npolled++] =
          (hc_engine_polled_t){t->ops->progress, t->ctx};
  }
}

static void engine_peers_setup(void) {
  for (int r = 0; r < hc_engine.world_size; r++) {
    hc_peer_t *peer = &hc_engine.peers[r];
    if (peer->ops != NULL)
      hc_proto_peer_setup(peer);
    if (hc_log_level() >= HC_LOG_DEBUG)
      hc_log(HC_LOG_DEBUG, "engine", "rank %d: peer %d via %s",
             hc_engine.world_rank, r,
             peer->ops != NULL ? peer->ops->name : "none");
  }
}

/* Room for the world and HCMPI_RUNTIME_PEERS processes met later, all
 * at once: peers never move (backlog lists link them). */
static hc_status_t engine_peers_alloc(void) {
  long more = hc_env_long("HCMPI_RUNTIME_PEERS", 1024);
  hc_engine.npeers = hc_engine.world_size;
  hc_engine.peers_max = hc_engine.world_size + (int)more;
  hc_engine.peers = calloc((size_t)hc_engine.peers_max, sizeof(hc_peer_t));
  if (hc_engine.peers == NULL)
    return HC_ERR_NOMEM;
  for (int r = 0; r < hc_engine.peers_max; r++)
    hc_engine.peers[r].world_rank = r;
  return HC_OK;
}

hc_status_t hc_engine_runtime_transport(hc_engine_transport_t **out) {
  const hc_transport_ops_t *const *list;
  int n = hc_transport_registered(&list);
  for (int i = 0; i < hc_engine.ntransports; i++)
    if (hc_engine.transports[i].ops->reach == HC_TRANSPORT_REACH_RUNTIME) {
      *out = &hc_engine.transports[i];
      return HC_OK;
    }
  for (int i = 0; i < n; i++) {
    if (list[i]->reach != HC_TRANSPORT_REACH_RUNTIME)
      continue;
    if (hc_engine.ntransports >= HC_ENGINE_TRANSPORTS_MAX)
      return HC_ERR_INTERNAL;
    hc_engine_transport_t *t = &hc_engine.transports[hc_engine.ntransports];
    t->ops = list[i];
    hc_status_t rc = t->ops->init(&engine_transport_args, &t->ctx);
    if (rc != HC_OK) {
      t->ops->fini(t->ctx);
      memset(t, 0, sizeof *t);
      return rc;
    }
    hc_counters_transport_started(hc_engine.ntransports++, t->ops->name);
    hc_engine.polled[hc_engine.npolled++] =
        (hc_engine_polled_t){t->ops->progress, t->ctx};
    *out = t;
    return HC_OK;
  }
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_engine_peers_add(hc_engine_transport_t *t, int n, int *first) {
  if (n < 0 || n > hc_engine.peers_max - hc_engine.npeers) {
    hc_log(HC_LOG_ERROR, "engine",
           "room for %d processes besides the world (HCMPI_RUNTIME_PEERS), "
           "%d more asked",
           hc_engine.peers_max - hc_engine.world_size, n);
    return HC_ERR_NOMEM;
  }
  *first = hc_engine.npeers;
  for (int i = 0; i < n; i++) {
    hc_peer_t *peer = &hc_engine.peers[hc_engine.npeers++];
    peer->via = t;
    peer->ops = t->ops;
    peer->tctx = t->ctx;
    hc_proto_peer_setup(peer);
  }
  return HC_OK;
}

/* Every wanted transport starts and publishes, one fence, every transport
 * connects to its peers, a second fence, every transport hears that all
 * are connected (shm unlinks its segment name then).  Every rank runs
 * both fences whatever failed, so the job's fence count stays in step. */
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
  const hc_transport_ops_t *dropped[HC_ENGINE_TRANSPORTS_MAX];
  int ndropped = 0;
  hc_status_t rc = engine_peers_alloc();
  args.peers_max = hc_engine.peers_max;
  engine_transport_args = args;
  if (rc == HC_OK)
    rc = engine_transports_start(&args, dropped, &ndropped);
  hc_status_t frc = hc_engine.boot->fence(hc_engine.boot_ctx);
  if (rc == HC_OK && frc == HC_OK)
    rc = engine_transports_connect();
  if (frc == HC_OK)
    frc = hc_engine.boot->fence(hc_engine.boot_ctx);
  /* Bound to its core before connected: shm times a ping-pong with its
   * local peer there, which two ranks sharing one core cannot run. */
  if (rc == HC_OK && frc == HC_OK)
    hc_progress_policy_init();
  for (int i = 0; rc == HC_OK && frc == HC_OK && i < hc_engine.ntransports; i++)
    rc = hc_engine.transports[i].ops->connected(hc_engine.transports[i].ctx);
  if (rc == HC_OK && frc == HC_OK)
    rc = engine_check_reached(dropped, ndropped);
  if (rc == HC_OK && frc == HC_OK) {
    engine_polled_setup();
    engine_peers_setup();
  }
  return rc != HC_OK ? rc : frc;
}

/* ---- the launcher's notice of a death ------------------------------------
 * Hydra run with -disable-auto-cleanup keeps the survivors of a death and
 * sends each a signal (SIGUSR1), whose default action would end them.
 * The handler only notes it; progress asks the launcher which ranks died
 * and fails them as a transport would, often before the transports see
 * the death themselves.  A handler the program installed stays. */

volatile sig_atomic_t hc_launcher_noticed;
static int engine_notice_signal;           /* 0 when no handler is ours */
static struct sigaction engine_notice_old; /* what it replaced */

static void engine_notice_handler(int sig) {
  (void)sig;
  hc_launcher_noticed = 1;
}

static void engine_notice_start(int sig) {
  struct sigaction now, ours;
  if (sig <= 0 || hc_engine.boot->dead_ranks == NULL ||
      sigaction(sig, NULL, &now) != 0 || now.sa_handler != SIG_DFL ||
      (now.sa_flags & SA_SIGINFO))
    return;
  memset(&ours, 0, sizeof ours);
  ours.sa_handler = engine_notice_handler;
  ours.sa_flags = SA_RESTART;
  sigemptyset(&ours.sa_mask);
  if (sigaction(sig, &ours, &engine_notice_old) == 0)
    engine_notice_signal = sig;
}

static void engine_notice_stop(void) {
  if (engine_notice_signal != 0)
    sigaction(engine_notice_signal, &engine_notice_old, NULL);
  engine_notice_signal = 0;
  hc_launcher_noticed = 0;
}

void hc_engine_launcher_notice(void) {
  int *ranks = malloc((size_t)hc_engine.world_size * sizeof *ranks);
  if (ranks == NULL)
    return;
  int n = hc_engine.boot->dead_ranks(hc_engine.boot_ctx, ranks,
                                     hc_engine.world_size);
  for (int i = 0; i < n && i < hc_engine.world_size; i++) {
    if (ranks[i] < 0 || ranks[i] >= hc_engine.world_size ||
        ranks[i] == hc_engine.world_rank)
      continue;
    hc_log(HC_LOG_DEBUG, "engine", "rank %d: the launcher says rank %d died",
           hc_engine.world_rank, ranks[i]);
    hc_engine_peer_failed(&hc_engine, ranks[i], HC_ERR_PEER_DEAD);
  }
  free(ranks);
}

static void engine_teardown(void) {
  engine_notice_stop();
  hc_dynamic_fini_locked();
  if (hc_engine.parent != NULL)
    hc_comm_release_locked(hc_engine.parent);
  hc_engine.parent = NULL;
  hc_comm_fini_predefined();
  hc_proto_fini();
  hc_ft_fini();
  hc_progress_fini();
  /* The reverse of the start order: what reaches other nodes goes first. */
  for (int i = hc_engine.ntransports - 1; i >= 0; i--) {
    hc_engine_transport_t *t = &hc_engine.transports[i];
    t->ops->fini(t->ctx);
    hc_counters_transport_stopped(i, &t->counts);
    memset(t, 0, sizeof *t);
  }
  hc_engine.ntransports = 0;
  hc_engine.npolled = 0;
  hc_engine.quiet_sent = 0;
  hc_engine.failed_peers = 0;
  hc_engine.failures_pending = 0;
  hc_engine.npeers = 0;
  hc_engine.peers_max = 0;
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
 * took their copy (at init): a program's children
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
  hc_shmcoll_tuning_load();
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
  engine_notice_start(engine_boot_info.failure_signal);
  hc_progress_thread_start();
  rc = hc_dynamic_init_parent(engine_boot_info.parent_port);
  if (rc != HC_OK) {
    hc_log(HC_LOG_ERROR, "engine", "cannot reach the parents: %s",
           hcomm_strerror(rc));
    return rc;
  }
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
  /* Survivors of a failure (ULFM) finalize among themselves: a member that
   * died, or a world the program revoked, ends the barrier early but is no
   * error of finalize, which would otherwise abort every survivor through
   * MPI_COMM_WORLD's fatal handler (MPICH's test/mpi/ft expects them to
   * finalize cleanly, as Open MPI's ULFM does). */
  if (rc == HC_ERR_PEER_DEAD || rc == HC_ERR_REVOKED) {
    hc_log(HC_LOG_INFO, "engine", "finalize: %s; finalizing with the survivors",
           hcomm_strerror(rc));
    rc = HC_OK;
  }
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

void hcomm_threads_enable(void) {
  /* Other threads may already read the switch: write it only once. */
  if (!hc_engine.locking)
    hc_engine.locking = 1;
  hc_lock_make_real();
}
