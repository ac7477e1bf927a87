/*
 * Performance variables: the engine's counters (hcomm/counters.h) seen
 * through MPI_T sessions and handles.  The engine's counts only grow; each
 * handle keeps its own offsets, so starting, stopping, resetting or
 * writing one handle changes what that handle reads and nothing else.
 *
 * The engine's variables exist from the start; those of each transport
 * (messages and bytes it carried, and its own figures: shm pool cells in
 * use, verbs registration-cache hits and misses) are added once the
 * transport has started (MPI_Init), which MPI_T_category_changed reports.
 * Indices never change once given.
 *
 * Classes: the protocol counters and the sleep timer are non-continuous
 * (a handle counts only while started); the per-transport counters are
 * continuous (counting from MPI_Init, resettable per handle); queue
 * lengths, their high-water mark and pool cells are read-only levels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm/counters.h"
#include "mpi/mpit.h"
#include "mpi/weak_alias.h"

/* What a variable reads from a snapshot. */
typedef enum pvar_what {
  PV_EAGER_SENT,
  PV_RNDV_SENT,
  PV_EAGER_RECEIVED,
  PV_RNDV_RECEIVED,
  PV_RNDV_GET,
  PV_RNDV_PIPELINED,
  PV_RMA_DIRECT,
  PV_RMA_ACTIVE,
  PV_UNEXPECTED,
  PV_UNEXPECTED_QUEUED,
  PV_UNEXPECTED_HWM,
  PV_POSTED_QUEUED,
  PV_PROGRESS_POLLS,
  PV_WAIT_SLEEP,
  PV_PROGRESS_TIME,
  PV_T_SENT, /* per transport slot from here */
  PV_T_RECEIVED,
  PV_T_POOL_CELLS,
  PV_T_REGCACHE_HITS,
  PV_T_REGCACHE_MISSES
} pvar_what_t;

typedef struct pvar {
  char name[64];
  char desc[192];
  pvar_what_t what;
  int bytes; /* a flow's bytes rather than its messages */
  int slot;  /* transport slot, or -1 */
  int var_class;
  int continuous;
  int readonly;
  int category;
} pvar_t;

struct MPIR_T_pvar_handle_s {
  hc_mpit_node_t node; /* on its session's handles */
  int index;
  int started;   /* non-continuous: counting now */
  uint64_t base; /* the raw value when counting last began */
  uint64_t acc;  /* what the handle read when it last began */
};

struct MPIR_T_pvar_session_s {
  hc_mpit_node_t node; /* on pvar_sessions */
  hc_mpit_node_t *handles;
};

/* MPI_T_PVAR_ALL_HANDLES: an address no handle has. */
static struct MPIR_T_pvar_handle_s pvar_all_handles;
struct MPIR_T_pvar_handle_s *const MPI_T_PVAR_ALL_HANDLES = &pvar_all_handles;

/* Under the MPI_T lock. */
static pvar_t *pvars;
static int npvars, pvars_cap;
static int pvar_slots_known; /* transport slots whose variables exist */
static hc_mpit_node_t *pvar_sessions;

static int pvar_add(const char *name, const char *desc, pvar_what_t what,
                    int bytes, int slot, int var_class, int category) {
  if (npvars == pvars_cap) {
    int cap = pvars_cap ? 2 * pvars_cap : 64;
    pvar_t *grown = realloc(pvars, (size_t)cap * sizeof *grown);
    if (grown == NULL)
      return -1;
    pvars = grown;
    pvars_cap = cap;
  }
  pvar_t *v = &pvars[npvars++];
  memset(v, 0, sizeof *v);
  snprintf(v->name, sizeof v->name, "%s", name);
  snprintf(v->desc, sizeof v->desc, "%s", desc);
  v->what = what;
  v->bytes = bytes;
  v->slot = slot;
  v->var_class = var_class;
  v->category = category;
  v->readonly = var_class == MPI_T_PVAR_CLASS_LEVEL ||
                var_class == MPI_T_PVAR_CLASS_HIGHWATERMARK;
  /* Levels and per-transport counts run all the time. */
  v->continuous = v->readonly || slot >= 0;
  return 0;
}

/* A message count and its bytes. */
static void pvar_add_flow(const char *stem, const char *what_text,
                          pvar_what_t what, int slot, int category) {
  char name[64], desc[192];
  snprintf(name, sizeof name, "%s_messages", stem);
  snprintf(desc, sizeof desc, "messages %s", what_text);
  pvar_add(name, desc, what, 0, slot, MPI_T_PVAR_CLASS_COUNTER, category);
  snprintf(name, sizeof name, "%s_bytes", stem);
  snprintf(desc, sizeof desc, "payload bytes of the messages %s", what_text);
  pvar_add(name, desc, what, 1, slot, MPI_T_PVAR_CLASS_COUNTER, category);
}

static void pvar_add_engine(void) {
  int eng = HC_MPIT_CAT_ENGINE;
  pvar_add_flow("eager_sent", "sent eagerly (payload in the first packet)",
                PV_EAGER_SENT, -1, eng);
  pvar_add_flow("rndv_sent", "sent by rendezvous (RTS, then the data)",
                PV_RNDV_SENT, -1, eng);
  pvar_add_flow("eager_received", "that arrived eagerly", PV_EAGER_RECEIVED, -1,
                eng);
  pvar_add_flow("rndv_received", "that arrived by rendezvous", PV_RNDV_RECEIVED,
                -1, eng);
  pvar_add_flow("rndv_get", "received by a single-copy get (CMA, RDMA)",
                PV_RNDV_GET, -1, eng);
  pvar_add_flow("rndv_pipelined",
                "received as a stream of DATA packets after a CTS",
                PV_RNDV_PIPELINED, -1, eng);
  pvar_add_flow("rma_direct",
                "of one-sided operations this rank moved directly (shared "
                "mapping, CMA)",
                PV_RMA_DIRECT, -1, eng);
  pvar_add_flow("rma_active",
                "of one-sided operations this rank sent as active messages",
                PV_RMA_ACTIVE, -1, eng);
  pvar_add("unexpected_messages",
           "messages that arrived before a receive was posted for them",
           PV_UNEXPECTED, 0, -1, MPI_T_PVAR_CLASS_COUNTER, eng);
  pvar_add("unexpected_queue_length",
           "messages now waiting in the unexpected queues",
           PV_UNEXPECTED_QUEUED, 0, -1, MPI_T_PVAR_CLASS_LEVEL, eng);
  pvar_add("unexpected_queue_hwm",
           "the longest one context's unexpected queue has been",
           PV_UNEXPECTED_HWM, 0, -1, MPI_T_PVAR_CLASS_HIGHWATERMARK, eng);
  pvar_add("posted_queue_length", "receives now posted and not yet matched",
           PV_POSTED_QUEUED, 0, -1, MPI_T_PVAR_CLASS_LEVEL, eng);
  pvar_add("progress_polls", "polls of every transport by the progress engine",
           PV_PROGRESS_POLLS, 0, -1, MPI_T_PVAR_CLASS_COUNTER, eng);
  pvar_add("wait_sleep_time",
           "seconds blocking waits slept for a packet or a free slot",
           PV_WAIT_SLEEP, 0, -1, MPI_T_PVAR_CLASS_TIMER, eng);
  pvar_add("progress_time",
           "seconds in progress polls, counted only while a handle on this "
           "variable is started (timing costs two clock reads a poll)",
           PV_PROGRESS_TIME, 0, -1, MPI_T_PVAR_CLASS_TIMER, eng);
}

static void pvar_add_transport(int slot, const char *name,
                               const hc_counters_snapshot_t *s) {
  int cat = hc_mpit_category_of_transport(name);
  char stem[48], text[96], desc[192];
  snprintf(stem, sizeof stem, "%s_sent", name);
  snprintf(text, sizeof text, "sent through %s", name);
  pvar_add_flow(stem, text, PV_T_SENT, slot, cat);
  snprintf(stem, sizeof stem, "%s_received", name);
  snprintf(text, sizeof text, "that arrived through %s", name);
  pvar_add_flow(stem, text, PV_T_RECEIVED, slot, cat);
  if (s->pool_cells_in_use[slot] != UINT64_MAX) {
    snprintf(stem, sizeof stem, "%s_pool_cells_in_use", name);
    snprintf(desc, sizeof desc,
             "cells of this rank's %s send pool a receiver has not handed "
             "back",
             name);
    pvar_add(stem, desc, PV_T_POOL_CELLS, 0, slot, MPI_T_PVAR_CLASS_LEVEL, cat);
  }
  if (s->regcache_hits[slot] != UINT64_MAX) {
    snprintf(stem, sizeof stem, "%s_regcache_hits", name);
    pvar_add(stem, "memory registrations the cache already held",
             PV_T_REGCACHE_HITS, 0, slot, MPI_T_PVAR_CLASS_COUNTER, cat);
    snprintf(stem, sizeof stem, "%s_regcache_misses", name);
    pvar_add(stem, "memory registrations the cache had to make",
             PV_T_REGCACHE_MISSES, 0, slot, MPI_T_PVAR_CLASS_COUNTER, cat);
  }
}

/* Brings the table up to date (under the MPI_T lock). */
static void pvar_refresh(void) {
  if (npvars == 0)
    pvar_add_engine();
  hc_counters_snapshot_t s;
  hc_counters_read(&s);
  int added = 0;
  for (; pvar_slots_known < s.ntransports; pvar_slots_known++) {
    const char *name = hc_counters_transport_name(pvar_slots_known);
    if (name != NULL) {
      pvar_add_transport(pvar_slots_known, name, &s);
      added = 1;
    }
  }
  if (added)
    hc_mpit_category_touch();
}

int hc_mpit_pvar_count(void) {
  pvar_refresh();
  return npvars;
}

int hc_mpit_pvar_category(int index) { return pvars[index].category; }

static const hc_counters_flow_t *pvar_flow(const pvar_t *v,
                                           const hc_counters_snapshot_t *s) {
  switch (v->what) {
  case PV_EAGER_SENT:
    return &s->eager_sent;
  case PV_RNDV_SENT:
    return &s->rndv_sent;
  case PV_EAGER_RECEIVED:
    return &s->eager_received;
  case PV_RNDV_RECEIVED:
    return &s->rndv_received;
  case PV_RNDV_GET:
    return &s->c.rndv_get;
  case PV_RNDV_PIPELINED:
    return &s->c.rndv_pipelined;
  case PV_RMA_DIRECT:
    return &s->c.rma_direct;
  case PV_RMA_ACTIVE:
    return &s->c.rma_active;
  case PV_T_SENT:
    return &s->sent[v->slot];
  case PV_T_RECEIVED:
    return &s->received[v->slot];
  default:
    return NULL;
  }
}

/* The engine's figure behind v (timers in ns). */
static uint64_t pvar_raw(const pvar_t *v, const hc_counters_snapshot_t *s) {
  const hc_counters_flow_t *flow = pvar_flow(v, s);
  if (flow != NULL)
    return v->bytes ? flow->bytes : flow->messages;
  switch (v->what) {
  case PV_UNEXPECTED:
    return s->c.unexpected;
  case PV_UNEXPECTED_QUEUED:
    return s->unexpected_queued;
  case PV_UNEXPECTED_HWM:
    return s->c.unexpected_hwm;
  case PV_POSTED_QUEUED:
    return s->posted_queued;
  case PV_PROGRESS_POLLS:
    return s->c.progress_polls;
  case PV_WAIT_SLEEP:
    return s->c.wait_sleep_ns;
  case PV_PROGRESS_TIME:
    return s->c.progress_ns;
  case PV_T_POOL_CELLS:
    return s->pool_cells_in_use[v->slot];
  case PV_T_REGCACHE_HITS:
    return s->regcache_hits[v->slot];
  default:
    return s->regcache_misses[v->slot];
  }
}

static MPI_Datatype pvar_datatype(const pvar_t *v) {
  return v->var_class == MPI_T_PVAR_CLASS_TIMER ? MPI_DOUBLE
                                                : MPI_UNSIGNED_LONG_LONG;
}

/* ---- variables ----------------------------------------------------------- */

int PMPI_T_pvar_get_num(int *num_pvar) {
  int rc = hc_mpit_check_arg(num_pvar);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpit_lock();
  *num_pvar = hc_mpit_pvar_count();
  hc_mpit_unlock();
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_pvar_get_num, PMPI_T_pvar_get_num);

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len,
                         int *verbosity, int *var_class, MPI_Datatype *datatype,
                         MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *readonly, int *continuous,
                         int *atomic) {
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpit_lock();
  if (pvar_index < 0 || pvar_index >= hc_mpit_pvar_count()) {
    hc_mpit_unlock();
    return MPI_T_ERR_INVALID_INDEX;
  }
  const pvar_t *v = &pvars[pvar_index];
  hc_mpit_string(v->name, name, name_len);
  hc_mpit_string(v->desc, desc, desc_len);
  if (verbosity != NULL)
    *verbosity = v->slot >= 0 ? MPI_T_VERBOSITY_TUNER_DETAIL
                              : MPI_T_VERBOSITY_USER_BASIC;
  if (var_class != NULL)
    *var_class = v->var_class;
  if (datatype != NULL)
    *datatype = pvar_datatype(v);
  if (enumtype != NULL)
    *enumtype = MPI_T_ENUM_NULL;
  if (bind != NULL)
    *bind = MPI_T_BIND_NO_OBJECT;
  if (readonly != NULL)
    *readonly = v->readonly;
  if (continuous != NULL)
    *continuous = v->continuous;
  /* A handle's read and reset happen under one lock. */
  if (atomic != NULL)
    *atomic = 1;
  hc_mpit_unlock();
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_pvar_get_info, PMPI_T_pvar_get_info);

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index) {
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  if (name == NULL || pvar_index == NULL)
    return MPI_ERR_ARG;
  rc = MPI_T_ERR_INVALID_NAME;
  hc_mpit_lock();
  for (int i = 0; i < hc_mpit_pvar_count(); i++) {
    if (strcmp(pvars[i].name, name) == 0 && pvars[i].var_class == var_class) {
      *pvar_index = i;
      rc = MPI_SUCCESS;
      break;
    }
  }
  hc_mpit_unlock();
  return rc;
}
HC_WEAK_ALIAS(MPI_T_pvar_get_index, PMPI_T_pvar_get_index);

/* ---- sessions ------------------------------------------------------------ */

/* 1 when s is a live session (under the MPI_T lock). */
static int pvar_session_live(MPI_T_pvar_session s) {
  return hc_mpit_list_find(&pvar_sessions, s, 0);
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session) {
  int rc = hc_mpit_check_arg(session);
  if (rc != MPI_SUCCESS)
    return rc;
  struct MPIR_T_pvar_session_s *s = calloc(1, sizeof *s);
  if (s == NULL)
    return MPI_T_ERR_OUT_OF_SESSIONS;
  hc_mpit_lock();
  hc_mpit_list_push(&pvar_sessions, s);
  hc_mpit_unlock();
  *session = s;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_pvar_session_create, PMPI_T_pvar_session_create);

/* Starts or stops h's counting; the engine times its polls only while
 * some handle on progress_time counts. */
static void pvar_handle_run(struct MPIR_T_pvar_handle_s *h, int on) {
  if (h->started != on && pvars[h->index].what == PV_PROGRESS_TIME)
    hc_counters_time_progress(on);
  h->started = on;
}

static void pvar_handle_destroy(struct MPIR_T_pvar_handle_s *h) {
  pvar_handle_run(h, 0);
  free(h);
}

static void pvar_session_destroy(struct MPIR_T_pvar_session_s *s) {
  struct MPIR_T_pvar_handle_s *h;
  while ((h = hc_mpit_list_pop(&s->handles)) != NULL)
    pvar_handle_destroy(h);
  free(s);
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session) {
  int rc = hc_mpit_check_arg(session);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpit_lock();
  rc = MPI_T_ERR_INVALID_SESSION;
  if (hc_mpit_list_find(&pvar_sessions, *session, 1)) {
    pvar_session_destroy(*session);
    *session = MPI_T_PVAR_SESSION_NULL;
    rc = MPI_SUCCESS;
  }
  hc_mpit_unlock();
  return rc;
}
HC_WEAK_ALIAS(MPI_T_pvar_session_free, PMPI_T_pvar_session_free);

void hc_mpit_pvar_release_all(void) {
  struct MPIR_T_pvar_session_s *s;
  while ((s = hc_mpit_list_pop(&pvar_sessions)) != NULL)
    pvar_session_destroy(s);
}

/* MPI_SUCCESS when handle is one of session's (or ALL_HANDLES where
 * all_ok), under the MPI_T lock. */
static int pvar_check(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                      int all_ok) {
  if (!pvar_session_live(session))
    return MPI_T_ERR_INVALID_SESSION;
  if (handle == MPI_T_PVAR_ALL_HANDLES)
    return all_ok ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
  return hc_mpit_list_find(&session->handles, handle, 0)
             ? MPI_SUCCESS
             : MPI_T_ERR_INVALID_HANDLE;
}

/* ---- handles ------------------------------------------------------------- */

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index,
                             void *obj_handle, MPI_T_pvar_handle *handle,
                             int *count) {
  (void)obj_handle; /* every variable is bound to no object */
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  if (handle == NULL || count == NULL)
    return MPI_ERR_ARG;
  hc_mpit_lock();
  if (!pvar_session_live(session))
    rc = MPI_T_ERR_INVALID_SESSION;
  else if (pvar_index < 0 || pvar_index >= hc_mpit_pvar_count())
    rc = MPI_T_ERR_INVALID_INDEX;
  struct MPIR_T_pvar_handle_s *h =
      rc == MPI_SUCCESS ? calloc(1, sizeof *h) : NULL;
  if (rc == MPI_SUCCESS && h == NULL)
    rc = MPI_T_ERR_OUT_OF_HANDLES;
  if (rc == MPI_SUCCESS) {
    h->index = pvar_index;
    /* A continuous one counts from MPI_Init (base 0); a level reads what
     * is; a non-continuous one reads 0 until started. */
    hc_mpit_list_push(&session->handles, h);
    *handle = h;
    *count = 1;
  }
  hc_mpit_unlock();
  return rc;
}
HC_WEAK_ALIAS(MPI_T_pvar_handle_alloc, PMPI_T_pvar_handle_alloc);

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session,
                            MPI_T_pvar_handle *handle) {
  int rc = hc_mpit_check_arg(handle);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpit_lock();
  rc = pvar_check(session, *handle, 0);
  if (rc == MPI_SUCCESS) {
    hc_mpit_list_find(&session->handles, *handle, 1);
    pvar_handle_destroy(*handle);
    *handle = MPI_T_PVAR_HANDLE_NULL;
  }
  hc_mpit_unlock();
  return rc;
}
HC_WEAK_ALIAS(MPI_T_pvar_handle_free, PMPI_T_pvar_handle_free);

/* What h reads when the engine's figure is raw. */
static uint64_t pvar_handle_value(const struct MPIR_T_pvar_handle_s *h,
                                  uint64_t raw) {
  const pvar_t *v = &pvars[h->index];
  if (v->readonly)
    return raw;
  return h->acc + (v->continuous || h->started ? raw - h->base : 0);
}

/* Makes h read value from now on. */
static void pvar_handle_set(struct MPIR_T_pvar_handle_s *h, uint64_t raw,
                            uint64_t value) {
  h->acc = value;
  h->base = raw;
}

typedef enum pvar_op { OP_START, OP_STOP, OP_RESET } pvar_op_t;

/* One start, stop or reset of h: MPI_SUCCESS or why not. */
static int pvar_apply(struct MPIR_T_pvar_handle_s *h, pvar_op_t op,
                      const hc_counters_snapshot_t *s) {
  const pvar_t *v = &pvars[h->index];
  uint64_t raw = pvar_raw(v, s);
  if (op == OP_RESET) {
    if (v->readonly)
      return MPI_T_ERR_PVAR_NO_WRITE;
    pvar_handle_set(h, raw, 0);
    return MPI_SUCCESS;
  }
  if (v->continuous)
    return MPI_T_ERR_PVAR_NO_STARTSTOP;
  if (op == OP_START && !h->started)
    h->base = raw;
  else if (op == OP_STOP && h->started)
    h->acc += raw - h->base;
  pvar_handle_run(h, op == OP_START);
  return MPI_SUCCESS;
}

/* Start, stop or reset: of one handle, or with ALL_HANDLES of every
 * handle of session it applies to (the standard skips the others). */
static int pvar_control(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                        pvar_op_t op) {
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  hc_counters_snapshot_t s;
  hc_counters_read(&s);
  hc_mpit_lock();
  rc = pvar_check(session, handle, 1);
  if (rc == MPI_SUCCESS && handle != MPI_T_PVAR_ALL_HANDLES)
    rc = pvar_apply(handle, op, &s);
  /* A session that failed the check is not looked into. */
  int all = rc == MPI_SUCCESS && handle == MPI_T_PVAR_ALL_HANDLES;
  for (hc_mpit_node_t *n = all ? session->handles : NULL; n != NULL;
       n = n->next)
    (void)pvar_apply((struct MPIR_T_pvar_handle_s *)n, op, &s);
  hc_mpit_unlock();
  return rc;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return pvar_control(session, handle, OP_START);
}
HC_WEAK_ALIAS(MPI_T_pvar_start, PMPI_T_pvar_start);

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return pvar_control(session, handle, OP_STOP);
}
HC_WEAK_ALIAS(MPI_T_pvar_stop, PMPI_T_pvar_stop);

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return pvar_control(session, handle, OP_RESET);
}
HC_WEAK_ALIAS(MPI_T_pvar_reset, PMPI_T_pvar_reset);

static void pvar_store(const pvar_t *v, uint64_t value, void *buf) {
  if (v->var_class == MPI_T_PVAR_CLASS_TIMER) {
    double seconds = (double)value * 1e-9;
    memcpy(buf, &seconds, sizeof seconds);
  } else {
    unsigned long long n = value;
    memcpy(buf, &n, sizeof n);
  }
}

/* The value buf holds for v. */
static uint64_t pvar_load(const pvar_t *v, const void *buf) {
  if (v->var_class == MPI_T_PVAR_CLASS_TIMER) {
    double seconds;
    memcpy(&seconds, buf, sizeof seconds);
    return seconds > 0 ? (uint64_t)(seconds * 1e9) : 0;
  }
  unsigned long long n;
  memcpy(&n, buf, sizeof n);
  return n;
}

typedef enum pvar_access {
  ACCESS_READ,
  ACCESS_READRESET,
  ACCESS_WRITE
} pvar_access_t;

/* Read, read and reset, or write one handle. */
static int pvar_access(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                       void *buf, pvar_access_t how) {
  int rc = hc_mpit_check_arg(buf);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_counters_snapshot_t s;
  hc_counters_read(&s);
  hc_mpit_lock();
  rc = pvar_check(session, handle, 0);
  if (rc == MPI_SUCCESS && how != ACCESS_READ && pvars[handle->index].readonly)
    rc = MPI_T_ERR_PVAR_NO_WRITE;
  if (rc == MPI_SUCCESS) {
    const pvar_t *v = &pvars[handle->index];
    uint64_t raw = pvar_raw(v, &s);
    if (how == ACCESS_WRITE) {
      pvar_handle_set(handle, raw, pvar_load(v, buf));
    } else {
      pvar_store(v, pvar_handle_value(handle, raw), buf);
      if (how == ACCESS_READRESET)
        pvar_handle_set(handle, raw, 0);
    }
  }
  hc_mpit_unlock();
  return rc;
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                     void *buf) {
  return pvar_access(session, handle, buf, ACCESS_READ);
}
HC_WEAK_ALIAS(MPI_T_pvar_read, PMPI_T_pvar_read);

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                          void *buf) {
  return pvar_access(session, handle, buf, ACCESS_READRESET);
}
HC_WEAK_ALIAS(MPI_T_pvar_readreset, PMPI_T_pvar_readreset);

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                      const void *buf) {
  /* Only read from: pvar_access writes buf for reads alone. */
  return pvar_access(session, handle, (void *)(uintptr_t)buf, ACCESS_WRITE);
}
HC_WEAK_ALIAS(MPI_T_pvar_write, PMPI_T_pvar_write);
