/*
 * Events (MPI-4.0 section 15.3.8).  One event type so far, raised by the
 * engine's one source: a message arrived that no posted receive took
 * (hcomm/counters.h's unexpected callback).  Its elements are the
 * sender's world rank, the tag, the matching context (twice the
 * communicator's context id, plus one for its collectives) and the
 * message's size in bytes.
 *
 * The engine raises it inside progress with its lock held, where a
 * callback may call none of MPI but the event accessors (event_read,
 * event_copy, event_get_timestamp, event_get_source), so it needs
 * MPI_T_CB_REQUIRE_MPI_RESTRICTED, or MPI_T_CB_REQUIRE_THREAD_SAFE when
 * the engine runs threads (THREAD_MULTIPLE, the progress thread).  Each
 * registration's callback of the lowest safety level that meets that runs;
 * with none the event is dropped and counted, and the dropped handler
 * hears the count before the registration's next delivery or at its
 * free.  Event instances live on the stack for the callback's duration.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include "hcomm/counters.h"
#include "mpi/mpit.h"
#include "mpi/weak_alias.h"

#define EVENT_INSTANCE_MAGIC 0x65696e73u
#define EVENT_LEVELS 4 /* MPI_T_cb_safety's values */

/* The data of an unexpected arrival, as event_copy writes it. */
typedef struct event_unexpected {
  int source;
  int tag;
  int context;
  MPI_Count bytes;
} event_unexpected_t;

static const struct event_element {
  const char *name;
  MPI_Datatype type;
  size_t size;
  MPI_Aint offset;
} event_elements[] = {
    {"source", MPI_INT, sizeof(int), offsetof(event_unexpected_t, source)},
    {"tag", MPI_INT, sizeof(int), offsetof(event_unexpected_t, tag)},
    {"context", MPI_INT, sizeof(int), offsetof(event_unexpected_t, context)},
    {"bytes", MPI_COUNT, sizeof(MPI_Count),
     offsetof(event_unexpected_t, bytes)},
};
#define EVENT_NELEMENTS 4

struct MPIR_T_event_instance_s {
  uint32_t magic;
  int event_index;
  MPI_Count timestamp;
  event_unexpected_t data;
};

typedef struct event_callback {
  MPI_T_event_cb_function *fn;
  void *user_data;
} event_callback_t;

struct MPIR_T_event_registration_s {
  hc_mpit_node_t node; /* on event_regs */
  int event_index;
  event_callback_t callbacks[EVENT_LEVELS]; /* by safety level */
  MPI_T_event_dropped_cb_function *dropped_fn;
  MPI_Count dropped; /* not yet told to dropped_fn */
};

/* Guards the registrations; held while callbacks run, taken by the engine
 * with its own lock held (never the other way round). */
static pthread_mutex_t event_mutex = PTHREAD_MUTEX_INITIALIZER;
static hc_mpit_node_t *event_regs;

int hc_mpit_event_count(void) { return 1; }
int hc_mpit_event_category(int index) {
  (void)index;
  return HC_MPIT_CAT_ENGINE;
}

/* Tells dropped_fn about drops so far, at safety level level. */
static void event_report_drops(struct MPIR_T_event_registration_s *r,
                               MPI_T_cb_safety level, void *user_data) {
  if (r->dropped == 0 || r->dropped_fn == NULL)
    return;
  MPI_Count n = r->dropped;
  r->dropped = 0;
  r->dropped_fn(n, r, 0, level, user_data);
}

/* The engine's callback: one unexpected arrival. */
static void event_unexpected(int source, int tag, int context, size_t bytes) {
  struct MPIR_T_event_instance_s inst = {
      EVENT_INSTANCE_MAGIC,
      0,
      hc_mpit_now(),
      {source, tag, context, (MPI_Count)bytes}};
  MPI_T_cb_safety need = hc_counters_threaded()
                             ? MPI_T_CB_REQUIRE_THREAD_SAFE
                             : MPI_T_CB_REQUIRE_MPI_RESTRICTED;
  pthread_mutex_lock(&event_mutex);
  for (hc_mpit_node_t *n = event_regs; n != NULL; n = n->next) {
    struct MPIR_T_event_registration_s *r =
        (struct MPIR_T_event_registration_s *)n;
    const event_callback_t *cb = NULL;
    for (int level = need; cb == NULL && level < EVENT_LEVELS; level++)
      if (r->callbacks[level].fn != NULL)
        cb = &r->callbacks[level];
    if (cb == NULL) {
      r->dropped++;
      continue;
    }
    event_report_drops(r, need, cb->user_data);
    cb->fn(&inst, r, need, cb->user_data);
  }
  pthread_mutex_unlock(&event_mutex);
}

int PMPI_T_event_get_num(int *num_events) {
  int rc = hc_mpit_check_arg(num_events);
  if (rc != MPI_SUCCESS)
    return rc;
  *num_events = hc_mpit_event_count();
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_event_get_num, PMPI_T_event_get_num);

static int event_new_info(MPI_Info *info) {
  if (info == NULL)
    return MPI_SUCCESS;
  return PMPI_Info_create(info) == MPI_SUCCESS ? MPI_SUCCESS : MPI_T_ERR_MEMORY;
}

int PMPI_T_event_get_info(int event_index, char *name, int *name_len,
                          int *verbosity, MPI_Datatype array_of_datatypes[],
                          MPI_Aint array_of_displacements[], int *num_elements,
                          MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind) {
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  if (event_index != 0)
    return MPI_T_ERR_INVALID_INDEX;
  hc_mpit_string("unexpected_message", name, name_len);
  hc_mpit_string("a message arrived that no posted receive took: the "
                 "sender's world rank, the tag, the matching context, the "
                 "size in bytes",
                 desc, desc_len);
  if (verbosity != NULL)
    *verbosity = MPI_T_VERBOSITY_USER_DETAIL;
  if (num_elements != NULL) {
    for (int i = 0; i < EVENT_NELEMENTS && i < *num_elements; i++) {
      if (array_of_datatypes != NULL)
        array_of_datatypes[i] = event_elements[i].type;
      if (array_of_displacements != NULL)
        array_of_displacements[i] = event_elements[i].offset;
    }
    *num_elements = EVENT_NELEMENTS;
  }
  if (enumtype != NULL)
    *enumtype = MPI_T_ENUM_NULL;
  if (bind != NULL)
    *bind = MPI_T_BIND_NO_OBJECT;
  return event_new_info(info);
}
HC_WEAK_ALIAS(MPI_T_event_get_info, PMPI_T_event_get_info);

int PMPI_T_event_get_index(const char *name, int *event_index) {
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  if (name == NULL || event_index == NULL)
    return MPI_ERR_ARG;
  if (strcmp(name, "unexpected_message") != 0)
    return MPI_T_ERR_INVALID_NAME;
  *event_index = 0;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_event_get_index, PMPI_T_event_get_index);

/* ---- registrations ------------------------------------------------------- */

/* 1 when r is a live registration (under event_mutex). */
static int event_reg_live(MPI_T_event_registration r) {
  return hc_mpit_list_find(&event_regs, r, 0);
}

/* MPI_SUCCESS and event_mutex held when r is live; else why, unlocked. */
static int event_reg_enter(MPI_T_event_registration r) {
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  pthread_mutex_lock(&event_mutex);
  if (event_reg_live(r))
    return MPI_SUCCESS;
  pthread_mutex_unlock(&event_mutex);
  return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration) {
  (void)obj_handle; /* the event is bound to no object */
  (void)info;       /* no hints are used */
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  if (event_index != 0)
    return MPI_T_ERR_INVALID_INDEX;
  if (event_registration == NULL)
    return MPI_ERR_ARG;
  struct MPIR_T_event_registration_s *r = calloc(1, sizeof *r);
  if (r == NULL)
    return MPI_T_ERR_OUT_OF_HANDLES;
  r->event_index = event_index;
  pthread_mutex_lock(&event_mutex);
  hc_mpit_list_push(&event_regs, r);
  hc_counters_set_unexpected_cb(event_unexpected);
  pthread_mutex_unlock(&event_mutex);
  *event_registration = r;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_event_handle_alloc, PMPI_T_event_handle_alloc);

static void event_reg_unlink(struct MPIR_T_event_registration_s *r) {
  hc_mpit_list_find(&event_regs, r, 1);
  if (event_regs == NULL)
    hc_counters_set_unexpected_cb(NULL);
}

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration,
                             void *user_data,
                             MPI_T_event_free_cb_function free_cb_function) {
  int rc = event_reg_enter(event_registration);
  if (rc != MPI_SUCCESS)
    return rc;
  struct MPIR_T_event_registration_s *r = event_registration;
  event_reg_unlink(r);
  pthread_mutex_unlock(&event_mutex);
  /* Called from the tool's own thread: any safety level holds here. */
  event_report_drops(r, MPI_T_CB_REQUIRE_NONE, user_data);
  if (free_cb_function != NULL)
    free_cb_function(r, MPI_T_CB_REQUIRE_NONE, user_data);
  free(r);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_event_handle_free, PMPI_T_event_handle_free);

void hc_mpit_event_release_all(void) {
  pthread_mutex_lock(&event_mutex);
  void *r;
  while ((r = hc_mpit_list_pop(&event_regs)) != NULL)
    free(r);
  hc_counters_set_unexpected_cb(NULL);
  pthread_mutex_unlock(&event_mutex);
}

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info,
                                   void *user_data,
                                   MPI_T_event_cb_function event_cb_function) {
  (void)info; /* no hints are used */
  if (cb_safety < MPI_T_CB_REQUIRE_NONE ||
      cb_safety > MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE)
    return hc_mpit_check() != MPI_SUCCESS ? MPI_T_ERR_NOT_INITIALIZED
                                          : MPI_ERR_ARG;
  int rc = event_reg_enter(event_registration);
  if (rc != MPI_SUCCESS)
    return rc;
  /* A NULL function takes the level's callback away. */
  event_registration->callbacks[cb_safety] =
      (event_callback_t){event_cb_function, user_data};
  pthread_mutex_unlock(&event_mutex);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_event_register_callback, PMPI_T_event_register_callback);

int PMPI_T_event_set_dropped_handler(
    MPI_T_event_registration event_registration,
    MPI_T_event_dropped_cb_function dropped_cb_function) {
  int rc = event_reg_enter(event_registration);
  if (rc != MPI_SUCCESS)
    return rc;
  event_registration->dropped_fn = dropped_cb_function;
  pthread_mutex_unlock(&event_mutex);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_event_set_dropped_handler,
              PMPI_T_event_set_dropped_handler);

/* The hints calls: hcmpi uses none, so a set keeps nothing and a get
 * returns a new empty info. */
int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration,
                                 MPI_Info info) {
  (void)info;
  int rc = event_reg_enter(event_registration);
  if (rc == MPI_SUCCESS)
    pthread_mutex_unlock(&event_mutex);
  return rc;
}
HC_WEAK_ALIAS(MPI_T_event_handle_set_info, PMPI_T_event_handle_set_info);

int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration,
                                 MPI_Info *info_used) {
  int rc = event_reg_enter(event_registration);
  if (rc != MPI_SUCCESS)
    return rc;
  pthread_mutex_unlock(&event_mutex);
  return info_used == NULL ? MPI_ERR_ARG : event_new_info(info_used);
}
HC_WEAK_ALIAS(MPI_T_event_handle_get_info, PMPI_T_event_handle_get_info);

int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info) {
  (void)info;
  if (cb_safety < MPI_T_CB_REQUIRE_NONE ||
      cb_safety > MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE)
    return MPI_ERR_ARG;
  int rc = event_reg_enter(event_registration);
  if (rc == MPI_SUCCESS)
    pthread_mutex_unlock(&event_mutex);
  return rc;
}
HC_WEAK_ALIAS(MPI_T_event_callback_set_info, PMPI_T_event_callback_set_info);

int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety,
                                   MPI_Info *info_used) {
  if (cb_safety < MPI_T_CB_REQUIRE_NONE ||
      cb_safety > MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE)
    return MPI_ERR_ARG;
  int rc = event_reg_enter(event_registration);
  if (rc != MPI_SUCCESS)
    return rc;
  pthread_mutex_unlock(&event_mutex);
  return info_used == NULL ? MPI_ERR_ARG : event_new_info(info_used);
}
HC_WEAK_ALIAS(MPI_T_event_callback_get_info, PMPI_T_event_callback_get_info);

/* ---- instances (valid during a callback) --------------------------------- */

static int event_instance_check(MPI_T_event_instance inst) {
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  return inst != NULL && inst->magic == EVENT_INSTANCE_MAGIC
             ? MPI_SUCCESS
             : MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index,
                      void *buffer) {
  int rc = event_instance_check(event_instance);
  if (rc != MPI_SUCCESS)
    return rc;
  if (element_index < 0 || element_index >= EVENT_NELEMENTS)
    return MPI_T_ERR_INVALID_INDEX;
  if (buffer == NULL)
    return MPI_ERR_ARG;
  const struct event_element *e = &event_elements[element_index];
  memcpy(buffer, (const char *)&event_instance->data + e->offset, e->size);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_event_read, PMPI_T_event_read);

int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer) {
  int rc = event_instance_check(event_instance);
  if (rc != MPI_SUCCESS)
    return rc;
  if (buffer == NULL)
    return MPI_ERR_ARG;
  memcpy(buffer, &event_instance->data, sizeof event_instance->data);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_event_copy, PMPI_T_event_copy);

int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance,
                               MPI_Count *event_timestamp) {
  int rc = event_instance_check(event_instance);
  if (rc != MPI_SUCCESS)
    return rc;
  if (event_timestamp == NULL)
    return MPI_ERR_ARG;
  *event_timestamp = event_instance->timestamp;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_event_get_timestamp, PMPI_T_event_get_timestamp);

int PMPI_T_event_get_source(MPI_T_event_instance event_instance,
                            int *source_index) {
  int rc = event_instance_check(event_instance);
  if (rc != MPI_SUCCESS)
    return rc;
  if (source_index == NULL)
    return MPI_ERR_ARG;
  *source_index = 0;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_event_get_source, PMPI_T_event_get_source);
