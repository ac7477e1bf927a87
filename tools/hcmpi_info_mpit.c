/*
 * hcmpi_info --mpit: every control variable, performance variable,
 * category and event the tool interface offers, read through MPI_T
 * itself.  MPI is initialised first (as a singleton outside a launcher),
 * so the variables of the transports that start are listed too.
 */
#include <stdio.h>
#include <string.h>

#include "mpi.h"
#include "tools/hcmpi_info_mpit.h"

#define MPIT_TEXT 512

static const char *mpit_type(MPI_Datatype t) {
  if (t == MPI_INT)
    return "int";
  if (t == MPI_UNSIGNED_LONG_LONG)
    return "unsigned long long";
  if (t == MPI_DOUBLE)
    return "double";
  if (t == MPI_COUNT)
    return "MPI_Count";
  return t == MPI_CHAR ? "char" : "?";
}

static const char *mpit_scope(int scope) {
  static const char *const names[] = {"constant", "readonly", "local", "group",
                                      "group_eq", "all",      "all_eq"};
  int i = scope - MPI_T_SCOPE_CONSTANT;
  return i >= 0 && i < 7 ? names[i] : "?";
}

static const char *mpit_class(int var_class) {
  static const char *const names[] = {
      "state",        "level",   "size",      "percentage", "highwatermark",
      "lowwatermark", "counter", "aggregate", "timer",      "generic"};
  int i = var_class - MPI_T_PVAR_CLASS_STATE;
  return i >= 0 && i < 10 ? names[i] : "?";
}

/* The value of cvar i as text. */
static void mpit_cvar_value(int i, MPI_Datatype type, char *out, size_t len) {
  MPI_T_cvar_handle h;
  int count;
  char buf[MPIT_TEXT];
  snprintf(out, len, "?");
  if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS)
    return;
  if (count <= (int)sizeof buf && MPI_T_cvar_read(h, buf) == MPI_SUCCESS) {
    if (type == MPI_CHAR)
      snprintf(out, len, "%s", buf);
    else if (type == MPI_INT)
      snprintf(out, len, "%d", *(int *)(void *)buf);
    else
      snprintf(out, len, "%llu", *(unsigned long long *)(void *)buf);
  }
  MPI_T_cvar_handle_free(&h);
}

static void mpit_cvars(void) {
  int n = 0;
  MPI_T_cvar_get_num(&n);
  printf("\n[mpit control variables] %d\n", n);
  for (int i = 0; i < n; i++) {
    char name[MPIT_TEXT], desc[MPIT_TEXT], value[MPIT_TEXT];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope;
    MPI_Datatype type;
    MPI_T_enum e;
    MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &e, desc,
                        &desc_len, &bind, &scope);
    mpit_cvar_value(i, type, value, sizeof value);
    printf("  %-30s %-18s %-8s %s\n", name, mpit_type(type), mpit_scope(scope),
           value);
  }
}

static void mpit_pvars(void) {
  int n = 0;
  MPI_T_pvar_get_num(&n);
  printf("\n[mpit performance variables] %d\n", n);
  for (int i = 0; i < n; i++) {
    char name[MPIT_TEXT], desc[MPIT_TEXT];
    int name_len = sizeof name, desc_len = sizeof desc;
    int verbosity, var_class, bind, readonly, continuous, atomic;
    MPI_Datatype type;
    MPI_T_enum e;
    MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &type, &e,
                        desc, &desc_len, &bind, &readonly, &continuous,
                        &atomic);
    printf("  %-34s %-13s %-18s %s%s: %s\n", name, mpit_class(var_class),
           mpit_type(type), continuous ? "continuous" : "start/stop",
           readonly ? ", read-only" : "", desc);
  }
}

static void mpit_categories(void) {
  int n = 0;
  MPI_T_category_get_num(&n);
  printf("\n[mpit categories] %d\n", n);
  for (int i = 0; i < n; i++) {
    char name[MPIT_TEXT], desc[MPIT_TEXT];
    int name_len = sizeof name, desc_len = sizeof desc;
    int ncvars, npvars, ncats, nevents = 0;
    MPI_T_category_get_info(i, name, &name_len, desc, &desc_len, &ncvars,
                            &npvars, &ncats);
    MPI_T_category_get_num_events(i, &nevents);
    printf("  %-24s %d cvars, %d pvars, %d categories, %d events: %s\n", name,
           ncvars, npvars, ncats, nevents, desc);
  }
}

static void mpit_events(void) {
  int n = 0;
  MPI_T_event_get_num(&n);
  printf("\n[mpit events] %d\n", n);
  for (int i = 0; i < n; i++) {
    char name[MPIT_TEXT], desc[MPIT_TEXT];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind;
    int nelem = 16;
    MPI_Datatype types[16];
    MPI_Aint displs[16];
    MPI_T_enum e;
    MPI_T_event_get_info(i, name, &name_len, &verbosity, types, displs, &nelem,
                         &e, NULL, desc, &desc_len, &bind);
    printf("  %-24s %d elements (", name, nelem);
    for (int k = 0; k < nelem && k < 16; k++)
      printf("%s%s", k ? ", " : "", mpit_type(types[k]));
    printf("): %s\n", desc);
  }
}

int hc_info_mpit(void) {
  int provided;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "hcmpi_info: MPI_T_init_thread failed\n");
    return 1;
  }
  int mpi = MPI_Init(NULL, NULL) == MPI_SUCCESS;
  mpit_cvars();
  mpit_pvars();
  mpit_categories();
  mpit_events();
  if (mpi)
    MPI_Finalize();
  MPI_T_finalize();
  return 0;
}
