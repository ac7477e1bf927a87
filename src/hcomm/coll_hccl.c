/*
 * HCCL's own collectives on Ascend device buffers: one HcclComm per
 * communicator, made at its first HCCL collective and destroyed with it
 * (or at finalize, before HCCL is unloaded).  Each call first agrees, by an
 * allreduce over the communicator's host path, that every rank can take
 * it; then it issues the HCCL call on the communicator's stream and waits
 * for it.  See hcomm.h and docs/device.md.
 */
#include "hcomm/coll_hccl.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "device/hccl.h"
#include "hcomm/comm.h"
#include "hcomm/core.h"
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
};

static struct {
  int tried, enabled;
  hc_hccl_coll_comm_t *all;
} hcoll;

int hcomm_hccl_coll_enabled(void) {
  /* Under the engine lock: the hccl data path loads HCCL under it too. */
  hc_engine_lock();
  if (!hcoll.tried) {
    hcoll.tried = 1;
    hcoll.enabled = hc_env_bool("HCMPI_COLL_HCCL", 1) &&
                    hc_device_hccl_has_collectives();
  }
  int enabled = hcoll.enabled;
  hc_engine_unlock();
  return enabled;
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

/* Issues a on h's stream and waits until the stream got past it. */
static hc_status_t coll_hccl_run(hc_hccl_coll_comm_t *h,
                                 const hcomm_hccl_coll_t *a) {
  const hc_device_ops_t *ops = hc_device_backend(HC_MEM_ACL);
  void *event = NULL;
  hc_status_t rc = hc_device_hccl_collective(a, h->comm, h->stream);
  if (rc == HC_OK)
    rc = ops->event_create(&event);
  if (rc == HC_OK)
    rc = ops->event_record(event, h->stream);
  if (rc == HC_OK)
    while ((rc = ops->event_query(event)) == HC_ERR_AGAIN)
      sched_yield();
  if (event != NULL)
    ops->event_destroy(event);
  return rc;
}

hc_status_t hcomm_hccl_coll(hcomm_comm_t *comm, const hcomm_hccl_coll_t *a,
                            int usable, int device, int *taken) {
  *taken = 0;
  hc_hccl_coll_comm_t *h = comm->hccl;
  if (h != NULL && h->state != HCCL_COMM_READY)
    return HC_OK; /* every rank agreed on that failure: no need to ask */
  if (h != NULL && h->device != device)
    usable = 0;
  int all;
  hc_status_t rc = coll_hccl_all(comm, usable, &all);
  if (rc != HC_OK || !all)
    return rc;
  if (h == NULL) {
    rc = coll_hccl_make(comm, device);
    h = comm->hccl;
    if (rc != HC_OK || h == NULL || h->state != HCCL_COMM_READY)
      return rc;
  }
  *taken = 1;
  rc = coll_hccl_run(h, a);
  if (rc != HC_OK)
    hc_log(HC_LOG_ERROR, "device", "HCCL collective on communicator %d: %s",
           comm->context_id, hcomm_strerror(rc));
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
