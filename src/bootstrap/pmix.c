/*
 * PMIx client backend, as served by `srun --mpi=pmix` and Open MPI's
 * mpirun.  libpmix.so.2 is dlopen()ed when the job needs it (HCMPI_PMIX_LIB
 * names another file), so hcmpi neither links against PMIx nor needs its
 * headers; the declarations we use are in pmix_abi.h.
 *
 * Keys: PMIx stores values per process, while this bootstrap API has
 * job-wide keys such as "hc-shm-5".  A value is published under the
 * publishing rank; a get of a key that ends in "-<r>" (r a rank of the job)
 * looks among rank r's values first, and every get falls back to rank 0's.
 * So a key must end in its publisher's rank, or be published by rank 0 —
 * which is how the engine names its keys.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/kvstore.h"
#include "bootstrap/pmix_abi.h"
#include "util/env.h"
#include "util/findexec.h"
#include "util/log.h"

#define PMIX_KV_OWN 1
#define PMIX_KV_FETCHED 2

/* The entry points we call, resolved once per process. */
typedef struct pmix_lib {
  int loaded; /* 1 loaded, -1 failed */
  hc_pmix_status_t (*init)(hc_pmix_proc_t *, hc_pmix_info_t *, size_t);
  hc_pmix_status_t (*finalize)(const hc_pmix_info_t *, size_t);
  hc_pmix_status_t (*get)(const hc_pmix_proc_t *, const char *,
                          const hc_pmix_info_t *, size_t, hc_pmix_value_t **);
  hc_pmix_status_t (*put)(hc_pmix_scope_t, const char *, hc_pmix_value_t *);
  hc_pmix_status_t (*commit)(void);
  hc_pmix_status_t (*fence)(const hc_pmix_proc_t *, size_t,
                            const hc_pmix_info_t *, size_t);
  hc_pmix_status_t (*abort)(int, const char *, hc_pmix_proc_t *, size_t);
  const char *(*error_string)(hc_pmix_status_t);
  void (*value_destruct)(hc_pmix_value_t *); /* absent before PMIx 4 */
  /* Blocks until the launcher started the processes; NULL where libpmix
   * lacks it. */
  hc_pmix_status_t (*spawn)(const hc_pmix_info_t *, size_t,
                            const hc_pmix_app_t *, size_t, char *);
  /* NULL where libpmix lacks it: then nothing watches the server. */
  hc_pmix_status_t (*register_event_handler)(hc_pmix_status_t *, size_t,
                                             hc_pmix_info_t *, size_t,
                                             hc_pmix_event_handler_t,
                                             hc_pmix_registered_t, void *);
} pmix_lib_t;

static pmix_lib_t pmix_lib;

typedef struct pmix_ctx {
  hc_pmix_proc_t me;
  int size;
  int need_commit; /* puts since the last fence */
  void *solo;      /* singleton context when no PMIx server answered */
  hc_kvstore_t cache;
} pmix_ctx_t;

static int pmix_detect(void) {
  static const char *const vars[] = {"PMIX_NAMESPACE",   "PMIX_RANK",
                                     "PMIX_SERVER_URI4", "PMIX_SERVER_URI41",
                                     "PMIX_SERVER_URI3", "PMIX_SERVER_URI21",
                                     "PMIX_SERVER_URI2"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    if (v != NULL && *v != '\0')
      return 1;
  }
  return 0;
}

/* dlsym hands back an object pointer; memcpy turns it into a function
 * pointer of the same size without a cast ISO C leaves undefined. */
static int pmix_sym(void *lib, const char *name, void *fnptr, int required) {
  void *sym = dlsym(lib, name);
  if (sym == NULL && required) {
    hc_log(HC_LOG_ERROR, "pmix", "%s not found in libpmix", name);
    return -1;
  }
  memcpy(fnptr, &sym, sizeof sym);
  return 0;
}

static int pmix_load(void) {
  if (pmix_lib.loaded != 0)
    return pmix_lib.loaded;
  const char *path = hc_env_string("HCMPI_PMIX_LIB", "libpmix.so.2");
  /* Global: libpmix's own plugins resolve its symbols.  Never closed:
   * PMIx keeps a progress thread whose code must stay mapped. */
  void *lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  pmix_lib.loaded = -1;
  if (lib == NULL) {
    hc_log(HC_LOG_ERROR, "pmix", "cannot load %s: %s", path, dlerror());
    return -1;
  }
  if (pmix_sym(lib, "PMIx_Init", &pmix_lib.init, 1) != 0 ||
      pmix_sym(lib, "PMIx_Finalize", &pmix_lib.finalize, 1) != 0 ||
      pmix_sym(lib, "PMIx_Get", &pmix_lib.get, 1) != 0 ||
      pmix_sym(lib, "PMIx_Put", &pmix_lib.put, 1) != 0 ||
      pmix_sym(lib, "PMIx_Commit", &pmix_lib.commit, 1) != 0 ||
      pmix_sym(lib, "PMIx_Fence", &pmix_lib.fence, 1) != 0 ||
      pmix_sym(lib, "PMIx_Abort", &pmix_lib.abort, 1) != 0 ||
      pmix_sym(lib, "PMIx_Error_string", &pmix_lib.error_string, 1) != 0 ||
      pmix_sym(lib, "PMIx_Value_destruct", &pmix_lib.value_destruct, 0) != 0 ||
      pmix_sym(lib, "PMIx_Spawn", &pmix_lib.spawn, 0) != 0 ||
      pmix_sym(lib, "PMIx_Register_event_handler",
               &pmix_lib.register_event_handler, 0) != 0)
    return -1;
  pmix_lib.loaded = 1;
  return 1;
}

static const char *pmix_strerror(hc_pmix_status_t rc) {
  const char *s = pmix_lib.error_string ? pmix_lib.error_string(rc) : NULL;
  return s ? s : "unknown PMIx error";
}

/* Frees a value PMIx_Get allocated (PMIX_VALUE_RELEASE). */
static void pmix_value_release(hc_pmix_value_t *v) {
  if (v == NULL)
    return;
  if (pmix_lib.value_destruct != NULL)
    pmix_lib.value_destruct(v);
  else if (v->type == HC_PMIX_STRING)
    free(v->data.string);
  free(v);
}

/* Any integer-typed value as a long; fallback for other types. */
static long pmix_value_long(const hc_pmix_value_t *v, long fallback) {
  switch (v->type) {
  case HC_PMIX_SIZE:
    return (long)v->data.size;
  case HC_PMIX_INT:
    return v->data.integer;
  case HC_PMIX_INT8:
    return v->data.int8;
  case HC_PMIX_INT16:
    return v->data.int16;
  case HC_PMIX_INT32:
    return v->data.int32;
  case HC_PMIX_INT64:
    return (long)v->data.int64;
  case HC_PMIX_UINT:
    return (long)v->data.uint;
  case HC_PMIX_UINT8:
    return v->data.uint8;
  case HC_PMIX_UINT16:
    return v->data.uint16;
  case HC_PMIX_UINT32:
  case HC_PMIX_PROC_RANK:
    return (long)v->data.uint32;
  case HC_PMIX_UINT64:
    return (long)v->data.uint64;
  default:
    return fallback;
  }
}

static void pmix_info_bool(hc_pmix_info_t *info, const char *key) {
  memset(info, 0, sizeof *info);
  snprintf(info->key, sizeof info->key, "%s", key);
  info->value.type = HC_PMIX_BOOL;
  info->value.data.flag = true;
}

/* A job attribute (rank = wildcard) or one of a process's. */
static long pmix_get_long(pmix_ctx_t *c, hc_pmix_rank_t rank, const char *key,
                          long fallback) {
  hc_pmix_proc_t who = c->me;
  who.rank = rank;
  hc_pmix_value_t *v = NULL;
  hc_pmix_status_t rc = pmix_lib.get(&who, key, NULL, 0, &v);
  long out = rc == HC_PMIX_SUCCESS && v != NULL ? pmix_value_long(v, fallback)
                                                : fallback;
  if (rc != HC_PMIX_SUCCESS)
    hc_log(HC_LOG_DEBUG, "pmix", "get %s: %s", key, pmix_strerror(rc));
  pmix_value_release(v);
  return out;
}

/* The server's view of this rank's node, which the engine checks its own
 * host-id grouping against. */
static void pmix_placement(pmix_ctx_t *c, hc_bootstrap_info_t *info) {
  long lrank = pmix_get_long(c, c->me.rank, HC_PMIX_KEY_LOCAL_RANK, -1);
  long lsize =
      pmix_get_long(c, HC_PMIX_RANK_WILDCARD, HC_PMIX_KEY_LOCAL_SIZE, -1);
  if (lsize > 0 && lrank >= 0 && lrank < lsize) {
    info->local_rank = (int)lrank;
    info->local_size = (int)lsize;
  }
  hc_pmix_value_t *v = NULL;
  if (pmix_lib.get(&c->me, HC_PMIX_KEY_HOSTNAME, NULL, 0, &v) ==
          HC_PMIX_SUCCESS &&
      v != NULL && v->type == HC_PMIX_STRING && v->data.string != NULL)
    snprintf(info->node, sizeof info->node, "%s", v->data.string);
  pmix_value_release(v);
  hc_log(HC_LOG_DEBUG, "pmix", "%s rank %u: local rank %d of %d on %s",
         c->me.nspace, c->me.rank, info->local_rank, info->local_size,
         info->node[0] != '\0' ? info->node : "?");
}

static hc_status_t pmix_job_info(pmix_ctx_t *c, hc_bootstrap_info_t *info) {
  long size = pmix_get_long(c, HC_PMIX_RANK_WILDCARD, HC_PMIX_KEY_JOB_SIZE, -1);
  if (size < 1 || (long)c->me.rank >= size) {
    hc_log(HC_LOG_ERROR, "pmix", "bad rank %u / job size %ld", c->me.rank,
           size);
    return HC_ERR_BOOTSTRAP;
  }
  c->size = (int)size;
  info->rank = (int)c->me.rank;
  info->size = (int)size;
  info->universe_size =
      (int)pmix_get_long(c, HC_PMIX_RANK_WILDCARD, HC_PMIX_KEY_UNIV_SIZE, -1);
  info->appnum = (int)pmix_get_long(c, c->me.rank, HC_PMIX_KEY_APPNUM, -1);
  pmix_placement(c, info);
  return HC_OK;
}

/* No server to talk to (a program run by hand with HCMPI_BOOTSTRAP=pmix):
 * rank 0 of 1, as PMIx itself would leave it to us. */
static hc_status_t pmix_go_solo(pmix_ctx_t *c, hc_bootstrap_info_t *info) {
  hc_log(HC_LOG_INFO, "pmix", "no PMIx server reachable; running alone");
  return hc_bootstrap_singleton_ops.init(&c->solo, info);
}

/* Set by fini before PMIx_Finalize closes the connection on purpose. */
static _Atomic int pmix_finalizing;
static int pmix_my_rank = -1;

/* libpmix tells its client when the connection to its server (mpirun's
 * daemon, slurmstepd) closes.  A launcher killed with SIGKILL closes it
 * without ending its ranks (Open MPI's mpirun leaves them to the ranks
 * themselves), and an MPI rank waiting for a peer would wait for ever:
 * the rank ends, as a PMI-1 rank does when its connection closes. */
static void pmix_server_lost(size_t id, hc_pmix_status_t status,
                             const hc_pmix_proc_t *source,
                             hc_pmix_info_t *info, size_t ninfo,
                             hc_pmix_info_t *results, size_t nresults,
                             hc_pmix_event_done_t done, void *done_arg) {
  (void)id, (void)source, (void)info, (void)ninfo, (void)results;
  (void)nresults;
  if (!atomic_load(&pmix_finalizing))
    hc_bootstrap_launcher_gone(pmix_my_rank, "its PMIx server connection "
                                             "closed");
  (void)status;
  if (done != NULL) /* passes the event on to libpmix's other handlers */
    done(HC_PMIX_SUCCESS, NULL, 0, NULL, NULL, done_arg);
}

static void pmix_watch_registered(hc_pmix_status_t status, size_t id,
                                  void *arg) {
  (void)id, (void)arg;
  if (status != HC_PMIX_SUCCESS)
    hc_log(HC_LOG_WARN, "pmix", "no watch on the PMIx server: %s",
           pmix_strerror(status));
}

static void pmix_watch_server(const pmix_ctx_t *c) {
  hc_pmix_status_t codes[] = {HC_PMIX_ERR_LOST_CONNECTION,
                              HC_PMIX_ERR_LOST_CONNECTION_TO_SERVER};
  if (pmix_lib.register_event_handler == NULL)
    return;
  pmix_my_rank = (int)c->me.rank;
  atomic_store(&pmix_finalizing, 0); /* a session after an earlier one */
  hc_pmix_status_t rc = pmix_lib.register_event_handler(
      codes, sizeof codes / sizeof codes[0], NULL, 0, pmix_server_lost,
      pmix_watch_registered, NULL);
  if (rc != HC_PMIX_SUCCESS)
    hc_log(HC_LOG_WARN, "pmix", "no watch on the PMIx server: %s",
           pmix_strerror(rc));
}

static hc_status_t pmix_init(void **ctxp, hc_bootstrap_info_t *info) {
  *ctxp = NULL;
  if (pmix_load() != 1)
    return HC_ERR_BOOTSTRAP;
  pmix_ctx_t *c = calloc(1, sizeof *c);
  if (c == NULL)
    return HC_ERR_NOMEM;
  hc_kvstore_init(&c->cache);
  hc_bootstrap_info_t got;
  hc_bootstrap_info_clear(&got);
  hc_pmix_status_t prc = pmix_lib.init(&c->me, NULL, 0);
  hc_status_t st;
  if (prc == HC_PMIX_ERR_UNREACH)
    st = pmix_go_solo(c, &got);
  else if (prc != HC_PMIX_SUCCESS) {
    hc_log(HC_LOG_ERROR, "pmix", "PMIx_Init: %s", pmix_strerror(prc));
    st = HC_ERR_BOOTSTRAP;
  } else
    st = pmix_job_info(c, &got);
  if (st != HC_OK) {
    if (prc == HC_PMIX_SUCCESS)
      pmix_lib.finalize(NULL, 0);
    hc_kvstore_fini(&c->cache);
    free(c);
    return st;
  }
  if (c->solo == NULL)
    pmix_watch_server(c);
  *info = got;
  *ctxp = c;
  return HC_OK;
}

static int pmix_bad_text(const char *s) {
  return s == NULL || strpbrk(s, " \n\r") != NULL;
}

static hc_status_t pmix_put(void *ctx, const char *key, const char *value) {
  pmix_ctx_t *c = ctx;
  if (c == NULL || pmix_bad_text(key) || pmix_bad_text(value) || *key == '\0' ||
      strlen(key) >= HC_BOOTSTRAP_KEY_MAX ||
      strlen(value) >= HC_BOOTSTRAP_VALUE_MAX)
    return HC_ERR_ARG;
  if (c->solo != NULL)
    return hc_bootstrap_singleton_ops.put(c->solo, key, value);
  hc_pmix_value_t v;
  memset(&v, 0, sizeof v);
  v.type = HC_PMIX_STRING;
  v.data.string = (char *)value; /* PMIx_Put copies it */
  hc_pmix_status_t rc = pmix_lib.put(HC_PMIX_GLOBAL, key, &v);
  if (rc != HC_PMIX_SUCCESS) {
    hc_log(HC_LOG_ERROR, "pmix", "PMIx_Put %s: %s", key, pmix_strerror(rc));
    return HC_ERR_BOOTSTRAP;
  }
  c->need_commit = 1;
  if (hc_kvstore_set(&c->cache, key, value, PMIX_KV_OWN) != 0)
    return HC_ERR_NOMEM;
  return HC_OK;
}

static hc_status_t pmix_fence(void *ctx) {
  pmix_ctx_t *c = ctx;
  if (c == NULL)
    return HC_ERR_ARG;
  if (c->solo != NULL)
    return hc_bootstrap_singleton_ops.fence(c->solo);
  hc_pmix_status_t rc = c->need_commit ? pmix_lib.commit() : HC_PMIX_SUCCESS;
  c->need_commit = 0;
  if (rc == HC_PMIX_SUCCESS) {
    hc_pmix_proc_t all = c->me;
    all.rank = HC_PMIX_RANK_WILDCARD;
    hc_pmix_info_t collect;
    pmix_info_bool(&collect, HC_PMIX_KEY_COLLECT_DATA);
    rc = pmix_lib.fence(&all, 1, &collect, 1);
  }
  hc_kvstore_prune(&c->cache, PMIX_KV_OWN);
  if (rc != HC_PMIX_SUCCESS) {
    hc_log(HC_LOG_ERROR, "pmix", "fence: %s", pmix_strerror(rc));
    return HC_ERR_BOOTSTRAP;
  }
  return HC_OK;
}

/* The rank a key names by its "-<r>" suffix, or 0. */
static hc_pmix_rank_t pmix_key_owner(const pmix_ctx_t *c, const char *key) {
  const char *dash = strrchr(key, '-');
  if (dash == NULL || dash[1] == '\0')
    return 0;
  char *end = NULL;
  unsigned long r = strtoul(dash + 1, &end, 10);
  if (*end != '\0' || dash[1] < '0' || dash[1] > '9' ||
      r >= (unsigned long)c->size)
    return 0;
  return (hc_pmix_rank_t)r;
}

/* Looks key up among one rank's values, without asking the server to wait
 * for values that the last fence did not bring. */
static hc_pmix_status_t pmix_fetch(pmix_ctx_t *c, hc_pmix_rank_t rank,
                                   const char *key, hc_pmix_value_t **v) {
  hc_pmix_proc_t who = c->me;
  who.rank = rank;
  hc_pmix_info_t now;
  pmix_info_bool(&now, HC_PMIX_KEY_IMMEDIATE);
  return pmix_lib.get(&who, key, &now, 1, v);
}

static hc_status_t pmix_copy_out(const char *v, char *value, size_t len) {
  size_t n = strlen(v);
  if (n >= len)
    return HC_ERR_TRUNCATE;
  memcpy(value, v, n + 1);
  return HC_OK;
}

static hc_status_t pmix_get(void *ctx, const char *key, char *value,
                            size_t len) {
  pmix_ctx_t *c = ctx;
  if (c == NULL || pmix_bad_text(key) || *key == '\0' || value == NULL ||
      len == 0)
    return HC_ERR_ARG;
  if (c->solo != NULL)
    return hc_bootstrap_singleton_ops.get(c->solo, key, value, len);
  const char *cached = hc_kvstore_get(&c->cache, key);
  if (cached != NULL)
    return pmix_copy_out(cached, value, len);
  hc_pmix_rank_t owner = pmix_key_owner(c, key);
  hc_pmix_value_t *v = NULL;
  hc_pmix_status_t rc = pmix_fetch(c, owner, key, &v);
  if (rc != HC_PMIX_SUCCESS && owner != 0) {
    pmix_value_release(v);
    v = NULL;
    rc = pmix_fetch(c, 0, key, &v);
  }
  hc_status_t st = HC_ERR_BOOTSTRAP;
  if (rc == HC_PMIX_SUCCESS && v != NULL && v->type == HC_PMIX_STRING &&
      v->data.string != NULL) {
    st = hc_kvstore_set(&c->cache, key, v->data.string, PMIX_KV_FETCHED) == 0
             ? pmix_copy_out(v->data.string, value, len)
             : HC_ERR_NOMEM;
  } else {
    hc_log(HC_LOG_DEBUG, "pmix", "get %s: %s", key, pmix_strerror(rc));
  }
  pmix_value_release(v);
  return st;
}

static void pmix_abort(void *ctx, int code, const char *message) {
  pmix_ctx_t *c = ctx;
  if (message != NULL && *message != '\0')
    fprintf(stderr, "hcmpi: rank %u: %s\n", c ? c->me.rank : 0, message);
  /* Alone, the caller ends the process itself. */
  if (c == NULL || c->solo != NULL)
    return;
  /* NULL procs: the whole namespace. */
  pmix_lib.abort(code, message ? message : "", NULL, 0);
}

static void pmix_fini(void *ctx) {
  pmix_ctx_t *c = ctx;
  if (c == NULL)
    return;
  if (c->solo != NULL)
    hc_bootstrap_singleton_ops.fini(c->solo);
  else {
    atomic_store(&pmix_finalizing, 1);
    pmix_lib.finalize(NULL, 0);
  }
  hc_kvstore_fini(&c->cache);
  free(c);
}

/* PMIx_Spawn: one application per command, started in its "wdir" (else
 * this process's working directory) with the port in HCMPI_PARENT_PORT, as
 * hcmpirun passes it.  A program that cannot be executed here refuses the whole
 * spawn first (the launcher would start the others and fail the job). */
static hc_status_t pmix_spawn(void *ctx, const hc_bootstrap_spawn_t *cmds,
                              int ncmds, const char *port) {
  pmix_ctx_t *c = ctx;
  if (c == NULL || c->solo != NULL || pmix_lib.spawn == NULL)
    return HC_ERR_NOT_SUPPORTED;
  for (int k = 0; k < ncmds; k++)
    if (!hc_can_exec(cmds[k].argv[0])) {
      hc_log(HC_LOG_WARN, "pmix", "spawn: cannot execute %s", cmds[k].argv[0]);
      return HC_ERR_SPAWN;
    }
  char env_port[HC_BOOTSTRAP_PORT_MAX + 32], cwd[4096];
  char *env[] = {env_port, NULL};
  snprintf(env_port, sizeof env_port, "HCMPI_PARENT_PORT=%s", port);
  if (getcwd(cwd, sizeof cwd) == NULL)
    snprintf(cwd, sizeof cwd, "/");
  hc_pmix_app_t *apps = calloc((size_t)ncmds, sizeof *apps);
  if (apps == NULL)
    return HC_ERR_NOMEM;
  for (int k = 0; k < ncmds; k++)
    apps[k] = (hc_pmix_app_t){.cmd = (char *)cmds[k].argv[0],
                              .argv = (char **)cmds[k].argv,
                              .env = env,
                              .cwd = cmds[k].wdir != NULL ? (char *)cmds[k].wdir
                                                          : cwd,
                              .maxprocs = cmds[k].nprocs};
  char nspace[HC_PMIX_MAX_NSLEN + 1] = "";
  hc_pmix_status_t rc = pmix_lib.spawn(NULL, 0, apps, (size_t)ncmds, nspace);
  free(apps);
  if (rc != HC_PMIX_SUCCESS) {
    hc_log(HC_LOG_WARN, "pmix", "PMIx_Spawn: %s", pmix_strerror(rc));
    return HC_ERR_SPAWN;
  }
  return HC_OK;
}

const hc_bootstrap_ops_t hc_bootstrap_pmix_ops = {
    .name = "pmix",
    .detect = pmix_detect,
    .init = pmix_init,
    .put = pmix_put,
    .fence = pmix_fence,
    .get = pmix_get,
    .abort = pmix_abort,
    .fini = pmix_fini,
    .spawn = pmix_spawn,
};
