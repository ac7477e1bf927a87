/*
 * Categories: one per layer of the library (mpit.h's list), all under a
 * root "hcmpi".  A category lists the variables and events whose own
 * category it is; the per-transport performance variables appear once
 * their transport started, and MPI_T_category_changed counts such
 * additions.
 */
#include <stdatomic.h>
#include <string.h>

#include "mpi/mpit.h"
#include "mpi/weak_alias.h"

static const struct category {
  const char *name;
  const char *desc;
} categories[HC_MPIT_NCATEGORIES] = {
    [HC_MPIT_CAT_ROOT] = {"hcmpi", "the hcmpi library: one category per layer"},
    [HC_MPIT_CAT_DIAGNOSTICS] = {"hcmpi_diagnostics",
                                 "logging, tracing, hang detection"},
    [HC_MPIT_CAT_BOOTSTRAP] = {"hcmpi_bootstrap",
                               "how ranks find each other (PMI, PMIx)"},
    [HC_MPIT_CAT_ENGINE] = {"hcmpi_engine",
                            "matching, protocols (eager, rendezvous) and "
                            "progress"},
    [HC_MPIT_CAT_COLLECTIVES] = {"hcmpi_collectives",
                                 "choice of collective algorithms"},
    [HC_MPIT_CAT_SELF] = {"hcmpi_transport_self",
                          "messages a rank sends itself"},
    [HC_MPIT_CAT_SHM] = {"hcmpi_transport_shm",
                         "shared memory between the ranks of a node"},
    [HC_MPIT_CAT_TCP] = {"hcmpi_transport_tcp", "TCP sockets"},
    [HC_MPIT_CAT_VERBS] = {"hcmpi_transport_verbs", "InfiniBand and RoCE"},
    [HC_MPIT_CAT_DEVICE] = {"hcmpi_device",
                            "accelerator buffers and their data paths"},
    [HC_MPIT_CAT_LAUNCHER] = {"hcmpi_launcher",
                              "hcmpirun and the compiler wrappers (read by "
                              "them, shown here)"},
};

static atomic_int category_updates;

void hc_mpit_category_touch(void) { atomic_fetch_add(&category_updates, 1); }

int hc_mpit_category_of_transport(const char *name) {
  static const char *const names[] = {"self", "shm", "tcp", "verbs"};
  for (int i = 0; i < 4; i++)
    if (strcmp(names[i], name) == 0)
      return HC_MPIT_CAT_SELF + i;
  return HC_MPIT_CAT_ENGINE;
}

/* What a category holds, by kind. */
typedef enum category_kind {
  KIND_CVAR,
  KIND_PVAR,
  KIND_CATEGORY,
  KIND_EVENT
} category_kind_t;

static int category_count_of(category_kind_t kind) {
  switch (kind) {
  case KIND_CVAR:
    return hc_mpit_cvar_count();
  case KIND_PVAR:
    return hc_mpit_pvar_count();
  case KIND_CATEGORY:
    return HC_MPIT_NCATEGORIES;
  default:
    return hc_mpit_event_count();
  }
}

static int category_parent_of(category_kind_t kind, int index) {
  switch (kind) {
  case KIND_CVAR:
    return hc_mpit_cvar_category(index);
  case KIND_PVAR:
    return hc_mpit_pvar_category(index);
  case KIND_CATEGORY:
    return index == HC_MPIT_CAT_ROOT ? -1 : HC_MPIT_CAT_ROOT;
  default:
    return hc_mpit_event_category(index);
  }
}

/* Up to len indices of what cat holds of kind into out (NULL: none); how
 * many it holds in all.  Under the MPI_T lock. */
static int category_members(int cat, category_kind_t kind, int len, int *out) {
  int n = 0;
  int total = category_count_of(kind);
  for (int i = 0; i < total; i++) {
    if (category_parent_of(kind, i) != cat)
      continue;
    if (out != NULL && n < len)
      out[n] = i;
    n++;
  }
  return n;
}

int PMPI_T_category_get_num(int *num_cat) {
  int rc = hc_mpit_check_arg(num_cat);
  if (rc != MPI_SUCCESS)
    return rc;
  *num_cat = HC_MPIT_NCATEGORIES;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_category_get_num, PMPI_T_category_get_num);

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len,
                             char *desc, int *desc_len, int *num_cvars,
                             int *num_pvars, int *num_categories) {
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  if (cat_index < 0 || cat_index >= HC_MPIT_NCATEGORIES)
    return MPI_T_ERR_INVALID_INDEX;
  hc_mpit_string(categories[cat_index].name, name, name_len);
  hc_mpit_string(categories[cat_index].desc, desc, desc_len);
  hc_mpit_lock();
  if (num_cvars != NULL)
    *num_cvars = category_members(cat_index, KIND_CVAR, 0, NULL);
  if (num_pvars != NULL)
    *num_pvars = category_members(cat_index, KIND_PVAR, 0, NULL);
  if (num_categories != NULL)
    *num_categories = category_members(cat_index, KIND_CATEGORY, 0, NULL);
  hc_mpit_unlock();
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_category_get_info, PMPI_T_category_get_info);

int PMPI_T_category_get_num_events(int cat_index, int *num_events) {
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  if (cat_index < 0 || cat_index >= HC_MPIT_NCATEGORIES)
    return MPI_T_ERR_INVALID_INDEX;
  if (num_events == NULL)
    return MPI_ERR_ARG;
  hc_mpit_lock();
  *num_events = category_members(cat_index, KIND_EVENT, 0, NULL);
  hc_mpit_unlock();
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_category_get_num_events, PMPI_T_category_get_num_events);

int PMPI_T_category_get_index(const char *name, int *cat_index) {
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  if (name == NULL || cat_index == NULL)
    return MPI_ERR_ARG;
  for (int i = 0; i < HC_MPIT_NCATEGORIES; i++) {
    if (strcmp(categories[i].name, name) == 0) {
      *cat_index = i;
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}
HC_WEAK_ALIAS(MPI_T_category_get_index, PMPI_T_category_get_index);

static int category_list(int cat_index, category_kind_t kind, int len,
                         int indices[]) {
  int rc = hc_mpit_check();
  if (rc != MPI_SUCCESS)
    return rc;
  if (cat_index < 0 || cat_index >= HC_MPIT_NCATEGORIES)
    return MPI_T_ERR_INVALID_INDEX;
  if (len < 0 || (len > 0 && indices == NULL))
    return MPI_ERR_ARG;
  hc_mpit_lock();
  category_members(cat_index, kind, len, indices);
  hc_mpit_unlock();
  return MPI_SUCCESS;
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  return category_list(cat_index, KIND_CVAR, len, indices);
}
HC_WEAK_ALIAS(MPI_T_category_get_cvars, PMPI_T_category_get_cvars);

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  return category_list(cat_index, KIND_PVAR, len, indices);
}
HC_WEAK_ALIAS(MPI_T_category_get_pvars, PMPI_T_category_get_pvars);

int PMPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  return category_list(cat_index, KIND_CATEGORY, len, indices);
}
HC_WEAK_ALIAS(MPI_T_category_get_categories, PMPI_T_category_get_categories);

int PMPI_T_category_get_events(int cat_index, int len, int indices[]) {
  return category_list(cat_index, KIND_EVENT, len, indices);
}
HC_WEAK_ALIAS(MPI_T_category_get_events, PMPI_T_category_get_events);

int PMPI_T_category_changed(int *update_number) {
  int rc = hc_mpit_check_arg(update_number);
  if (rc != MPI_SUCCESS)
    return rc;
  /* Brings the variables up to date first: a transport may have started. */
  hc_mpit_lock();
  (void)hc_mpit_pvar_count();
  hc_mpit_unlock();
  *update_number = atomic_load(&category_updates);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_T_category_changed, PMPI_T_category_changed);
