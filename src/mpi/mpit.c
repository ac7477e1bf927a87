/*
 * MPI_T's life cycle, its strings and enums, and its event sources
 * (mpit.h).  MPI_T_init_thread and MPI_T_finalize are counted and work
 * before MPI_Init and after MPI_Finalize: every variable reads what the
 * engine has (before init its settings and zero counts, after finalize
 * the last counts).
 */
#include "mpi/mpit.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "mpi/weak_alias.h"

static pthread_mutex_t mpit_mutex = PTHREAD_MUTEX_INITIALIZER;
/* How many MPI_T_init_thread calls no MPI_T_finalize matched yet. */
static atomic_int mpit_inits;

int hc_mpit_check(void) {
  return atomic_load(&mpit_inits) > 0 ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED;
}

int hc_mpit_check_arg(const void *out) {
  int rc = hc_mpit_check();
  return rc == MPI_SUCCESS && out == NULL ? MPI_ERR_ARG : rc;
}

void hc_mpit_lock(void) { pthread_mutex_lock(&mpit_mutex); }
void hc_mpit_unlock(void) { pthread_mutex_unlock(&mpit_mutex); }

void hc_mpit_string(const char *text, char *buf, int *len) {
  if (len == NULL)
    return;
  size_t need = strlen(text);
  if (buf == NULL || *len <= 0) {
    *len = (int)need + 1;
    return;
  }
  size_t n = need < (size_t)*len - 1 ? need : (size_t)*len - 1;
  memcpy(buf, text, n);
  buf[n] = '\0';
  *len = (int)n + 1;
}

void hc_mpit_list_push(hc_mpit_node_t **head, void *object) {
  hc_mpit_node_t *node = object;
  node->next = *head;
  *head = node;
}

int hc_mpit_list_find(hc_mpit_node_t **head, const void *object, int unlink) {
  for (hc_mpit_node_t **p = head; *p != NULL; p = &(*p)->next) {
    if (*p == object) {
      if (unlink)
        *p = (*p)->next;
      return 1;
    }
  }
  return 0;
}

void *hc_mpit_list_pop(hc_mpit_node_t **head) {
  hc_mpit_node_t *node = *head;
  if (node != NULL)
    *head = node->next;
  return node;
}

MPI_Count hc_mpit_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (MPI_Count)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int PMPI_T_init_thread(int required, int *provided) {
  if (provided == NULL)
    return MPI_ERR_ARG;
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
    return MPI_ERR_ARG;
  hc_mpit_lock();
  atomic_fetch_add(&mpit_inits, 1);
  hc_mpit_unlock();
  /* Every MPI_T call takes its own locks: any level is provided. */
  *provided = required;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_init_thread, PMPI_T_init_thread);

int PMPI_T_finalize(void) {
  hc_mpit_lock();
  int rc = hc_mpit_check();
  if (rc == MPI_SUCCESS && atomic_fetch_sub(&mpit_inits, 1) == 1) {
    /* The last one: what tools left allocated goes. */
    hc_mpit_cvar_release_all();
    hc_mpit_pvar_release_all();
    hc_mpit_event_release_all();
  }
  hc_mpit_unlock();
  return rc;
}
HC_WEAK_ALIAS(MPI_T_finalize, PMPI_T_finalize);

/* ---- enums ------------------------------------------------------------- */

struct MPIR_T_enum_s {
  const char *name;
  int count;
  const int *values;
  const char *const *names;
};

static const int mpit_bool_values[] = {0, 1};
static const char *const mpit_bool_names[] = {"off", "on"};
static struct MPIR_T_enum_s mpit_bool = {"hcmpi_bool", 2, mpit_bool_values,
                                         mpit_bool_names};

MPI_T_enum hc_mpit_enum_bool(void) { return &mpit_bool; }

/* MPI_SUCCESS when e is an enum of the library's (it has only these). */
static int mpit_enum_check(MPI_T_enum e) {
  int rc = hc_mpit_check();
  return rc == MPI_SUCCESS && e != &mpit_bool ? MPI_T_ERR_INVALID_HANDLE : rc;
}

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name,
                         int *name_len) {
  int rc = mpit_enum_check(enumtype);
  if (rc != MPI_SUCCESS)
    return rc;
  const struct MPIR_T_enum_s *e = enumtype;
  if (num != NULL)
    *num = e->count;
  hc_mpit_string(e->name, name, name_len);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_enum_get_info, PMPI_T_enum_get_info);

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name,
                         int *name_len) {
  int rc = mpit_enum_check(enumtype);
  if (rc != MPI_SUCCESS)
    return rc;
  const struct MPIR_T_enum_s *e = enumtype;
  if (indx < 0 || indx >= e->count)
    return MPI_T_ERR_INVALID_INDEX;
  if (value != NULL)
    *value = e->values[indx];
  hc_mpit_string(e->names[indx], name, name_len);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_enum_get_item, PMPI_T_enum_get_item);

/* ---- event sources: one, the process's monotonic clock ------------------ */

int PMPI_T_source_get_num(int *num_sources) {
  int rc = hc_mpit_check_arg(num_sources);
  if (rc != MPI_SUCCESS)
    return rc;
  *num_sources = 1;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_source_get_num, PMPI_T_source_get_num);

int PMPI_T_source_get_info(int source_index, char *name, int *name_len,
                           char *desc, int *desc_len,
                           MPI_T_source_order *ordering,
                           MPI_Count *ticks_per_second, MPI_Count *max_ticks,
                           MPI_Info *info) {
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  if (source_index != 0)
    return MPI_T_ERR_INVALID_INDEX;
  hc_mpit_string("hcmpi_engine", name, name_len);
  hc_mpit_string("the engine of this process: events are raised in its "
                 "progress, in order, stamped with CLOCK_MONOTONIC in ns",
                 desc, desc_len);
  if (ordering != NULL)
    *ordering = MPI_T_SOURCE_ORDERED;
  if (ticks_per_second != NULL)
    *ticks_per_second = 1000000000;
  if (max_ticks != NULL)
    *max_ticks = (MPI_Count)(~0UL >> 1);
  if (info != NULL)
    return PMPI_Info_create(info) == MPI_SUCCESS ? MPI_SUCCESS
                                                 : MPI_T_ERR_MEMORY;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_source_get_info, PMPI_T_source_get_info);

int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp) {
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  if (source_index != 0)
    return MPI_T_ERR_INVALID_INDEX;
  if (timestamp == NULL)
    return MPI_ERR_ARG;
  *timestamp = hc_mpit_now();
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_source_get_timestamp, PMPI_T_source_get_timestamp);
