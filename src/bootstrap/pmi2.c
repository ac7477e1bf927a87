/*
 * PMI-2 wire-protocol client over PMI_FD, as served by Slurm's
 * `srun --mpi=pmi2` and by MPICH's Hydra.  Both also answer PMI-1 on the
 * same descriptor; pmi2 is chosen automatically only where Slurm's pmi2
 * plugin is evident (SLURM_MPI_TYPE=pmi2), or by HCMPI_BOOTSTRAP=pmi2.
 * Values are escaped (pmi2_wire.h) because ';' ends a field on this wire.
 *
 * MPI_Comm_spawn goes to the launcher as one "spawn" frame; Slurm runs a
 * new srun for it, whose processes find the parents' port in their own
 * key space (preput) and the spawner's job id in their fullinit reply.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/kvstore.h"
#include "bootstrap/pmi1_wire.h"
#include "bootstrap/pmi2_wire.h"
#include "util/env.h"
#include "util/findexec.h"
#include "util/log.h"

/* Both servers limit keys to 64 and values to 1024 bytes, NUL included. */
#define PMI2_KEY_MAX 64
#define PMI2_VALUE_MAX 1024
#define PMI2_FRAME_MAX (HC_PMI1_LINE_MAX + HC_PMI2_HEADER_LEN)

/* Cache flags, as in pmi1.c: own puts survive a fence, fetched values do
 * not. */
#define PMI2_KV_OWN 1
#define PMI2_KV_FETCHED 2

typedef struct pmi2_ctx {
  int fd;
  int rank;
  int size;
  /* Hydra's kvs-fence returns before the other ranks reach it (measured
   * with MPICH 4.0.2); Slurm's is a barrier (pmi2_fence_barrier). */
  int fence_is_barrier;
  int ready;   /* fullinit done: fini owes the launcher a finalize */
  int spawned; /* started by a spawn: fullinit named the spawner's job */
  hc_kvstore_t cache;
  hc_pmi1_reader_t reader;
  hc_pmi1_msg_t msg; /* last reply */
} pmi2_ctx_t;

static int pmi2_detect(void) {
  const char *fd = getenv("PMI_FD");
  const char *type = getenv("SLURM_MPI_TYPE");
  return fd != NULL && *fd != '\0' && type != NULL &&
         strncmp(type, "pmi2", 4) == 0;
}

/* Sends a frame and reads the reply, which must be `reply` with rc 0. */
static hc_status_t pmi2_call(pmi2_ctx_t *c, const char *frame, int len,
                             const char *reply) {
  if (len < 0)
    return HC_ERR_ARG;
  if (hc_pmi1_write_all(c->fd, frame, (size_t)len) != 0) {
    hc_log(HC_LOG_ERROR, "pmi2", "write to launcher failed: %s",
           strerror(errno));
    return HC_ERR_BOOTSTRAP;
  }
  if (reply == NULL)
    return HC_OK;
  if (hc_pmi2_read_frame(&c->reader, &c->msg) != 0) {
    hc_log(HC_LOG_ERROR, "pmi2", "waiting for %s: %s", reply, strerror(errno));
    return HC_ERR_BOOTSTRAP;
  }
  if (strcmp(hc_pmi1_cmd(&c->msg), reply) != 0) {
    hc_log(HC_LOG_ERROR, "pmi2", "expected %s, got %s", reply,
           hc_pmi1_cmd(&c->msg));
    return HC_ERR_BOOTSTRAP;
  }
  if (hc_pmi1_rc(&c->msg) != 0) {
    const char *why = hc_pmi1_get(&c->msg, "errmsg");
    hc_log(HC_LOG_DEBUG, "pmi2", "%s: rc=%d %s", reply, hc_pmi1_rc(&c->msg),
           why ? why : "");
    return HC_ERR_BOOTSTRAP;
  }
  return HC_OK;
}

static hc_status_t pmi2_open(pmi2_ctx_t *c) {
  const char *fdtext = getenv("PMI_FD");
  char *end = NULL;
  long fd = fdtext ? strtol(fdtext, &end, 10) : -1;
  if (fdtext == NULL || *fdtext == '\0' || *end != '\0' || fd < 0) {
    hc_log(HC_LOG_ERROR, "pmi2", "PMI_FD is not set to a descriptor");
    return HC_ERR_BOOTSTRAP;
  }
  c->fd = (int)fd;
  /* Programs the rank starts must not inherit the launcher's channel. */
  fcntl(c->fd, F_SETFD, FD_CLOEXEC);
  hc_pmi1_reader_init(&c->reader, c->fd);
  return HC_OK;
}

/* The version handshake is one PMI-1 line each way; frames follow. */
static hc_status_t pmi2_hello(pmi2_ctx_t *c) {
  static const char hello[] = "cmd=init pmi_version=2 pmi_subversion=0\n";
  char line[HC_PMI1_LINE_MAX];
  if (hc_pmi1_write_all(c->fd, hello, sizeof hello - 1) != 0)
    return HC_ERR_BOOTSTRAP;
  ssize_t n = hc_pmi1_read_line(&c->reader, line, sizeof line);
  if (n < 0 || hc_pmi1_parse(line, (size_t)n, &c->msg) != 0 ||
      strcmp(hc_pmi1_cmd(&c->msg), "response_to_init") != 0 ||
      hc_pmi1_rc(&c->msg) != 0 ||
      hc_pmi1_get_long(&c->msg, "pmi_version", -1) != 2) {
    hc_log(HC_LOG_ERROR, "pmi2", "launcher refused PMI-2: '%s'",
           n < 0 ? strerror(errno) : line);
    return HC_ERR_BOOTSTRAP;
  }
  return HC_OK;
}

static hc_status_t pmi2_fullinit(pmi2_ctx_t *c, hc_bootstrap_info_t *info) {
  char frame[PMI2_FRAME_MAX];
  const char *jobid = getenv("PMI_JOBID");
  const char *rank = hc_env_string("PMI_RANK", "0");
  int len =
      jobid != NULL
          ? hc_pmi2_format(frame, sizeof frame, "fullinit", "pmijobid", jobid,
                           "pmirank", rank, "threaded", "FALSE", NULL)
          : hc_pmi2_format(frame, sizeof frame, "fullinit", "pmirank", rank,
                           "threaded", "FALSE", NULL);
  hc_status_t st = pmi2_call(c, frame, len, "fullinit-response");
  if (st != HC_OK)
    return st;
  long r = hc_pmi1_get_long(&c->msg, "rank", -1);
  long size = hc_pmi1_get_long(&c->msg, "size", -1);
  if (size < 1 || r < 0 || r >= size) {
    hc_log(HC_LOG_ERROR, "pmi2", "bad rank %ld / size %ld from launcher", r,
           size);
    return HC_ERR_BOOTSTRAP;
  }
  c->rank = (int)r;
  c->size = (int)size;
  info->rank = (int)r;
  info->size = (int)size;
  info->appnum = (int)hc_pmi1_get_long(&c->msg, "appnum", -1);
  c->spawned = hc_pmi1_get(&c->msg, "spawner-jobid") != NULL;
  return HC_OK;
}

/* Optional: servers that do not know the attribute leave it at -1. */
static void pmi2_universe(pmi2_ctx_t *c, hc_bootstrap_info_t *info) {
  char frame[256];
  int len = hc_pmi2_format(frame, sizeof frame, "info-getjobattr", "key",
                           "universeSize", NULL);
  if (pmi2_call(c, frame, len, "info-getjobattr-response") == HC_OK &&
      hc_pmi2_get_bool(&c->msg, "found", 0))
    info->universe_size =
        (int)hc_pmi1_get_long(&c->msg, "value", info->universe_size);
}

static void pmi2_fini(void *ctx);
static hc_status_t pmi2_get(void *ctx, const char *key, char *value,
                            size_t len);

/* A spawned process finds the parents' port where the spawning root
 * preput it: in its own job's key space, readable before any fence. */
static void pmi2_parent_port(pmi2_ctx_t *c, hc_bootstrap_info_t *info) {
  if (!c->spawned)
    return;
  if (pmi2_get(c, HC_BOOTSTRAP_PARENT_PORT_KEY, info->parent_port,
               sizeof info->parent_port) != HC_OK) {
    info->parent_port[0] = '\0';
    hc_log(HC_LOG_WARN, "pmi2",
           "spawned but the launcher has no %s: MPI_Comm_get_parent will be "
           "MPI_COMM_NULL",
           HC_BOOTSTRAP_PARENT_PORT_KEY);
  }
}

static hc_status_t pmi2_init(void **ctxp, hc_bootstrap_info_t *info) {
  *ctxp = NULL;
  pmi2_ctx_t *c = calloc(1, sizeof *c);
  if (c == NULL)
    return HC_ERR_NOMEM;
  c->fd = -1;
  c->fence_is_barrier = pmi2_detect();
  hc_kvstore_init(&c->cache);
  hc_bootstrap_info_t got;
  hc_bootstrap_info_clear(&got);
  hc_status_t st = pmi2_open(c);
  if (st == HC_OK) {
    hc_bootstrap_note_socket(c->fd, &got);
    st = pmi2_hello(c);
  }
  if (st == HC_OK)
    st = pmi2_fullinit(c, &got);
  if (st != HC_OK) {
    pmi2_fini(c);
    return HC_ERR_BOOTSTRAP;
  }
  c->ready = 1;
  pmi2_universe(c, &got);
  pmi2_parent_port(c, &got);
  *info = got;
  *ctxp = c;
  return HC_OK;
}

static int pmi2_bad_key(const char *key) {
  return key == NULL || *key == '\0' || strlen(key) >= PMI2_KEY_MAX ||
         strpbrk(key, " =;\n\r") != NULL;
}

static hc_status_t pmi2_put(void *ctx, const char *key, const char *value) {
  pmi2_ctx_t *c = ctx;
  char esc[PMI2_VALUE_MAX], frame[PMI2_FRAME_MAX];
  if (c == NULL || value == NULL || pmi2_bad_key(key) ||
      strpbrk(value, " \n\r") != NULL ||
      hc_pmi2_escape(value, esc, sizeof esc) < 0)
    return HC_ERR_ARG;
  int len = hc_pmi2_format(frame, sizeof frame, "kvs-put", "key", key, "value",
                           esc, NULL);
  hc_status_t st = pmi2_call(c, frame, len, "kvs-put-response");
  if (st == HC_OK && hc_kvstore_set(&c->cache, key, value, PMI2_KV_OWN) != 0)
    return HC_ERR_NOMEM;
  return st;
}

static hc_status_t pmi2_kvs_fence(pmi2_ctx_t *c) {
  char frame[64];
  hc_status_t st = pmi2_call(
      c, frame, hc_pmi2_format(frame, sizeof frame, "kvs-fence", NULL),
      "kvs-fence-response");
  hc_kvstore_prune(&c->cache, PMI2_KV_OWN);
  return st;
}

/* Hydra holds a get of a key nobody put until every rank has entered the
 * current fence epoch, then answers "not found" (measured, MPICH 4.0.2):
 * so that get, after our own kvs-fence, is the barrier.  A broken launcher
 * connection also reads as "not found" here; the next call reports it. */
static hc_status_t pmi2_fence_barrier(pmi2_ctx_t *c) {
  char value[16];
  hc_status_t st = pmi2_kvs_fence(c);
  if (st != HC_OK)
    return st;
  st = pmi2_get(c, "hc-pmi2-fence-barrier", value, sizeof value);
  return st == HC_ERR_BOOTSTRAP ? HC_OK : st;
}

static hc_status_t pmi2_fence(void *ctx) {
  pmi2_ctx_t *c = ctx;
  if (c == NULL)
    return HC_ERR_ARG;
  if (!c->fence_is_barrier && c->size > 1)
    return pmi2_fence_barrier(c);
  return pmi2_kvs_fence(c);
}

static hc_status_t pmi2_copy_out(const char *v, char *value, size_t len) {
  size_t n = strlen(v);
  if (n >= len)
    return HC_ERR_TRUNCATE;
  memcpy(value, v, n + 1);
  return HC_OK;
}

static hc_status_t pmi2_get(void *ctx, const char *key, char *value,
                            size_t len) {
  pmi2_ctx_t *c = ctx;
  if (c == NULL || value == NULL || len == 0 || pmi2_bad_key(key))
    return HC_ERR_ARG;
  const char *cached = hc_kvstore_get(&c->cache, key);
  if (cached != NULL)
    return pmi2_copy_out(cached, value, len);
  char frame[PMI2_FRAME_MAX], plain[PMI2_VALUE_MAX];
  int n = hc_pmi2_format(frame, sizeof frame, "kvs-get", "srcid", "-1", "key",
                         key, NULL);
  if (pmi2_call(c, frame, n, "kvs-get-response") != HC_OK ||
      !hc_pmi2_get_bool(&c->msg, "found", 0))
    return HC_ERR_BOOTSTRAP;
  const char *v = hc_pmi1_get(&c->msg, "value");
  if (v == NULL || hc_pmi2_unescape(v, plain, sizeof plain) < 0)
    return HC_ERR_BOOTSTRAP;
  if (hc_kvstore_set(&c->cache, key, plain, PMI2_KV_FETCHED) != 0)
    return HC_ERR_NOMEM;
  return pmi2_copy_out(plain, value, len);
}

/* One command's fields of a spawn frame: the program, its process count,
 * its arguments from argv0 (the program is not one), and the working
 * directory as the info key "wdir" (srun's --chdir). */
static int pmi2_spawn_command(char *frame, size_t len, size_t *used,
                              const hc_bootstrap_spawn_t *cmd) {
  char num[24], key[24];
  int argc = 0, bad = 0;
  while (cmd->argv[argc] != NULL)
    argc++;
  bad |= hc_pmi2_add(frame, len, used, "subcmd", cmd->argv[0]);
  snprintf(num, sizeof num, "%d", cmd->nprocs);
  bad |= hc_pmi2_add(frame, len, used, "maxprocs", num);
  snprintf(num, sizeof num, "%d", argc - 1);
  bad |= hc_pmi2_add(frame, len, used, "argc", num);
  for (int a = 1; a < argc; a++) {
    snprintf(key, sizeof key, "argv%d", a - 1);
    bad |= hc_pmi2_add(frame, len, used, key, cmd->argv[a]);
  }
  bad |= hc_pmi2_add(frame, len, used, "infokeycount",
                     cmd->wdir != NULL ? "1" : "0");
  if (cmd->wdir != NULL) {
    bad |= hc_pmi2_add(frame, len, used, "infokey0", "wdir");
    bad |= hc_pmi2_add(frame, len, used, "infoval0", cmd->wdir);
  }
  return bad;
}

/* The frame's bytes: every string once, and room for keys and numbers. */
static size_t pmi2_spawn_bytes(const hc_bootstrap_spawn_t *cmds, int ncmds,
                               const char *port) {
  size_t n = 256 + 3 * strlen(port);
  for (int k = 0; k < ncmds; k++) {
    n += 128 + (cmds[k].wdir != NULL ? strlen(cmds[k].wdir) : 0);
    for (int a = 0; cmds[k].argv[a] != NULL; a++)
      n += 24 + strlen(cmds[k].argv[a]);
  }
  return n;
}

static hc_status_t pmi2_spawn(void *ctx, const hc_bootstrap_spawn_t *cmds,
                              int ncmds, const char *port) {
  pmi2_ctx_t *c = ctx;
  char num[24], esc_port[3 * HC_BOOTSTRAP_PORT_MAX];
  if (c == NULL || ncmds < 1 ||
      hc_pmi2_escape(port, esc_port, sizeof esc_port) < 0)
    return HC_ERR_ARG;
  /* srun would start what it can and fail the step on a program it cannot
   * execute, leaving the parents waiting: refuse here first. */
  for (int k = 0; k < ncmds; k++)
    if (!hc_can_exec(cmds[k].argv[0])) {
      hc_log(HC_LOG_WARN, "pmi2", "spawn: cannot execute %s", cmds[k].argv[0]);
      return HC_ERR_SPAWN;
    }
  size_t len = pmi2_spawn_bytes(cmds, ncmds, port), used = 0;
  char *frame = malloc(len);
  if (frame == NULL)
    return HC_ERR_NOMEM;
  snprintf(num, sizeof num, "%d", ncmds);
  int bad = hc_pmi2_add(frame, len, &used, "cmd", "spawn");
  bad |= hc_pmi2_add(frame, len, &used, "ncmds", num);
  bad |= hc_pmi2_add(frame, len, &used, "preputcount", "1");
  bad |= hc_pmi2_add(frame, len, &used, "ppkey0", HC_BOOTSTRAP_PARENT_PORT_KEY);
  bad |= hc_pmi2_add(frame, len, &used, "ppval0", esc_port);
  for (int k = 0; k < ncmds; k++)
    bad |= pmi2_spawn_command(frame, len, &used, &cmds[k]);
  hc_status_t st = HC_ERR_ARG;
  if (bad)
    hc_log(HC_LOG_ERROR, "pmi2",
           "spawn: an argument or directory holds ';' or a newline, which "
           "PMI-2 cannot carry");
  else
    st = pmi2_call(c, frame, hc_pmi2_seal(frame, used), "spawn-response");
  free(frame);
  if (st == HC_ERR_BOOTSTRAP && !bad &&
      strcmp(hc_pmi1_cmd(&c->msg), "spawn-response") == 0) {
    const char *why = hc_pmi1_get(&c->msg, "errmsg");
    hc_log(HC_LOG_WARN, "pmi2", "the launcher refused the spawn: %s",
           why != NULL ? why : "no reason given");
    st = HC_ERR_SPAWN;
  }
  return st;
}

/* Turns a message into something one PMI-2 field can carry. */
static void pmi2_sanitize(const char *in, char *out, size_t len) {
  snprintf(out, len, "%s", in ? in : "");
  for (char *p = out; *p != '\0'; p++)
    if (*p == ';' || *p == '\n' || *p == '\r')
      *p = ' ';
}

/* abort has no reply; as in pmi1.c, we wait for the launcher to kill the
 * job so that its exit code is the one asked for. */
static void pmi2_abort(void *ctx, int code, const char *message) {
  pmi2_ctx_t *c = ctx;
  if (message != NULL && *message != '\0')
    fprintf(stderr, "hcmpi: rank %d: %s\n", c ? c->rank : 0, message);
  if (c == NULL || c->fd < 0)
    return;
  char num[24], text[256], frame[512];
  snprintf(num, sizeof num, "%d", code);
  pmi2_sanitize(message, text, sizeof text);
  int len = hc_pmi2_format(frame, sizeof frame, "abort", "isworld", "TRUE",
                           "exitcode", num, "message", text, NULL);
  if (pmi2_call(c, frame, len, NULL) != HC_OK)
    return;
  struct pollfd p = {.fd = c->fd, .events = POLLIN};
  while (poll(&p, 1, 5000) > 0 && hc_pmi1_reader_fill(&c->reader) > 0)
    ;
}

static void pmi2_fini(void *ctx) {
  pmi2_ctx_t *c = ctx;
  if (c == NULL)
    return;
  if (c->fd >= 0 && c->ready) {
    char frame[64];
    int len = hc_pmi2_format(frame, sizeof frame, "finalize", NULL);
    if (pmi2_call(c, frame, len, "finalize-response") != HC_OK)
      hc_log(HC_LOG_WARN, "pmi2", "no finalize-response from launcher");
  }
  if (c->fd >= 0)
    close(c->fd);
  hc_kvstore_fini(&c->cache);
  free(c);
}

const hc_bootstrap_ops_t hc_bootstrap_pmi2_ops = {
    .name = "pmi2",
    .detect = pmi2_detect,
    .init = pmi2_init,
    .put = pmi2_put,
    .fence = pmi2_fence,
    .get = pmi2_get,
    .abort = pmi2_abort,
    .fini = pmi2_fini,
    .spawn = pmi2_spawn,
};
