/*
 * Standard-ABI calls written by hand that need no callback: the ABI
 * queries of MPI-5.0 section 20 (MPI_Abi_*), the integer conversions of
 * handles (MPI_x_toint/fromint), and calls whose arrays or attribute
 * values hold constants of their own.
 */
#include "abi/abi_impl.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- ABI information ---- */
int PMPI_Abi_get_version(int *abi_major, int *abi_minor) {
  if (!abi_major || !abi_minor)
    return MPI_ERR_ARG;
  *abi_major = MPI_ABI_VERSION;
  *abi_minor = MPI_ABI_SUBVERSION;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Abi_get_version, PMPI_Abi_get_version);

static int abi_info_set_int(int info, const char *key, long value) {
  char text[24];
  snprintf(text, sizeof text, "%ld", value);
  return hc_mpich.Info_set(info, key, text);
}

/* The sizes of the integer types, the keys the standard names. */
int PMPI_Abi_get_info(MPI_Info *info) {
  if (!info)
    return MPI_ERR_ARG;
  int m = 0;
  int rc = hc_mpich.Info_create(&m);
  if (rc == 0)
    rc = abi_info_set_int(m, "mpi_aint_size", (long)sizeof(MPI_Aint));
  if (rc == 0)
    rc = abi_info_set_int(m, "mpi_count_size", (long)sizeof(MPI_Count));
  if (rc == 0)
    rc = abi_info_set_int(m, "mpi_offset_size", (long)sizeof(MPI_Offset));
  if (rc != 0) {
    if (m)
      hc_mpich.Info_free(&m);
    return hc_abi_err_out(rc);
  }
  *info = hc_abi_info_out(m);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Abi_get_info, PMPI_Abi_get_info);

/* Fortran: libmpi_abi has no Fortran bindings of its own, so it knows
 * what a Fortran layer over it sets once (MPI_Abi_set_fortran_*), and
 * nothing before that. */
static pthread_mutex_t abi_fortran_lock = PTHREAD_MUTEX_INITIALIZER;
static int abi_fortran_info = 0; /* libhcmpi's handle; 0 while unset */
static int abi_fortran_booleans_set;
static int abi_logical_size;
static unsigned char abi_logical_true[16], abi_logical_false[16];

int PMPI_Abi_set_fortran_info(MPI_Info info) {
  int m = hc_abi_info_in(info), dup = 0, rc = MPI_ERR_ABI;
  pthread_mutex_lock(&abi_fortran_lock);
  if (!abi_fortran_info) {
    rc = hc_abi_err_out(hc_mpich.Info_dup(m, &dup));
    if (rc == MPI_SUCCESS)
      abi_fortran_info = dup;
  }
  pthread_mutex_unlock(&abi_fortran_lock);
  return rc;
}
HC_WEAK_ALIAS(MPI_Abi_set_fortran_info, PMPI_Abi_set_fortran_info);

int PMPI_Abi_get_fortran_info(MPI_Info *info) {
  if (!info)
    return MPI_ERR_ARG;
  int rc = MPI_SUCCESS, dup = 0;
  pthread_mutex_lock(&abi_fortran_lock);
  if (!abi_fortran_info)
    *info = MPI_INFO_NULL;
  else if ((rc = hc_abi_err_out(hc_mpich.Info_dup(abi_fortran_info, &dup))) ==
           MPI_SUCCESS)
    *info = hc_abi_info_out(dup);
  pthread_mutex_unlock(&abi_fortran_lock);
  return rc;
}
HC_WEAK_ALIAS(MPI_Abi_get_fortran_info, PMPI_Abi_get_fortran_info);

int PMPI_Abi_set_fortran_booleans(int logical_size, void *logical_true,
                                  void *logical_false) {
  if (logical_size < 1 || logical_size > (int)sizeof abi_logical_true ||
      !logical_true || !logical_false)
    return MPI_ERR_ARG;
  int rc = MPI_ERR_ABI;
  pthread_mutex_lock(&abi_fortran_lock);
  if (!abi_fortran_booleans_set) {
    abi_logical_size = logical_size;
    memcpy(abi_logical_true, logical_true, (size_t)logical_size);
    memcpy(abi_logical_false, logical_false, (size_t)logical_size);
    abi_fortran_booleans_set = 1;
    rc = MPI_SUCCESS;
  }
  pthread_mutex_unlock(&abi_fortran_lock);
  return rc;
}
HC_WEAK_ALIAS(MPI_Abi_set_fortran_booleans, PMPI_Abi_set_fortran_booleans);

int PMPI_Abi_get_fortran_booleans(int logical_size, void *logical_true,
                                  void *logical_false, int *is_set) {
  if (!logical_true || !logical_false || !is_set)
    return MPI_ERR_ARG;
  int rc = MPI_SUCCESS;
  pthread_mutex_lock(&abi_fortran_lock);
  *is_set = abi_fortran_booleans_set && logical_size == abi_logical_size;
  if (abi_fortran_booleans_set && logical_size != abi_logical_size)
    rc = MPI_ERR_ARG;
  if (*is_set) {
    memcpy(logical_true, abi_logical_true, (size_t)logical_size);
    memcpy(logical_false, abi_logical_false, (size_t)logical_size);
  }
  pthread_mutex_unlock(&abi_fortran_lock);
  return rc;
}
HC_WEAK_ALIAS(MPI_Abi_get_fortran_booleans, PMPI_Abi_get_fortran_booleans);

/* ---- handles as integers ----
 * A handle's int is its ABI value: the constant of a predefined object,
 * libhcmpi's int for any other.  Files are pointers in libhcmpi too and
 * go through its own integer table. */
static int abi_toint(const void *h) { return (int)(uint32_t)(uintptr_t)h; }
static uintptr_t abi_fromint(int i) { return (uintptr_t)(uint32_t)i; }

int PMPI_Comm_toint(MPI_Comm comm) { return abi_toint(comm); }
HC_WEAK_ALIAS(MPI_Comm_toint, PMPI_Comm_toint);
MPI_Comm PMPI_Comm_fromint(int comm) { return (MPI_Comm)abi_fromint(comm); }
HC_WEAK_ALIAS(MPI_Comm_fromint, PMPI_Comm_fromint);
int PMPI_Errhandler_toint(MPI_Errhandler errhandler) {
  return abi_toint(errhandler);
}
HC_WEAK_ALIAS(MPI_Errhandler_toint, PMPI_Errhandler_toint);
MPI_Errhandler PMPI_Errhandler_fromint(int errhandler) {
  return (MPI_Errhandler)abi_fromint(errhandler);
}
HC_WEAK_ALIAS(MPI_Errhandler_fromint, PMPI_Errhandler_fromint);
int PMPI_Group_toint(MPI_Group group) { return abi_toint(group); }
HC_WEAK_ALIAS(MPI_Group_toint, PMPI_Group_toint);
MPI_Group PMPI_Group_fromint(int group) {
  return (MPI_Group)abi_fromint(group);
}
HC_WEAK_ALIAS(MPI_Group_fromint, PMPI_Group_fromint);
int PMPI_Info_toint(MPI_Info info) { return abi_toint(info); }
HC_WEAK_ALIAS(MPI_Info_toint, PMPI_Info_toint);
MPI_Info PMPI_Info_fromint(int info) { return (MPI_Info)abi_fromint(info); }
HC_WEAK_ALIAS(MPI_Info_fromint, PMPI_Info_fromint);
int PMPI_Message_toint(MPI_Message message) { return abi_toint(message); }
HC_WEAK_ALIAS(MPI_Message_toint, PMPI_Message_toint);
MPI_Message PMPI_Message_fromint(int message) {
  return (MPI_Message)abi_fromint(message);
}
HC_WEAK_ALIAS(MPI_Message_fromint, PMPI_Message_fromint);
int PMPI_Op_toint(MPI_Op op) { return abi_toint(op); }
HC_WEAK_ALIAS(MPI_Op_toint, PMPI_Op_toint);
MPI_Op PMPI_Op_fromint(int op) { return (MPI_Op)abi_fromint(op); }
HC_WEAK_ALIAS(MPI_Op_fromint, PMPI_Op_fromint);
int PMPI_Request_toint(MPI_Request request) { return abi_toint(request); }
HC_WEAK_ALIAS(MPI_Request_toint, PMPI_Request_toint);
MPI_Request PMPI_Request_fromint(int request) {
  return (MPI_Request)abi_fromint(request);
}
HC_WEAK_ALIAS(MPI_Request_fromint, PMPI_Request_fromint);
int PMPI_Session_toint(MPI_Session session) { return abi_toint(session); }
HC_WEAK_ALIAS(MPI_Session_toint, PMPI_Session_toint);
MPI_Session PMPI_Session_fromint(int session) {
  return (MPI_Session)abi_fromint(session);
}
HC_WEAK_ALIAS(MPI_Session_fromint, PMPI_Session_fromint);
int PMPI_Type_toint(MPI_Datatype datatype) { return abi_toint(datatype); }
HC_WEAK_ALIAS(MPI_Type_toint, PMPI_Type_toint);
MPI_Datatype PMPI_Type_fromint(int datatype) {
  return (MPI_Datatype)abi_fromint(datatype);
}
HC_WEAK_ALIAS(MPI_Type_fromint, PMPI_Type_fromint);
int PMPI_Win_toint(MPI_Win win) { return abi_toint(win); }
HC_WEAK_ALIAS(MPI_Win_toint, PMPI_Win_toint);
MPI_Win PMPI_Win_fromint(int win) { return (MPI_Win)abi_fromint(win); }
HC_WEAK_ALIAS(MPI_Win_fromint, PMPI_Win_fromint);

int PMPI_File_toint(MPI_File file) {
  if (file == MPI_FILE_NULL)
    return abi_toint(file);
  return hc_mpich.File_c2f(hc_abi_file_in(file));
}
HC_WEAK_ALIAS(MPI_File_toint, PMPI_File_toint);

MPI_File PMPI_File_fromint(int file) {
  if (abi_fromint(file) == (uintptr_t)MPI_FILE_NULL)
    return MPI_FILE_NULL;
  return hc_abi_file_out(hc_mpich.File_f2c(file));
}
HC_WEAK_ALIAS(MPI_File_fromint, PMPI_File_fromint);

/* ---- calls with constants inside arrays or attribute values ---- */
/* Distributions and distribution arguments of a darray (dargs hold block
 * sizes or MPI_DISTRIBUTE_DFLT_DARG). */
static void abi_darray_args(int ndims, const int *distribs, const int *dargs,
                            int *distribs_m, int *dargs_m) {
  for (int i = 0; i < ndims; i++) {
    distribs_m[i] = hc_abi_distrib_in(distribs[i]);
    dargs_m[i] = dargs[i] == MPI_DISTRIBUTE_DFLT_DARG
                     ? hc_abi_distrib_in(dargs[i])
                     : dargs[i];
  }
}

/* Two int arrays of ndims entries on the stack or the heap; 0 when out
 * of memory.  Free with abi_pair_free. */
static int abi_int_pair(int n, int *stack_a, int *stack_b, int **a, int **b) {
  *a = hc_abi_scratch(stack_a, n, sizeof(int));
  *b = hc_abi_scratch(stack_b, n, sizeof(int));
  return *a && *b;
}

static void abi_pair_free(int *stack_a, int *stack_b, int *a, int *b) {
  if (a)
    hc_abi_scratch_free(stack_a, a);
  if (b)
    hc_abi_scratch_free(stack_b, b);
}

/* Both darray forms: gsizes_c is used when large is set. */
static int abi_darray(int size, int rank, int ndims, const int *gsizes,
                      const MPI_Count *gsizes_c, int large, const int *distribs,
                      const int *dargs, const int *psizes, int order,
                      MPI_Datatype oldtype, MPI_Datatype *newtype) {
  if (ndims < 0 || (ndims > 0 && (!distribs || !dargs)) || !newtype)
    return MPI_ERR_ARG;
  int sd[HC_ABI_STACK], sa[HC_ABI_STACK], *d, *a, m = 0;
  int rc = MPI_ERR_NO_MEM;
  if (abi_int_pair(ndims, sd, sa, &d, &a)) {
    abi_darray_args(ndims, distribs, dargs, d, a);
    int mo = hc_abi_order_in(order), mt = hc_abi_type_in(oldtype);
    rc = hc_abi_err_out(
        large ? hc_mpich.Type_create_darray_c(size, rank, ndims, gsizes_c, d, a,
                                              psizes, mo, mt, &m)
              : hc_mpich.Type_create_darray(size, rank, ndims, gsizes, d, a,
                                            psizes, mo, mt, &m));
    if (rc == MPI_SUCCESS)
      *newtype = hc_abi_type_out(m);
  }
  abi_pair_free(sd, sa, d, a);
  return rc;
}

int PMPI_Type_create_darray(int size, int rank, int ndims,
                            const int array_of_gsizes[],
                            const int array_of_distribs[],
                            const int array_of_dargs[],
                            const int array_of_psizes[], int order,
                            MPI_Datatype oldtype, MPI_Datatype *newtype) {
  return abi_darray(size, rank, ndims, array_of_gsizes, NULL, 0,
                    array_of_distribs, array_of_dargs, array_of_psizes, order,
                    oldtype, newtype);
}
HC_WEAK_ALIAS(MPI_Type_create_darray, PMPI_Type_create_darray);

int PMPI_Type_create_darray_c(int size, int rank, int ndims,
                              const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[],
                              const int array_of_dargs[],
                              const int array_of_psizes[], int order,
                              MPI_Datatype oldtype, MPI_Datatype *newtype) {
  return abi_darray(size, rank, ndims, NULL, array_of_gsizes, 1,
                    array_of_distribs, array_of_dargs, array_of_psizes, order,
                    oldtype, newtype);
}
HC_WEAK_ALIAS(MPI_Type_create_darray_c, PMPI_Type_create_darray_c);

/* ranks1 may hold MPI_PROC_NULL, which translates to itself. */
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                               MPI_Group group2, int ranks2[]) {
  if (n < 0 || (n > 0 && (!ranks1 || !ranks2)))
    return MPI_ERR_ARG;
  int s1[HC_ABI_STACK], s2[HC_ABI_STACK], *r1, *r2;
  int rc = MPI_ERR_NO_MEM;
  if (abi_int_pair(n, s1, s2, &r1, &r2)) {
    for (int i = 0; i < n; i++)
      r1[i] = hc_abi_rank_in(ranks1[i]);
    rc = hc_abi_err_out(hc_mpich.Group_translate_ranks(
        hc_abi_group_in(group1), n, r1, hc_abi_group_in(group2), r2));
    if (rc == MPI_SUCCESS)
      for (int i = 0; i < n; i++)
        ranks2[i] = hc_abi_rank_out(r2[i]);
  }
  abi_pair_free(s1, s2, r1, r2);
  return rc;
}
HC_WEAK_ALIAS(MPI_Group_translate_ranks, PMPI_Group_translate_ranks);

/* MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL are pointers to constants:
 * these are the standard's. */
static const int abi_flavors[] = {
    MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_DYNAMIC,
    MPI_WIN_FLAVOR_SHARED};
static const int abi_models[] = {MPI_WIN_UNIFIED, MPI_WIN_SEPARATE};

static const int *abi_constant_ptr(const int *table, size_t n, int value) {
  for (size_t i = 0; i < n; i++)
    if (table[i] == value)
      return &table[i];
  return NULL;
}

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val,
                      int *flag) {
  int rc = hc_mpich.Win_get_attr(
      hc_abi_win_in(win), hc_abi_keyval_in(win_keyval), attribute_val, flag);
  if (rc != 0 || !*flag)
    return hc_abi_err_out(rc);
  const int **valp = attribute_val, *c = NULL;
  if (win_keyval == MPI_WIN_CREATE_FLAVOR)
    c = abi_constant_ptr(abi_flavors, 4, hc_abi_flavor_out(**valp));
  else if (win_keyval == MPI_WIN_MODEL)
    c = abi_constant_ptr(abi_models, 2, hc_abi_model_out(**valp));
  if (c)
    *valp = c;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Win_get_attr, PMPI_Win_get_attr);

/* The level's meaning is the tool's; libhcmpi ignores the rest. */
int PMPI_Pcontrol(const int level, ...) { return hc_mpich.Pcontrol(level); }
HC_WEAK_ALIAS(MPI_Pcontrol, PMPI_Pcontrol);
