/*
 * Predefined communicator attributes (MPI_TAG_UB, MPI_HOST, MPI_IO,
 * MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM).  As the standard
 * says, the value handed out is a pointer to an int the library owns.
 */
#include "mpi/mpi_impl.h"

static int attr_tag_ub = HCOMM_TAG_UB;
static int attr_host = MPI_PROC_NULL; /* no distinguished host */
static int attr_io = MPI_ANY_SOURCE;  /* every rank can do I/O */
static int attr_wtime_is_global = 0;  /* clocks are per process */
static int attr_universe_size;
static int attr_appnum;
/* No user error classes exist, so the last code is the last class. */
static int attr_lastusedcode = MPI_T_ERR_NOT_SUPPORTED;

/* The value of a predefined key, or NULL when the key has none here. */
static int *attr_predefined(int keyval) {
  switch (keyval) {
  case MPI_TAG_UB:
    return &attr_tag_ub;
  case MPI_HOST:
    return &attr_host;
  case MPI_IO:
    return &attr_io;
  case MPI_WTIME_IS_GLOBAL:
    return &attr_wtime_is_global;
  case MPI_UNIVERSE_SIZE:
    attr_universe_size = hcomm_universe_size();
    return attr_universe_size > 0 ? &attr_universe_size : NULL;
  case MPI_LASTUSEDCODE:
    return &attr_lastusedcode;
  case MPI_APPNUM:
    attr_appnum = hcomm_appnum();
    return attr_appnum >= 0 ? &attr_appnum : NULL;
  default:
    return NULL;
  }
}

static int attr_is_predefined_key(int keyval) {
  return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO ||
         keyval == MPI_WTIME_IS_GLOBAL || keyval == MPI_UNIVERSE_SIZE ||
         keyval == MPI_APPNUM || keyval == MPI_LASTUSEDCODE;
}

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val,
                       int *flag) {
  static const char fn[] = "MPI_Comm_get_attr";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, attribute_val, "attribute_val");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, flag, "flag");
  if (rc != MPI_SUCCESS)
    return rc;
  if (!attr_is_predefined_key(comm_keyval))
    return hc_mpi_raise(c, fn, MPI_ERR_KEYVAL, "invalid keyval 0x%x",
                        (unsigned)comm_keyval);
  int *value = attr_predefined(comm_keyval);
  *flag = value != NULL;
  if (value)
    *(int **)attribute_val = value;
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
