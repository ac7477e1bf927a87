/*
 * Control variables: one per entry of the environment table
 * (hc_env_table), in its order, named as the variable.  Their types come
 * from the table: a numeric variable (hc_env_bounds) whose default is a
 * number is MPI_INT (whole numbers) or MPI_UNSIGNED_LONG_LONG (sizes in
 * bytes); one whose default is 0 or 1 is an MPI_INT with the on/off enum;
 * the rest are strings.  A read gives the value in force: for the
 * settings the engine lets change at run time (hcomm/counters.h) the
 * engine's, else the environment's or the default.  Only those settings
 * are writable; the rest are read once at MPI_Init and say
 * MPI_T_ERR_CVAR_SET_NEVER.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm/counters.h"
#include "mpi/mpit.h"
#include "mpi/weak_alias.h"
#include "util/cpu_profile.h"
#include "util/env.h"
#include "util/envtable.h"

/* Longest string value a read returns, with its NUL. */
#define CVAR_STRING_MAX 256

typedef enum cvar_kind {
  CVAR_INT,
  CVAR_SIZE,
  CVAR_BOOL,
  CVAR_STRING
} cvar_kind_t;

/* The settings a tool may change while the program runs, and for whom. */
static const struct cvar_writable {
  const char *name;
  hc_setting_t setting;
  int scope;
} cvar_writable[] = {
    /* Each process decides its own sends' protocol; receivers follow what
     * the packet says. */
    {"HCMPI_EAGER_LIMIT", HC_SETTING_EAGER_LIMIT, MPI_T_SCOPE_LOCAL},
    {"HCMPI_SPIN", HC_SETTING_SPIN, MPI_T_SCOPE_LOCAL},
    {"HCMPI_WAIT_MS", HC_SETTING_WAIT_MS, MPI_T_SCOPE_LOCAL},
    {"HCMPI_HANG_TIMEOUT", HC_SETTING_HANG_TIMEOUT, MPI_T_SCOPE_LOCAL},
    /* Every rank must pick the same schedule for a collective. */
    {"HCMPI_COLL_BCAST_LARGE", HC_SETTING_COLL_BCAST_LARGE, MPI_T_SCOPE_ALL_EQ},
    {"HCMPI_COLL_ALLREDUCE_LARGE", HC_SETTING_COLL_ALLREDUCE_LARGE,
     MPI_T_SCOPE_ALL_EQ},
    {"HCMPI_COLL_ALLGATHER_LARGE", HC_SETTING_COLL_ALLGATHER_LARGE,
     MPI_T_SCOPE_ALL_EQ},
    {"HCMPI_COLL_ALLTOALL_LINEAR", HC_SETTING_COLL_ALLTOALL_LINEAR,
     MPI_T_SCOPE_ALL_EQ},
    {"HCMPI_COLL_ALLTOALL_BRUCK", HC_SETTING_COLL_ALLTOALL_BRUCK,
     MPI_T_SCOPE_ALL_EQ},
    {"HCMPI_COLL_GATHER_LINEAR_MAX", HC_SETTING_COLL_GATHER_LINEAR_MAX,
     MPI_T_SCOPE_ALL_EQ},
};

struct MPIR_T_cvar_handle_s {
  hc_mpit_node_t node; /* on cvar_handles */
  int index;
};

/* Every live handle, for the checks and finalize; under the MPI_T lock. */
static hc_mpit_node_t *cvar_handles;

static const struct cvar_writable *cvar_setting(const char *name) {
  for (size_t i = 0; i < sizeof cvar_writable / sizeof cvar_writable[0]; i++)
    if (strcmp(cvar_writable[i].name, name) == 0)
      return &cvar_writable[i];
  return NULL;
}

static const hc_env_bounds_t *cvar_bounds(const char *name) {
  for (size_t i = 0; i < hc_env_bounds_count; i++)
    if (strcmp(hc_env_bounds[i].name, name) == 0)
      return &hc_env_bounds[i];
  return NULL;
}

static cvar_kind_t cvar_kind(int index) {
  const hc_env_entry_t *e = &hc_env_table[index];
  const hc_env_bounds_t *b = cvar_bounds(e->name);
  long whole;
  size_t bytes;
  if (b != NULL && b->is_size &&
      (hc_env_parse_size(e->fallback, &bytes) == 0 ||
       hc_cpu_profile_default(e->name, &bytes) == 0))
    return CVAR_SIZE;
  if (b != NULL && hc_env_parse_long(e->fallback, &whole) == 0)
    return CVAR_INT;
  if (strcmp(e->fallback, "0") == 0 || strcmp(e->fallback, "1") == 0)
    return CVAR_BOOL;
  return CVAR_STRING;
}

int hc_mpit_cvar_count(void) { return (int)hc_env_table_count; }

int hc_mpit_cvar_category(int index) {
  static const struct {
    const char *prefix;
    int category;
  } rules[] = {
      {"HCMPI_LOG", HC_MPIT_CAT_DIAGNOSTICS},
      {"HCMPI_TRACE", HC_MPIT_CAT_DIAGNOSTICS},
      {"HCMPI_HANG", HC_MPIT_CAT_DIAGNOSTICS},
      {"HCMPI_CHECK_COLL", HC_MPIT_CAT_COLLECTIVES},
      {"HCMPI_COLL_", HC_MPIT_CAT_COLLECTIVES},
      {"HCMPI_BOOTSTRAP", HC_MPIT_CAT_BOOTSTRAP},
      {"HCMPI_PMIX", HC_MPIT_CAT_BOOTSTRAP},
      {"HCMPI_NODE_ID", HC_MPIT_CAT_BOOTSTRAP},
      {"HCMPI_SHM_", HC_MPIT_CAT_SHM},
      {"HCMPI_TCP_", HC_MPIT_CAT_TCP},
      {"HCMPI_JOB_SECRET", HC_MPIT_CAT_TCP},
      {"HCMPI_VERBS_", HC_MPIT_CAT_VERBS},
      {"HCMPI_IB_", HC_MPIT_CAT_VERBS},
      {"HCMPI_MEMHOOKS", HC_MPIT_CAT_VERBS},
      {"HCMPI_DEVICE", HC_MPIT_CAT_DEVICE},
      {"HCMPI_ACL_", HC_MPIT_CAT_DEVICE},
      {"HCMPI_CUDA_", HC_MPIT_CAT_DEVICE},
      {"HCMPI_HCCL_", HC_MPIT_CAT_DEVICE},
      {"HCMPI_HCOMM_", HC_MPIT_CAT_DEVICE},
  };
  const hc_env_entry_t *e = &hc_env_table[index];
  if (strcmp(e->scope, "library") != 0)
    return HC_MPIT_CAT_LAUNCHER;
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    if (strncmp(e->name, rules[i].prefix, strlen(rules[i].prefix)) == 0)
      return rules[i].category;
  return HC_MPIT_CAT_ENGINE;
}

static MPI_Datatype cvar_datatype(cvar_kind_t kind) {
  switch (kind) {
  case CVAR_SIZE:
    return MPI_UNSIGNED_LONG_LONG;
  case CVAR_STRING:
    return MPI_CHAR;
  default:
    return MPI_INT;
  }
}

static int cvar_scope(int index) {
  const hc_env_entry_t *e = &hc_env_table[index];
  const struct cvar_writable *w = cvar_setting(e->name);
  if (w != NULL)
    return w->scope;
  /* Read by another program (hcmpirun, the wrappers): fixed here. */
  return strcmp(e->scope, "library") == 0 ? MPI_T_SCOPE_READONLY
                                          : MPI_T_SCOPE_CONSTANT;
}

static int cvar_verbosity(int index) {
  const hc_env_entry_t *e = &hc_env_table[index];
  if (cvar_setting(e->name) != NULL)
    return MPI_T_VERBOSITY_TUNER_BASIC;
  return strcmp(e->scope, "library") == 0 ? MPI_T_VERBOSITY_USER_DETAIL
                                          : MPI_T_VERBOSITY_USER_ALL;
}

int PMPI_T_cvar_get_num(int *num_cvar) {
  int rc = hc_mpit_check_arg(num_cvar);
  if (rc != MPI_SUCCESS)
    return rc;
  *num_cvar = hc_mpit_cvar_count();
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_cvar_get_num, PMPI_T_cvar_get_num);

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len,
                         int *verbosity, MPI_Datatype *datatype,
                         MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope) {
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  if (cvar_index < 0 || cvar_index >= hc_mpit_cvar_count())
    return MPI_T_ERR_INVALID_INDEX;
  const hc_env_entry_t *e = &hc_env_table[cvar_index];
  cvar_kind_t kind = cvar_kind(cvar_index);
  hc_mpit_string(e->name, name, name_len);
  hc_mpit_string(e->meaning, desc, desc_len);
  if (verbosity != NULL)
    *verbosity = cvar_verbosity(cvar_index);
  if (datatype != NULL)
    *datatype = cvar_datatype(kind);
  if (enumtype != NULL)
    *enumtype = kind == CVAR_BOOL ? hc_mpit_enum_bool() : MPI_T_ENUM_NULL;
  if (bind != NULL)
    *bind = MPI_T_BIND_NO_OBJECT;
  if (scope != NULL)
    *scope = cvar_scope(cvar_index);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_cvar_get_info, PMPI_T_cvar_get_info);

int PMPI_T_cvar_get_index(const char *name, int *cvar_index) {
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  if (name == NULL || cvar_index == NULL)
    return MPI_ERR_ARG;
  for (int i = 0; i < hc_mpit_cvar_count(); i++) {
    if (strcmp(hc_env_table[i].name, name) == 0) {
      *cvar_index = i;
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}
HC_WEAK_ALIAS(MPI_T_cvar_get_index, PMPI_T_cvar_get_index);

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle,
                             MPI_T_cvar_handle *handle, int *count) {
  (void)obj_handle; /* every variable is bound to no object */
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  if (cvar_index < 0 || cvar_index >= hc_mpit_cvar_count())
    return MPI_T_ERR_INVALID_INDEX;
  if (handle == NULL || count == NULL)
    return MPI_ERR_ARG;
  struct MPIR_T_cvar_handle_s *h = malloc(sizeof *h);
  if (h == NULL)
    return MPI_T_ERR_MEMORY;
  h->index = cvar_index;
  hc_mpit_lock();
  hc_mpit_list_push(&cvar_handles, h);
  hc_mpit_unlock();
  *count = cvar_kind(cvar_index) == CVAR_STRING ? CVAR_STRING_MAX : 1;
  *handle = h;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_cvar_handle_alloc, PMPI_T_cvar_handle_alloc);

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle) {
  int rc = hc_mpit_check_arg(handle);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpit_lock();
  int found = hc_mpit_list_find(&cvar_handles, *handle, 1);
  hc_mpit_unlock();
  if (!found)
    return MPI_T_ERR_INVALID_HANDLE;
  free(*handle);
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_cvar_handle_free, PMPI_T_cvar_handle_free);

void hc_mpit_cvar_release_all(void) {
  void *h;
  while ((h = hc_mpit_list_pop(&cvar_handles)) != NULL)
    free(h);
}

/* The handle's variable, or -1 when handle is not a live handle. */
static int cvar_handle_index(MPI_T_cvar_handle handle) {
  int index = -1;
  hc_mpit_lock();
  if (hc_mpit_list_find(&cvar_handles, handle, 0))
    index = handle->index;
  hc_mpit_unlock();
  return index;
}

/* The text in force: what the environment says, else the default; the
 * job's secret is never shown. */
static const char *cvar_text(const hc_env_entry_t *e) {
  const char *set = hc_env_string(e->name, NULL);
  if (set != NULL && strcmp(e->name, "HCMPI_JOB_SECRET") == 0)
    return "(set, not shown)";
  return set != NULL ? set : e->fallback;
}

static long long cvar_number(int index, cvar_kind_t kind) {
  const hc_env_entry_t *e = &hc_env_table[index];
  const struct cvar_writable *w = cvar_setting(e->name);
  long long value;
  if (w != NULL && hc_setting_get(w->setting, &value) == HC_OK)
    return value;
  long fallback = 0;
  size_t bytes = 0;
  if (kind == CVAR_SIZE) {
    /* "auto: ...": the processor's default. */
    if (hc_env_parse_size(e->fallback, &bytes) != 0)
      hc_cpu_profile_default(e->name, &bytes);
    return (long long)hc_env_size(e->name, bytes);
  }
  if (kind == CVAR_BOOL)
    return hc_env_bool(e->name, strcmp(e->fallback, "1") == 0);
  hc_env_parse_long(e->fallback, &fallback);
  return hc_env_long(e->name, fallback);
}

/* The head of read and write: MPI_SUCCESS and *index for a live handle
 * and a buffer. */
static int cvar_enter(MPI_T_cvar_handle handle, const void *buf, int *index) {
  int rc = hc_mpit_check_arg(buf);
  if (rc != MPI_SUCCESS)
    return rc;
  *index = cvar_handle_index(handle);
  return *index < 0 ? MPI_T_ERR_INVALID_HANDLE : MPI_SUCCESS;
}

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf) {
  int index;
  int rc = cvar_enter(handle, buf, &index);
  if (rc != MPI_SUCCESS)
    return rc;
  cvar_kind_t kind = cvar_kind(index);
  if (kind == CVAR_STRING) {
    int len = CVAR_STRING_MAX;
    hc_mpit_string(cvar_text(&hc_env_table[index]), buf, &len);
  } else if (kind == CVAR_SIZE) {
    unsigned long long v = (unsigned long long)cvar_number(index, kind);
    memcpy(buf, &v, sizeof v);
  } else {
    int v = (int)cvar_number(index, kind);
    memcpy(buf, &v, sizeof v);
  }
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_cvar_read, PMPI_T_cvar_read);

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf) {
  int index;
  int rc = cvar_enter(handle, buf, &index);
  if (rc != MPI_SUCCESS)
    return rc;
  const struct cvar_writable *w = cvar_setting(hc_env_table[index].name);
  if (w == NULL)
    return MPI_T_ERR_CVAR_SET_NEVER;
  cvar_kind_t kind = cvar_kind(index);
  long long value;
  if (kind == CVAR_SIZE) {
    unsigned long long v;
    memcpy(&v, buf, sizeof v);
    value = v > (unsigned long long)LLONG_MAX ? LLONG_MAX : (long long)v;
  } else {
    int v;
    memcpy(&v, buf, sizeof v);
    value = v;
  }
  const hc_env_bounds_t *b = cvar_bounds(w->name);
  if (b != NULL && (value < b->min || value > b->max))
    return MPI_T_ERR_INVALID;
  return hc_setting_set(w->setting, value) == HC_OK
             ? MPI_SUCCESS
             : MPI_T_ERR_CVAR_SET_NOT_NOW;
}
HC_WEAK_ALIAS(MPI_T_cvar_write, PMPI_T_cvar_write);
