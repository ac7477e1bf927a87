/*
 * PMI-1 wire-protocol client, as spoken by hcmpirun, MPICH's Hydra
 * (PMI_FD, or PMI_PORT with -pmi-port) and Slurm's srun --mpi=pmi2.
 */
#include "config.h" /* _GNU_SOURCE, for pipe2 */

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/kvstore.h"
#include "bootstrap/pmi1_wire.h"
#include "util/env.h"
#include "util/findexec.h"
#include "util/log.h"

/* Cache flags: our own puts survive a fence, fetched values do not (another
 * rank may publish a new value for the key in a later epoch). */
#define PMI1_KV_OWN 1
#define PMI1_KV_FETCHED 2

typedef struct pmi1_ctx {
  int fd;
  int rank;
  int size;
  int keylen_max;
  int vallen_max;
  int ready;     /* init completed: fini owes the launcher a finalize */
  int by_hcmpirun; /* the launcher is hcmpirun (HCMPI_LAUNCHER) */
  char kvsname[257];
  hc_kvstore_t cache;
  hc_pmi1_reader_t reader;
  hc_pmi1_msg_t msg; /* last reply */
  /* Watches the launcher's end of the connection (pmi1_watch) */
  pthread_t watcher;
  int watching;
  int watch_stop[2]; /* a byte on [1] ends the watcher */
} pmi1_ctx_t;

static int pmi1_detect(void) {
  const char *fd = getenv("PMI_FD");
  const char *port = getenv("PMI_PORT");
  return (fd != NULL && *fd != '\0') || (port != NULL && *port != '\0');
}

static hc_status_t pmi1_send(pmi1_ctx_t *c, const char *line, int len) {
  if (len < 0)
    return HC_ERR_ARG;
  if (hc_pmi1_write_all(c->fd, line, (size_t)len) != 0) {
    hc_log(HC_LOG_ERROR, "pmi1", "write to launcher failed: %s",
           strerror(errno));
    return HC_ERR_BOOTSTRAP;
  }
  return HC_OK;
}

/* Reads one reply into c->msg and checks it is the expected command. */
static hc_status_t pmi1_expect(pmi1_ctx_t *c, const char *cmd) {
  char line[HC_PMI1_LINE_MAX];
  ssize_t n = hc_pmi1_read_line(&c->reader, line, sizeof line);
  if (n < 0) {
    hc_log(HC_LOG_ERROR, "pmi1", "waiting for %s: %s", cmd, strerror(errno));
    return HC_ERR_BOOTSTRAP;
  }
  if (hc_pmi1_parse(line, (size_t)n, &c->msg) != 0 ||
      strcmp(hc_pmi1_cmd(&c->msg), cmd) != 0) {
    hc_log(HC_LOG_ERROR, "pmi1", "expected %s, got '%s'", cmd, line);
    return HC_ERR_BOOTSTRAP;
  }
  return HC_OK;
}

/* One request and its reply; rc != 0 in the reply is an error. */
static hc_status_t pmi1_call(pmi1_ctx_t *c, const char *line, int len,
                             const char *reply) {
  hc_status_t st = pmi1_send(c, line, len);
  if (st == HC_OK)
    st = pmi1_expect(c, reply);
  if (st == HC_OK && hc_pmi1_rc(&c->msg) != 0) {
    const char *why = hc_pmi1_get(&c->msg, "msg");
    hc_log(HC_LOG_DEBUG, "pmi1", "%s failed: rc=%d %s", reply,
           hc_pmi1_rc(&c->msg), why ? why : "");
    st = HC_ERR_BOOTSTRAP;
  }
  return st;
}

static int pmi1_connect_port(const char *hostport) {
  char host[256];
  const char *colon = strrchr(hostport, ':');
  if (colon == NULL || (size_t)(colon - hostport) >= sizeof host)
    return -1;
  memcpy(host, hostport, (size_t)(colon - hostport));
  host[colon - hostport] = '\0';
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
  struct addrinfo *res = NULL;
  if (getaddrinfo(host, colon + 1, &hints, &res) != 0)
    return -1;
  int fd = -1;
  for (struct addrinfo *a = res; a != NULL && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  return fd;
}

/* PMI_PORT mode: the server learns who we are from PMI_ID, then tells us
 * size, rank and debug in "cmd=set" lines. */
static hc_status_t pmi1_initack(pmi1_ctx_t *c) {
  char line[HC_PMI1_LINE_MAX];
  const char *id = hc_env_string("PMI_ID", "0");
  hc_status_t st = pmi1_call(
      c, line, hc_pmi1_format(line, sizeof line, "initack", "pmiid", id, NULL),
      "initack");
  const char *keys[] = {"size", "rank", "debug"};
  for (int i = 0; i < 3 && st == HC_OK; i++) {
    st = pmi1_expect(c, "set");
    long v = hc_pmi1_get_long(&c->msg, keys[i], -1);
    if (i == 0 && v > 0)
      c->size = (int)v;
    if (i == 1 && v >= 0)
      c->rank = (int)v;
  }
  return st;
}

static hc_status_t pmi1_open(pmi1_ctx_t *c) {
  const char *fdtext = getenv("PMI_FD");
  if (fdtext != NULL && *fdtext != '\0') {
    char *end = NULL;
    long fd = strtol(fdtext, &end, 10);
    if (*end != '\0' || fd < 0)
      return HC_ERR_BOOTSTRAP;
    c->fd = (int)fd;
    /* Programs the rank starts must not inherit the launcher's channel. */
    fcntl(c->fd, F_SETFD, FD_CLOEXEC);
    hc_pmi1_reader_init(&c->reader, c->fd);
    return HC_OK;
  }
  const char *port = getenv("PMI_PORT");
  c->fd = port ? pmi1_connect_port(port) : -1;
  if (c->fd < 0) {
    hc_log(HC_LOG_ERROR, "pmi1", "cannot connect to PMI_PORT=%s",
           port ? port : "");
    return HC_ERR_BOOTSTRAP;
  }
  hc_pmi1_reader_init(&c->reader, c->fd);
  return pmi1_initack(c);
}

static hc_status_t pmi1_handshake(pmi1_ctx_t *c, hc_bootstrap_info_t *info) {
  char line[HC_PMI1_LINE_MAX];
  hc_status_t st =
      pmi1_call(c, line,
                hc_pmi1_format(line, sizeof line, "init", "pmi_version", "1",
                               "pmi_subversion", "1", NULL),
                "response_to_init");
  if (st == HC_OK)
    st = pmi1_call(
        c, line, hc_pmi1_format(line, sizeof line, "get_maxes", NULL), "maxes");
  if (st != HC_OK)
    return st;
  c->keylen_max = (int)hc_pmi1_get_long(&c->msg, "keylen_max", 64);
  c->vallen_max = (int)hc_pmi1_get_long(&c->msg, "vallen_max", 1024);
  st = pmi1_call(c, line, hc_pmi1_format(line, sizeof line, "get_appnum", NULL),
                 "appnum");
  info->appnum = (int)hc_pmi1_get_long(&c->msg, "appnum", -1);
  if (st == HC_OK)
    st = pmi1_call(c, line,
                   hc_pmi1_format(line, sizeof line, "get_universe_size", NULL),
                   "universe_size");
  info->universe_size = (int)hc_pmi1_get_long(&c->msg, "size", -1);
  if (st == HC_OK)
    st = pmi1_call(c, line,
                   hc_pmi1_format(line, sizeof line, "get_my_kvsname", NULL),
                   "my_kvsname");
  const char *kvs = st == HC_OK ? hc_pmi1_get(&c->msg, "kvsname") : NULL;
  if (kvs == NULL || strlen(kvs) >= sizeof c->kvsname)
    return HC_ERR_BOOTSTRAP;
  strcpy(c->kvsname, kvs);
  return HC_OK;
}

static hc_status_t pmi1_rank_size(pmi1_ctx_t *c) {
  long rank = hc_env_long("PMI_RANK", c->rank);
  long size = hc_env_long("PMI_SIZE", c->size);
  if (size < 1 || rank < 0 || rank >= size) {
    hc_log(HC_LOG_ERROR, "pmi1", "bad rank %ld / size %ld from launcher", rank,
           size);
    return HC_ERR_BOOTSTRAP;
  }
  c->rank = (int)rank;
  c->size = (int)size;
  return HC_OK;
}

static void pmi1_fini(void *ctx);

/* The launcher going away closes its end of the connection.  A rank does
 * not outlive it: nothing would end the job any more (a launcher killed
 * with SIGKILL, its ranks behind a wrapper shell that its parent-death
 * signal does not reach).  The watcher only waits for the hang-up; it never
 * reads, so it does not disturb the requests the rank makes meanwhile. */
static void *pmi1_watch(void *arg) {
  pmi1_ctx_t *c = arg;
  struct pollfd p[2] = {{.fd = c->fd, .events = 0},
                        {.fd = c->watch_stop[0], .events = POLLIN}};
  for (;;) {
    int n = poll(p, 2, -1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 || p[1].revents != 0)
      return NULL;
    if (p[0].revents & (POLLHUP | POLLERR))
      break;
  }
  hc_bootstrap_launcher_gone(c->rank, "its PMI connection closed");
  return NULL;
}

/* With every signal blocked, so that the program's signals go to its own
 * threads. */
static void pmi1_watch_start(pmi1_ctx_t *c) {
  sigset_t all, old;
  if (pipe2(c->watch_stop, O_CLOEXEC) != 0) {
    c->watch_stop[0] = c->watch_stop[1] = -1;
    hc_log(HC_LOG_WARN, "pmi1", "no launcher watcher: %s", strerror(errno));
    return;
  }
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  c->watching = pthread_create(&c->watcher, NULL, pmi1_watch, c) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (!c->watching)
    hc_log(HC_LOG_WARN, "pmi1", "no launcher watcher thread");
}

static void pmi1_watch_stop(pmi1_ctx_t *c) {
  if (c->watching) {
    char byte = 0;
    while (write(c->watch_stop[1], &byte, 1) < 0 && errno == EINTR)
      ;
    pthread_join(c->watcher, NULL);
    c->watching = 0;
  }
  for (int i = 0; i < 2; i++)
    if (c->watch_stop[i] >= 0)
      close(c->watch_stop[i]);
  c->watch_stop[0] = c->watch_stop[1] = -1;
}

static int pmi1_bad_text(const char *s) { return strpbrk(s, " \n\r") != NULL; }

/* A process Hydra started for MPI_Comm_spawn (PMI_SPAWNED=1) finds the
 * parents' port where the spawning root preput it: in its own job's key
 * space, readable before any fence. */
static void pmi1_parent_port(pmi1_ctx_t *c, hc_bootstrap_info_t *info) {
  if (hc_env_long("PMI_SPAWNED", 0) != 1)
    return;
  char line[HC_PMI1_LINE_MAX];
  int n = hc_pmi1_format(line, sizeof line, "get", "kvsname", c->kvsname, "key",
                         HC_BOOTSTRAP_PARENT_PORT_KEY, NULL);
  const char *v = NULL;
  if (pmi1_call(c, line, n, "get_result") == HC_OK)
    v = hc_pmi1_get(&c->msg, "value");
  if (v != NULL && strlen(v) < sizeof info->parent_port)
    snprintf(info->parent_port, sizeof info->parent_port, "%s", v);
  else
    hc_log(HC_LOG_WARN, "pmi1",
           "spawned (PMI_SPAWNED=1) but the launcher has no %s: "
           "MPI_Comm_get_parent will be MPI_COMM_NULL",
           HC_BOOTSTRAP_PARENT_PORT_KEY);
}

static hc_status_t pmi1_init(void **ctxp, hc_bootstrap_info_t *info) {
  *ctxp = NULL;
  pmi1_ctx_t *c = calloc(1, sizeof *c);
  if (c == NULL)
    return HC_ERR_NOMEM;
  c->fd = -1;
  c->rank = -1;
  c->size = 0;
  c->watch_stop[0] = c->watch_stop[1] = -1;
  hc_kvstore_init(&c->cache);
  hc_bootstrap_info_t got;
  hc_bootstrap_info_clear(&got);
  hc_status_t st = pmi1_open(c);
  if (st == HC_OK) {
    hc_bootstrap_note_socket(c->fd, &got);
    st = pmi1_handshake(c, &got);
  }
  if (st == HC_OK)
    st = pmi1_rank_size(c);
  if (st != HC_OK) {
    pmi1_fini(c);
    return HC_ERR_BOOTSTRAP;
  }
  c->ready = 1;
  c->by_hcmpirun =
      strcmp(hc_env_string("HCMPI_LAUNCHER", ""), "hcmpirun") == 0;
  if (!c->by_hcmpirun) {
    pmi1_parent_port(c, &got);
    got.failure_signal = SIGUSR1; /* Hydra's notice to the survivors */
  }
  pmi1_watch_start(c);
  got.rank = c->rank;
  got.size = c->size;
  *info = got;
  *ctxp = c;
  return HC_OK;
}


static hc_status_t pmi1_put(void *ctx, const char *key, const char *value) {
  pmi1_ctx_t *c = ctx;
  if (c == NULL || key == NULL || value == NULL)
    return HC_ERR_ARG;
  if ((int)strlen(key) >= c->keylen_max ||
      (int)strlen(value) >= c->vallen_max || pmi1_bad_text(value) ||
      pmi1_bad_text(key) || strchr(key, '=') != NULL || *key == '\0')
    return HC_ERR_ARG;
  char line[HC_PMI1_LINE_MAX];
  int len = hc_pmi1_format(line, sizeof line, "put", "kvsname", c->kvsname,
                           "key", key, "value", value, NULL);
  hc_status_t st = pmi1_call(c, line, len, "put_result");
  if (st != HC_OK && hc_pmi1_rc(&c->msg) != 0) { /* a refusal, not EOF */
    const char *why = hc_pmi1_get(&c->msg, "msg");
    hc_log(HC_LOG_ERROR, "pmi1", "put of %s refused by the launcher: %s", key,
           why ? why : "no reason given");
  }
  if (st == HC_OK && hc_kvstore_set(&c->cache, key, value, PMI1_KV_OWN) != 0)
    return HC_ERR_NOMEM;
  return st;
}

static hc_status_t pmi1_fence(void *ctx) {
  pmi1_ctx_t *c = ctx;
  if (c == NULL)
    return HC_ERR_ARG;
  char line[64];
  hc_status_t st =
      pmi1_call(c, line, hc_pmi1_format(line, sizeof line, "barrier_in", NULL),
                "barrier_out");
  hc_kvstore_prune(&c->cache, PMI1_KV_OWN);
  return st;
}

static hc_status_t pmi1_copy_out(const char *v, char *value, size_t len) {
  size_t n = strlen(v);
  if (n >= len)
    return HC_ERR_TRUNCATE;
  memcpy(value, v, n + 1);
  return HC_OK;
}

/* The launcher's value of key (in c->msg, valid until the next call);
 * NULL when it has none. */
static const char *pmi1_fetch(pmi1_ctx_t *c, const char *key) {
  char line[HC_PMI1_LINE_MAX];
  int n = hc_pmi1_format(line, sizeof line, "get", "kvsname", c->kvsname, "key",
                         key, NULL);
  if (pmi1_call(c, line, n, "get_result") != HC_OK)
    return NULL;
  return hc_pmi1_get(&c->msg, "value");
}

static hc_status_t pmi1_get(void *ctx, const char *key, char *value,
                            size_t len) {
  pmi1_ctx_t *c = ctx;
  if (c == NULL || key == NULL || value == NULL || len == 0 ||
      pmi1_bad_text(key) || *key == '\0' || strchr(key, '=') != NULL)
    return HC_ERR_ARG;
  const char *cached = hc_kvstore_get(&c->cache, key);
  if (cached != NULL)
    return pmi1_copy_out(cached, value, len);
  const char *v = pmi1_fetch(c, key);
  if (v == NULL)
    return HC_ERR_BOOTSTRAP;
  if (hc_kvstore_set(&c->cache, key, v, PMI1_KV_FETCHED) != 0)
    return HC_ERR_NOMEM;
  return pmi1_copy_out(v, value, len);
}

/* Hydra keeps the ranks that died under a key of its own, which changes:
 * never cached. */
static int pmi1_dead_ranks(void *ctx, int *ranks, int max) {
  pmi1_ctx_t *c = ctx;
  const char *v = c != NULL ? pmi1_fetch(c, "PMI_dead_processes") : NULL;
  return v != NULL ? hc_bootstrap_parse_ranks(v, ranks, max) : -1;
}

/* The PMI-1 wire carries no message, so it goes to stderr here; then we
 * give the launcher a moment to kill the job, so that the job's exit code
 * is the one asked for rather than whatever our exit races in. */
static void pmi1_abort(void *ctx, int code, const char *message) {
  pmi1_ctx_t *c = ctx;
  if (message != NULL && *message != '\0')
    fprintf(stderr, "hcmpi: rank %d: %s\n", c ? c->rank : 0, message);
  if (c == NULL || c->fd < 0)
    return;
  char num[24], line[64];
  snprintf(num, sizeof num, "%d", code);
  int len = hc_pmi1_format(line, sizeof line, "abort", "exitcode", num, NULL);
  if (pmi1_send(c, line, len) != HC_OK)
    return;
  struct pollfd p = {.fd = c->fd, .events = POLLIN};
  while (poll(&p, 1, 5000) > 0 && hc_pmi1_reader_fill(&c->reader) > 0)
    ;
}

static void pmi1_fini(void *ctx) {
  pmi1_ctx_t *c = ctx;
  if (c == NULL)
    return;
  pmi1_watch_stop(c);
  if (c->fd >= 0 && c->ready) {
    char line[64];
    if (pmi1_call(c, line, hc_pmi1_format(line, sizeof line, "finalize", NULL),
                  "finalize_ack") != HC_OK)
      hc_log(HC_LOG_WARN, "pmi1", "no finalize_ack from launcher");
  }
  if (c->fd >= 0)
    close(c->fd);
  hc_kvstore_fini(&c->cache);
  free(c);
}

/* Appends "key=value\n" (just "key\n" for a NULL value) to buf at *at;
 * -1 when it does not fit or value holds a newline (it would end the line
 * early). */
static int pmi1_add_line(char *buf, size_t len, size_t *at, const char *key,
                         const char *value) {
  if (value != NULL && strchr(value, '\n') != NULL)
    return -1;
  int w = value != NULL ? snprintf(buf + *at, len - *at, "%s=%s\n", key, value)
                        : snprintf(buf + *at, len - *at, "%s\n", key);
  if (w < 0 || (size_t)w >= len - *at)
    return -1;
  *at += (size_t)w;
  return 0;
}

/* PMI-1's spawn as Hydra serves it: per command one multi-line request
 * ("mcmd=spawn" ... "endcmd"), numbered spawnssofar of totspawns, the
 * arguments from arg1, the port preput into the children's key space, a
 * working directory as the info key "wdir"; one "spawn_result" answers
 * them all. */
static hc_status_t pmi1_spawn_multiline(pmi1_ctx_t *c,
                                        const hc_bootstrap_spawn_t *cmds,
                                        int ncmds, const char *port) {
  char req[4 * HC_PMI1_LINE_MAX], num[24], key[24];
  /* Hydra starts what it can and fails the whole job on a program it
   * cannot execute: refuse here first, as hcmpirun does (checked on this
   * host, which is where a one-host Hydra starts them). */
  for (int k = 0; k < ncmds; k++)
    if (!hc_can_exec(cmds[k].argv[0])) {
      hc_log(HC_LOG_WARN, "pmi1", "spawn: cannot execute %s", cmds[k].argv[0]);
      return HC_ERR_SPAWN;
    }
  for (int k = 0; k < ncmds; k++) {
    size_t at = 0;
    int argc = 0, bad = 0;
    while (cmds[k].argv[argc] != NULL)
      argc++;
    bad |= pmi1_add_line(req, sizeof req, &at, "mcmd", "spawn");
    snprintf(num, sizeof num, "%d", cmds[k].nprocs);
    bad |= pmi1_add_line(req, sizeof req, &at, "nprocs", num);
    bad |= pmi1_add_line(req, sizeof req, &at, "execname", cmds[k].argv[0]);
    snprintf(num, sizeof num, "%d", ncmds);
    bad |= pmi1_add_line(req, sizeof req, &at, "totspawns", num);
    snprintf(num, sizeof num, "%d", k + 1);
    bad |= pmi1_add_line(req, sizeof req, &at, "spawnssofar", num);
    for (int a = 1; a < argc; a++) {
      snprintf(key, sizeof key, "arg%d", a);
      bad |= pmi1_add_line(req, sizeof req, &at, key, cmds[k].argv[a]);
    }
    snprintf(num, sizeof num, "%d", argc - 1);
    bad |= pmi1_add_line(req, sizeof req, &at, "argcnt", num);
    bad |= pmi1_add_line(req, sizeof req, &at, "preput_num", "1");
    bad |= pmi1_add_line(req, sizeof req, &at, "preput_key_0",
                         HC_BOOTSTRAP_PARENT_PORT_KEY);
    bad |= pmi1_add_line(req, sizeof req, &at, "preput_val_0", port);
    /* Hydra's own info key for the working directory. */
    if (cmds[k].wdir != NULL) {
      bad |= pmi1_add_line(req, sizeof req, &at, "info_num", "1");
      bad |= pmi1_add_line(req, sizeof req, &at, "info_key_0", "wdir");
      bad |= pmi1_add_line(req, sizeof req, &at, "info_val_0", cmds[k].wdir);
    } else {
      bad |= pmi1_add_line(req, sizeof req, &at, "info_num", "0");
    }
    bad |= pmi1_add_line(req, sizeof req, &at, "endcmd", NULL);
    if (bad) {
      hc_log(HC_LOG_ERROR, "pmi1",
             "spawn: command %d does not fit a PMI request (or an argument "
             "holds a newline)",
             k);
      return HC_ERR_ARG;
    }
    hc_status_t st = pmi1_send(c, req, (int)at);
    if (st != HC_OK)
      return st;
  }
  hc_status_t st = pmi1_expect(c, "spawn_result");
  if (st == HC_OK && hc_pmi1_rc(&c->msg) != 0) {
    hc_log(HC_LOG_WARN, "pmi1", "the launcher refused the spawn (rc %d)",
           hc_pmi1_rc(&c->msg));
    st = HC_ERR_SPAWN;
  }
  return st;
}

/* Bytes of strs (each string and its NUL; NULL-terminated). */
static size_t pmi1_strings_bytes(const char *const *strs) {
  size_t n = 0;
  for (int a = 0; strs[a] != NULL; a++)
    n += strlen(strs[a]) + 1;
  return n;
}

/* Sends strs (each string and its NUL) in hex as hcmpirun's
 * "cmd=hc_spawn_data key=KEY hex=HEX" lines, HC_PMI1_SPAWN_CHUNK digits at
 * most each; hcmpirun puts them together in order. */
static hc_status_t pmi1_spawn_data(pmi1_ctx_t *c, const char *key,
                                   const char *const *strs) {
  static const char digits[] = "0123456789abcdef";
  char line[HC_PMI1_LINE_MAX];
  int head = snprintf(line, sizeof line, "cmd=hc_spawn_data key=%s hex=", key);
  if (head < 0 || (size_t)head + HC_PMI1_SPAWN_CHUNK + 2 > sizeof line)
    return HC_ERR_ARG;
  size_t at = (size_t)head;
  hc_status_t st = HC_OK;
  for (int a = 0; strs[a] != NULL && st == HC_OK; a++)
    for (size_t i = 0; st == HC_OK && (i == 0 || strs[a][i - 1] != '\0');
         i++) {
      unsigned char byte = (unsigned char)strs[a][i];
      line[at++] = digits[byte >> 4];
      line[at++] = digits[byte & 15];
      if (at - (size_t)head >= HC_PMI1_SPAWN_CHUNK) {
        line[at++] = '\n';
        st = pmi1_send(c, line, (int)at);
        at = (size_t)head;
      }
    }
  if (st == HC_OK && at > (size_t)head) {
    line[at++] = '\n';
    st = pmi1_send(c, line, (int)at);
  }
  return st;
}

/* hcmpirun's own request (tools/hcmpirun_spawn.c): the commands' argv
 * ("argv<k>") and working directories ("wdir<k>", when given) as
 * hc_spawn_data, then "cmd=hc_spawn ncmds=K port=P nprocs<k>=N"; hcmpirun
 * checks every program before it starts any.  Other PMI-1 launchers get
 * PMI-1's multi-line spawn (Hydra). */
static hc_status_t pmi1_spawn(void *ctx, const hc_bootstrap_spawn_t *cmds,
                              int ncmds, const char *port) {
  pmi1_ctx_t *c = ctx;
  char line[HC_PMI1_LINE_MAX], key[24];
  if (c == NULL)
    return HC_ERR_NOT_SUPPORTED;
  if (!c->by_hcmpirun)
    return pmi1_spawn_multiline(c, cmds, ncmds, port);
  size_t bytes = 0;
  for (int k = 0; k < ncmds; k++)
    bytes += pmi1_strings_bytes(cmds[k].argv) +
             (cmds[k].wdir != NULL ? strlen(cmds[k].wdir) + 1 : 0);
  if (bytes > HC_PMI1_SPAWN_BYTES_MAX) {
    hc_log(HC_LOG_ERROR, "pmi1",
           "spawn: the commands' arguments and directories take %zu bytes; "
           "hcmpirun takes at most %d per request",
           bytes, HC_PMI1_SPAWN_BYTES_MAX);
    return HC_ERR_ARG;
  }
  /* The request line first, so that nothing is sent when it cannot be. */
  int w =
      snprintf(line, sizeof line, "cmd=hc_spawn ncmds=%d port=%s", ncmds, port);
  size_t at = w > 0 ? (size_t)w : sizeof line;
  for (int k = 0; k < ncmds && at < sizeof line; k++) {
    w = snprintf(line + at, sizeof line - at, " nprocs%d=%d", k,
                 cmds[k].nprocs);
    at += w > 0 ? (size_t)w : sizeof line;
  }
  if (at + 2 > sizeof line) {
    hc_log(HC_LOG_ERROR, "pmi1", "spawn: the request does not fit a PMI line");
    return HC_ERR_ARG;
  }
  hc_status_t st = HC_OK;
  for (int k = 0; k < ncmds && st == HC_OK; k++) {
    const char *wd[] = {cmds[k].wdir, NULL};
    snprintf(key, sizeof key, "argv%d", k);
    st = pmi1_spawn_data(c, key, cmds[k].argv);
    snprintf(key, sizeof key, "wdir%d", k);
    if (st == HC_OK && wd[0] != NULL)
      st = pmi1_spawn_data(c, key, wd);
  }
  if (st != HC_OK)
    return st;
  line[at++] = '\n';
  st = pmi1_send(c, line, (int)at);
  if (st == HC_OK)
    st = pmi1_expect(c, "hc_spawn_result");
  if (st == HC_OK && hc_pmi1_rc(&c->msg) != 0) {
    const char *why = hc_pmi1_get(&c->msg, "msg");
    hc_log(HC_LOG_WARN, "pmi1", "hcmpirun refused the spawn: %s",
           why != NULL ? why : "?");
    st = HC_ERR_SPAWN;
  }
  return st;
}

const hc_bootstrap_ops_t hc_bootstrap_pmi1_ops = {
    .name = "pmi1",
    .detect = pmi1_detect,
    .init = pmi1_init,
    .put = pmi1_put,
    .fence = pmi1_fence,
    .get = pmi1_get,
    .abort = pmi1_abort,
    .fini = pmi1_fini,
    .spawn = pmi1_spawn,
    .dead_ranks = pmi1_dead_ranks,
};
