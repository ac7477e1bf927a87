/*
 * The engine's counters and event source for the tool interface
 * (counters.h).  The counting itself happens in proto.c, progress.c and
 * engine.c, where the data already is; this file reads them out.
 */
#include "hcomm/counters.h"

#include <stdatomic.h>
#include <string.h>

#include "hcomm/coll.h"
#include "hcomm/core.h"

_Static_assert(HC_COUNTERS_TRANSPORTS == HC_ENGINE_TRANSPORTS_MAX,
               "one counter slot per engine transport");

hc_counters_t hc_counters;

/* Names of the transports that ran in each slot (static strings), and the
 * counts slots kept until their transport stopped.  Under the engine lock. */
static const char *counters_names[HC_COUNTERS_TRANSPORTS];
static int counters_nnames;
static hc_counters_transport_t counters_stopped[HC_COUNTERS_TRANSPORTS];

/* Set by the tool interface from any thread, read on the unexpected path
 * under the engine lock: an atomic pointer, relaxed (the callback's own
 * data is the tool interface's to guard). */
static _Atomic(hc_counters_unexpected_cb) counters_unexpected_cb;

void hc_counters_set_unexpected_cb(hc_counters_unexpected_cb cb) {
  atomic_store_explicit(&counters_unexpected_cb, cb, memory_order_release);
}

void hc_counters_unexpected_event(int source, int tag, int context,
                                  size_t bytes) {
  hc_counters_unexpected_cb cb =
      atomic_load_explicit(&counters_unexpected_cb, memory_order_acquire);
  if (cb != NULL)
    cb(source, tag, context, bytes);
}

void hc_counters_time_progress(int on) {
  hc_engine_lock();
  hc_counters.timing_progress += on ? 1 : -1;
  hc_engine_unlock();
}

int hc_counters_threaded(void) { return hc_engine.locking; }

/* Called by the engine (lock held) once transport slot i started. */
void hc_counters_transport_started(int i, const char *name) {
  if (i < 0 || i >= HC_COUNTERS_TRANSPORTS)
    return;
  counters_names[i] = name;
  if (i >= counters_nnames)
    counters_nnames = i + 1;
}

static void counters_flow_add(hc_counters_flow_t *to,
                              const hc_counters_flow_t *from) {
  to->messages += from->messages;
  to->bytes += from->bytes;
}

static void counters_transport_add(hc_counters_transport_t *to,
                                   const hc_counters_transport_t *from) {
  for (int p = 0; p < 2; p++) {
    counters_flow_add(&to->sent[p], &from->sent[p]);
    counters_flow_add(&to->received[p], &from->received[p]);
  }
}

void hc_counters_transport_stopped(int i, const hc_counters_transport_t *kept) {
  if (i >= 0 && i < HC_COUNTERS_TRANSPORTS)
    counters_transport_add(&counters_stopped[i], kept);
}

/* Slot i's counts so far, into the snapshot's per-slot and protocol sums. */
static void counters_messages(int i, hc_counters_snapshot_t *out) {
  hc_counters_transport_t t = counters_stopped[i];
  if (hc_engine_check() == HC_OK && i < hc_engine.ntransports)
    counters_transport_add(&t, &hc_engine.transports[i].counts);
  counters_flow_add(&out->eager_sent, &t.sent[0]);
  counters_flow_add(&out->rndv_sent, &t.sent[1]);
  counters_flow_add(&out->eager_received, &t.received[0]);
  counters_flow_add(&out->rndv_received, &t.received[1]);
  for (int p = 0; p < 2; p++) {
    counters_flow_add(&out->sent[i], &t.sent[p]);
    counters_flow_add(&out->received[i], &t.received[p]);
  }
}

const char *hc_counters_transport_name(int i) {
  if (i < 0 || i >= HC_COUNTERS_TRANSPORTS)
    return NULL;
  hc_engine_lock();
  const char *name = counters_names[i];
  hc_engine_unlock();
  return name;
}

static void counters_levels(hc_counters_snapshot_t *out) {
  if (hc_engine_check() != HC_OK || hc_engine.contexts == NULL)
    return;
  for (int i = 0; i < HC_MATCH_CONTEXTS; i++) {
    out->unexpected_queued += hc_engine.contexts[i].unexpected.length;
    out->posted_queued += hc_engine.contexts[i].posted.length;
  }
}

static uint64_t counters_transport(int i, hc_transport_counter_t which) {
  const hc_engine_transport_t *t = &hc_engine.transports[i];
  uint64_t value;
  if (hc_engine_check() != HC_OK || i >= hc_engine.ntransports ||
      t->ops->counter == NULL ||
      t->ops->counter(t->ctx, which, &value) != HC_OK)
    return UINT64_MAX;
  return value;
}

void hc_counters_read(hc_counters_snapshot_t *out) {
  memset(out, 0, sizeof *out);
  hc_engine_lock();
  out->c = hc_counters;
  out->ntransports = counters_nnames;
  counters_levels(out);
  for (int i = 0; i < HC_COUNTERS_TRANSPORTS; i++) {
    counters_messages(i, out);
    out->pool_cells_in_use[i] =
        counters_transport(i, HC_TRANSPORT_COUNTER_POOL_CELLS_IN_USE);
    out->regcache_hits[i] =
        counters_transport(i, HC_TRANSPORT_COUNTER_REGCACHE_HITS);
    out->regcache_misses[i] =
        counters_transport(i, HC_TRANSPORT_COUNTER_REGCACHE_MISSES);
  }
  hc_engine_unlock();
}

/* ---- settings ------------------------------------------------------------ */

/* Where each setting that lives while the engine runs is kept, and as
 * what type. */
typedef enum { FIELD_SIZE, FIELD_INT, FIELD_LONG, FIELD_DOUBLE } field_type_t;

static void *counters_field(hc_setting_t which, field_type_t *type) {
  hc_coll_tuning_t *t = &hc_coll_tuning;
  *type = FIELD_SIZE;
  switch (which) {
  case HC_SETTING_COLL_BCAST_LARGE:
    return &t->bcast_large;
  case HC_SETTING_COLL_ALLREDUCE_LARGE:
    return &t->allreduce_large;
  case HC_SETTING_COLL_ALLGATHER_LARGE:
    return &t->allgather_large;
  case HC_SETTING_COLL_ALLTOALL_LINEAR:
    return &t->alltoall_linear;
  case HC_SETTING_COLL_ALLTOALL_BRUCK:
    return &t->alltoall_bruck;
  case HC_SETTING_COLL_GATHER_LINEAR_MAX:
    *type = FIELD_INT;
    return &t->gather_linear_max;
  case HC_SETTING_WAIT_MS:
    *type = FIELD_INT;
    return &hc_engine.wait_ms;
  case HC_SETTING_SPIN:
    *type = FIELD_LONG;
    return &hc_engine.spin;
  default:
    *type = FIELD_DOUBLE;
    return &hc_engine.hang_timeout;
  }
}

/* Reads (write 0) or writes *value to the setting, under the engine lock;
 * HC_ERR_STATE when the engine does not run. */
static hc_status_t counters_setting(hc_setting_t which, long long *value,
                                    int write) {
  field_type_t type;
  void *field = counters_field(which, &type);
  hc_engine_lock();
  hc_status_t rc = hc_engine_check();
  if (rc == HC_OK && write) {
    if (type == FIELD_SIZE)
      *(size_t *)field = (size_t)*value;
    else if (type == FIELD_INT)
      *(int *)field = (int)*value;
    else if (type == FIELD_LONG)
      *(long *)field = (long)*value;
    else
      *(double *)field = (double)*value;
  } else if (rc == HC_OK) {
    if (type == FIELD_SIZE)
      *value = (long long)*(size_t *)field;
    else if (type == FIELD_INT)
      *value = *(int *)field;
    else if (type == FIELD_LONG)
      *value = *(long *)field;
    else
      *value = (long long)*(double *)field;
  }
  hc_engine_unlock();
  return rc;
}

hc_status_t hc_setting_get(hc_setting_t which, long long *value) {
  if (which == HC_SETTING_EAGER_LIMIT) {
    *value = (long long)hc_proto_eager_limit();
    return HC_OK;
  }
  return counters_setting(which, value, 0);
}

hc_status_t hc_setting_set(hc_setting_t which, long long value) {
  if (which == HC_SETTING_EAGER_LIMIT) {
    hc_proto_set_eager_limit((size_t)value);
    return HC_OK;
  }
  return counters_setting(which, &value, 1);
}
