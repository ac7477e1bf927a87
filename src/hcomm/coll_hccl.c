/*
 * HCCL's own collectives on Ascend device buffers: one HcclComm per
 * communicator, made at the first blocking or persistent HCCL collective
 * (making it blocks until every rank joined, so a non-blocking one never
 * does) and destroyed with it (or at finalize, before HCCL is unloaded).
 *
 * Every form runs one schedule (coll_hccl_build): a reduce to rank 0 of
 * whether each rank can take the call; rank 0, once it has the result
 * (every rank took part), gives the call the next number of the HcclComm,
 * or -1 when some rank cannot, and broadcasts it; each rank issues its numbered
 * calls on the communicator's stream in number order and polls an event
 * recorded behind the call. HCCL matches the calls of a communicator by their
 * order on each rank, and MPI lets persistent collectives start in different
 * orders on different ranks: numbering by rank 0 in the order it learns that
 * every rank has started a call gives one order, in which no rank waits for a
 * call it has not started itself.  The blocking form starts the schedule
 * and waits; a call numbered -1 goes its staged way (the caller's for
 * the blocking form; the non-blocking form's plan).  See hcomm.h and
 * docs/device.md.
 */
#include "hcomm/coll_hccl.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "device/hccl.h"
#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/nbc.h"
#include "hcomm/request.h"
#include "util/env.h"
#include "util/log.h"

enum { HCCL_COMM_READY = 1, HCCL_COMM_FAILED = 2 };

struct hc_hccl_coll_comm {
  hc_hccl_coll_comm_t *next; /* in the list of every live one */
  hcomm_comm_t *owner;
  int state;
  int device;
  void *comm;   /* the HcclComm */
  void *stream; /* an acl backend stream on device */
  int64_t numbered; /* rank 0: calls numbered so far */
  int64_t issued;   /* calls issued on stream so far */
};

/* The HCCL gate's answer: 0 not yet asked, 1 off, 2 on. */
enum { HCOLL_GATE_UNASKED, HCOLL_GATE_OFF, HCOLL_GATE_ON };

static struct {
  /* Once asked, read without the lock: every collective of the face asks. */
  _Atomic int gate;
  hc_hccl_coll_comm_t *all;
} hcoll;

int hcomm_hccl_coll_enabled(void) {
  int gate = atomic_load_explicit(&hcoll.gate, memory_order_acquire);
  if (gate != HCOLL_GATE_UNASKED)
    return gate == HCOLL_GATE_ON;
  /* Under the engine lock: the hccl data path loads HCCL under it too. */
  hc_engine_lock();
  gate = atomic_load_explicit(&hcoll.gate, memory_order_relaxed);
  if (gate == HCOLL_GATE_UNASKED) {
    gate = hc_env_bool("HCMPI_COLL_HCCL", 1) && hc_device_hccl_has_collectives()
               ? HCOLL_GATE_ON
               : HCOLL_GATE_OFF;
    atomic_store_explicit(&hcoll.gate, gate, memory_order_release);
  }
  hc_engine_unlock();
  return gate == HCOLL_GATE_ON;
}

static void coll_hccl_min(const void *in, void *inout, size_t count,
                          void *ctx) {
  (void)ctx;
  const int *a = in;
  int *b = inout;
  for (size_t i = 0; i < count; i++)
    if (a[i] < b[i])
      b[i] = a[i];
}

/* Whether every rank of comm says yes. */
static hc_status_t coll_hccl_all(hcomm_comm_t *comm, int yes, int *all) {
  hcomm_reduce_op_t min = {coll_hccl_min, NULL, sizeof(int), 1};
  int in = yes != 0;
  *all = 0;
  hc_status_t rc = hcomm_allreduce(&in, all, 1, &min, comm);
  if (rc != HC_OK)
    *all = 0;
  return rc;
}

static void coll_hccl_destroy(hc_hccl_coll_comm_t *h) {
  if (h->stream != NULL)
    hc_device_backend(HC_MEM_ACL)->stream_destroy(h->stream);
  if (h->comm != NULL)
    hc_device_hccl_comm_destroy(h->device, h->comm);
  free(h);
}

/* comm's HcclComm: rank 0 makes the root info, the host path carries it,
 * every rank joins; then all agree it worked everywhere.  On failure the
 * communicator keeps its staged collectives for good. */
static hc_status_t coll_hccl_make(hcomm_comm_t *comm, int device) {
  hc_hccl_coll_comm_t *h = calloc(1, sizeof *h);
  struct {
    int ok;
    unsigned char root[HC_HCCL_ROOT_BYTES];
  } info = {0};
  if (comm->rank == 0)
    info.ok = h != NULL && hc_device_hccl_root_info(device, info.root) == HC_OK;
  hc_status_t rc = hcomm_bcast(&info, sizeof info, 0, comm);
  if (h == NULL) {
    int all; /* still takes part, so the others do not wait for us */
    return rc != HC_OK ? rc : coll_hccl_all(comm, 0, &all);
  }
  h->owner = comm;
  h->device = device;
  h->state = HCCL_COMM_FAILED;
  int ok = rc == HC_OK && info.ok &&
           hc_device_hccl_comm_init(device, (uint32_t)comm->size, info.root,
                                    (uint32_t)comm->rank, &h->comm) == HC_OK &&
           hc_device_backend(HC_MEM_ACL)->stream_create(device, &h->stream) ==
               HC_OK;
  int all = 0;
  if (rc == HC_OK)
    rc = coll_hccl_all(comm, ok, &all);
  if (all) {
    h->state = HCCL_COMM_READY;
    hc_log(HC_LOG_DEBUG, "device",
           "rank %d: HcclComm of communicator %d (%d ranks) ready",
           hc_engine.world_rank, comm->context_id, comm->size);
  } else {
    hc_log(HC_LOG_INFO, "device",
           "communicator %d: no HcclComm, its device collectives stage",
           comm->context_id);
    if (h->comm != NULL)
      hc_device_hccl_comm_destroy(device, h->comm);
    h->comm = NULL;
  }
  /* The list is the engine's (comm_destroy and finalize walk it). */
  hc_engine_lock();
  h->next = hcoll.all;
  hcoll.all = h;
  comm->hccl = h;
  hc_engine_unlock();
  return rc;
}

/* One HCCL collective as a schedule (see the top of the file). */
typedef struct coll_hccl_job {
  hcomm_comm_t *comm;
  hcomm_hccl_coll_t a;     /* its ALLTOALLV vectors copied into the schedule */
  int usable;              /* this rank can take it */
  int all;                 /* rank 0: every rank can */
  int64_t number;          /* its turn on the HcclComm; -1: staged */
  void *event;             /* recorded behind the call; kept for replays */
  hcomm_request_t *plan;   /* the staged collective, or NULL */
  hcomm_hccl_load_fn load; /* readies plan's input before it runs */
  void *load_arg;
  int *taken; /* the blocking caller's answer, or NULL */
} coll_hccl_job_t;

/* Rank 0, having heard from every rank: the call's number, or -1. */
static void coll_hccl_number(hc_nbc_sched_t *s, void *arg) {
  coll_hccl_job_t *j = arg;
  if (hc_nbc_rank(s) != 0)
    return;
  hc_hccl_coll_comm_t *h = j->comm->hccl;
  int all = j->all && h != NULL && h->state == HCCL_COMM_READY;
  j->number = all ? h->numbered++ : -1;
}

/* Every rank knows the number: a staged call starts its plan. */
static void coll_hccl_decide(hc_nbc_sched_t *s, void *arg) {
  coll_hccl_job_t *j = arg;
  if (j->taken != NULL)
    *j->taken = j->number >= 0;
  if (j->number >= 0 || j->plan == NULL)
    return;
  hc_status_t rc = j->load != NULL ? j->load(j->load_arg) : HC_OK;
  if (rc != HC_OK)
    hc_nbc_fail(s, rc);
  else
    hc_nbc_plan_run_locked(j->plan, hc_nbc_tag(s));
}

/* Waits for the call's turn on the stream, then issues it. */
static int coll_hccl_issue(hc_nbc_sched_t *s, void *arg) {
  coll_hccl_job_t *j = arg;
  hc_hccl_coll_comm_t *h = j->comm->hccl;
  if (j->number < 0)
    return 1;
  if (h->issued != j->number) {
    /* A failed process or a revoke can keep an earlier call from its
     * turn for good: this one fails rather than wait for ever. */
    hc_status_t why = hc_comm_failure_locked(j->comm);
    if (why == HC_OK)
      return 0;
    hc_nbc_fail(s, why);
    return 1;
  }
  h->issued++; /* taken even on failure: the later calls are not held up */
  const hc_device_ops_t *ops = hc_device_backend(HC_MEM_ACL);
  hc_status_t rc = hc_device_hccl_collective(&j->a, h->comm, h->stream);
  if (rc == HC_OK && j->event == NULL)
    rc = ops->event_create(&j->event);
  if (rc == HC_OK)
    rc = ops->event_record(j->event, h->stream);
  if (rc != HC_OK) {
    hc_log(HC_LOG_ERROR, "device", "HCCL collective on communicator %d: %s",
           j->comm->context_id, hcomm_strerror(rc));
    hc_nbc_fail(s, rc);
  }
  return 1;
}

/* Waits for the call's event, or for the staged plan. */
static int coll_hccl_finish(hc_nbc_sched_t *s, void *arg) {
  coll_hccl_job_t *j = arg;
  hc_status_t rc;
  if (j->number < 0) {
    if (j->plan == NULL)
      return 1;
    if (!atomic_load(&j->plan->done))
      return 0;
    rc = j->plan->status.error;
  } else {
    rc = hc_device_backend(HC_MEM_ACL)->event_query(j->event);
    if (rc == HC_ERR_AGAIN)
      return 0;
  }
  if (rc != HC_OK)
    hc_nbc_fail(s, rc);
  return 1;
}

/* With the schedule (engine lock held). */
static void coll_hccl_job_free(void *arg) {
  coll_hccl_job_t *j = arg;
  if (j->event != NULL)
    hc_device_backend(HC_MEM_ACL)->event_destroy(j->event);
  if (j->plan != NULL)
    hc_request_release(j->plan); /* never started, or complete */
}

/* The schedule of a (see the top of the file) and its job (NULL when
 * memory ran out: the schedule fails at its launch); plan is taken. */
static hc_status_t coll_hccl_build(hcomm_comm_t *comm,
                                   const hcomm_hccl_coll_t *a, int usable,
                                   hcomm_request_t *plan, hc_nbc_sched_t **out,
                                   coll_hccl_job_t **job) {
  hc_nbc_sched_t *s;
  hcomm_reduce_op_t min = {coll_hccl_min, NULL, sizeof(int), 1};
  hc_status_t rc = hc_nbc_new(comm, &min, &s);
  if (rc != HC_OK) {
    if (plan != NULL)
      hcomm_request_free(plan);
    return rc;
  }
  coll_hccl_job_t *j = hc_nbc_tmp(s, sizeof *j);
  if (j != NULL) {
    *j = (coll_hccl_job_t){
        .comm = comm, .a = *a, .usable = usable != 0, .plan = plan};
    hc_nbc_set_cleanup(s, coll_hccl_job_free, j);
  } else if (plan != NULL) {
    hcomm_request_free(plan);
  }
  int n = comm->size;
  if (j != NULL && a->kind == HCOMM_HCCL_ALLTOALLV && a->scounts != NULL) {
    uint64_t *v = hc_nbc_tmp(s, 4 * (size_t)n * sizeof *v);
    if (v != NULL) {
      memcpy(v, a->scounts, (size_t)n * sizeof *v);
      memcpy(v + n, a->sdispls, (size_t)n * sizeof *v);
      memcpy(v + 2 * n, a->rcounts, (size_t)n * sizeof *v);
      memcpy(v + 3 * n, a->rdispls, (size_t)n * sizeof *v);
      j->a.scounts = v;
      j->a.sdispls = v + n;
      j->a.rcounts = v + 2 * n;
      j->a.rdispls = v + 3 * n;
    }
  }
  if (j != NULL) {
    /* A tree reduce: rank 0's result means every rank has started it. */
    hc_nbc_add_reduce(s, &j->usable, &j->all, 1, 0);
    hc_nbc_add_call(s, coll_hccl_number, j);
    hc_nbc_add_bcast(s, &j->number, sizeof j->number, 0);
    hc_nbc_add_call(s, coll_hccl_decide, j);
    hc_nbc_add_poll(s, coll_hccl_issue, j);
    hc_nbc_add_poll(s, coll_hccl_finish, j);
  }
  *out = s;
  *job = j;
  return HC_OK;
}

/* Whether comm can take HCCL calls made without blocking: its HcclComm is
 * ready (made by an earlier blocking or persistent call, the same at every
 * rank) and on device. */
static int coll_hccl_ready(const hcomm_comm_t *comm, int device) {
  const hc_hccl_coll_comm_t *h = comm->hccl;
  return h != NULL && h->state == HCCL_COMM_READY && h->device == device;
}

/* Blocking: whether every rank can, and comm's HcclComm made if needed.
 * *all 0: nothing more to do (some rank cannot, or no HcclComm). */
static hc_status_t coll_hccl_prepare(hcomm_comm_t *comm, int usable, int device,
                                     int *all) {
  *all = 0;
  hc_hccl_coll_comm_t *h = comm->hccl;
  if (h != NULL && h->state != HCCL_COMM_READY)
    return HC_OK; /* every rank agreed on that failure: no need to ask */
  if (h != NULL) {
    *all = 1; /* the schedule's own round agrees on usable */
    return HC_OK;
  }
  hc_status_t rc = coll_hccl_all(comm, usable, all);
  if (rc != HC_OK || !*all)
    return rc;
  rc = coll_hccl_make(comm, device);
  *all = rc == HC_OK && coll_hccl_ready(comm, device);
  return rc;
}

hc_status_t hcomm_hccl_coll(hcomm_comm_t *comm, const hcomm_hccl_coll_t *a,
                            int usable, int device, int *taken) {
  *taken = 0;
  int all;
  hc_status_t rc = coll_hccl_prepare(comm, usable, device, &all);
  if (rc != HC_OK || !all)
    return rc;
  hc_nbc_sched_t *s;
  coll_hccl_job_t *j;
  hcomm_request_t *req = NULL;
  rc = coll_hccl_build(comm, a, usable && coll_hccl_ready(comm, device), NULL,
                       &s, &j);
  int said = 0;
  if (rc == HC_OK) {
    if (j != NULL)
      j->taken = &said;
    rc = hc_nbc_start(s, &req);
  }
  if (rc == HC_OK) {
    rc = hcomm_wait(req, NULL);
    hcomm_request_free(req);
  }
  *taken = said || rc != HC_OK;
  return rc;
}

int hcomm_hccl_coll_ready(hcomm_comm_t *comm) {
  hc_engine_lock();
  const hc_hccl_coll_comm_t *h = comm->hccl;
  int ready = h != NULL && h->state == HCCL_COMM_READY;
  hc_engine_unlock();
  return ready;
}

hc_status_t hcomm_hccl_icoll(hcomm_comm_t *comm, const hcomm_hccl_coll_t *a,
                             int usable, int device, hcomm_request_t *plan,
                             hcomm_hccl_load_fn load, void *load_arg,
                             hcomm_request_t **req) {
  if (plan == NULL || plan->plan == NULL) {
    if (plan != NULL)
      hcomm_request_free(plan);
    return HC_ERR_ARG;
  }
  hc_engine_lock();
  int ready = coll_hccl_ready(comm, device);
  hc_engine_unlock();
  hc_nbc_sched_t *s;
  coll_hccl_job_t *j;
  hc_status_t rc = coll_hccl_build(comm, a, usable && ready, plan, &s, &j);
  if (rc != HC_OK)
    return rc;
  if (j != NULL) {
    j->load = load;
    j->load_arg = load_arg;
  }
  return hc_nbc_start(s, req);
}

hc_status_t hcomm_hccl_coll_init(hcomm_comm_t *comm, const hcomm_hccl_coll_t *a,
                                 int usable, int device, int *taken,
                                 hcomm_request_t **req) {
  *taken = 0;
  int all;
  hc_status_t rc = coll_hccl_prepare(comm, usable, device, &all);
  if (rc == HC_OK && all && comm->hccl != NULL) {
    /* Whether every rank's buffers fit, once, now: they are fixed. */
    rc = coll_hccl_all(comm, usable && coll_hccl_ready(comm, device), &all);
  }
  if (rc != HC_OK || !all)
    return rc;
  hc_nbc_sched_t *s;
  coll_hccl_job_t *j;
  rc = coll_hccl_build(comm, a, 1, NULL, &s, &j);
  if (rc == HC_OK)
    rc = hc_nbc_launch(s, 1, req);
  *taken = 1;
  return rc;
}

static void coll_hccl_unlink(hc_hccl_coll_comm_t *h) {
  for (hc_hccl_coll_comm_t **l = &hcoll.all; *l != NULL; l = &(*l)->next)
    if (*l == h) {
      *l = h->next;
      return;
    }
}

/* Engine lock held. */
void hc_hccl_coll_comm_gone(hcomm_comm_t *comm) {
  hc_hccl_coll_comm_t *h = comm->hccl;
  if (h == NULL)
    return;
  comm->hccl = NULL;
  coll_hccl_unlink(h);
  coll_hccl_destroy(h);
}

void hc_hccl_coll_fini(void) {
  while (hcoll.all != NULL)
    hc_hccl_coll_comm_gone(hcoll.all->owner);
  memset(&hcoll, 0, sizeof hcoll);
}
