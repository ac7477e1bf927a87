/*
 * MPI_Status in the MPICH layout: a 63-bit byte count split over count_lo
 * and count_hi_and_cancelled (whose bit 0 is the cancel flag), then
 * MPI_SOURCE, MPI_TAG, MPI_ERROR.  Also the calls that read and write it
 * and those that convert it to and from the Fortran forms.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mpi/mpi_impl.h"

void hc_mpi_status_set_bytes(MPI_Status *status, MPI_Count bytes) {
  uint64_t n = (uint64_t)bytes;
  int cancelled = status->count_hi_and_cancelled & 1;
  status->count_lo = (int)(uint32_t)(n & 0xffffffffu);
  status->count_hi_and_cancelled = (int)(uint32_t)((n >> 32) << 1) | cancelled;
}

MPI_Count hc_mpi_status_bytes(const MPI_Status *status) {
  uint64_t lo = (uint32_t)status->count_lo;
  uint64_t hi = (uint32_t)status->count_hi_and_cancelled >> 1;
  return (MPI_Count)(lo | (hi << 32));
}

static void status_set_cancel_bit(MPI_Status *status, int flag) {
  status->count_hi_and_cancelled =
      (status->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
}

void hc_mpi_status_fill(MPI_Status *status, const hcomm_status_t *st) {
  if (status == MPI_STATUS_IGNORE)
    return;
  status->count_hi_and_cancelled = 0;
  hc_mpi_status_set_bytes(status, (MPI_Count)st->bytes);
  status_set_cancel_bit(status, st->cancelled);
  status->MPI_SOURCE = st->source;
  status->MPI_TAG = st->tag;
}

void hc_mpi_status_empty(MPI_Status *status) {
  if (status == MPI_STATUS_IGNORE)
    return;
  status->count_lo = 0;
  status->count_hi_and_cancelled = 0;
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS; /* part of "empty" (MPI-4.0 3.7.3) */
}

void hc_mpi_status_proc_null(MPI_Status *status) {
  if (status == MPI_STATUS_IGNORE)
    return;
  status->count_lo = 0;
  status->count_hi_and_cancelled = 0;
  status->MPI_SOURCE = MPI_PROC_NULL;
  status->MPI_TAG = MPI_ANY_TAG;
}

/* Status calls are local and legal before MPI_Init: no ready check. */
static int status_args(const char *fn, const MPI_Status *status,
                       MPI_Datatype type, const void *out,
                       const hc_mpi_type_t **t) {
  if (status == MPI_STATUS_IGNORE)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "status is MPI_STATUS_IGNORE");
  int rc = hc_mpi_check_ptr(fn, NULL, status, "status");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, out, "output argument");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_type(fn, NULL, type, t);
  return rc;
}

/* Whole elements of t in bytes (point-to-point moves size bytes of data
 * per element), or MPI_UNDEFINED. */
static MPI_Count status_count_of(const hc_mpi_type_t *t, MPI_Count bytes) {
  if (t->size == 0)
    return 0;
  if (bytes % t->size != 0)
    return MPI_UNDEFINED;
  return bytes / t->size;
}

/* An int result that does not fit is MPI_UNDEFINED, as MPI defines for
 * MPI_Get_count and MPI_Get_elements (the _x form has the exact value). */
static int status_store_int(MPI_Count n, int *out) {
  *out = n > INT32_MAX ? MPI_UNDEFINED : (int)n;
  return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype,
                   int *count) {
  static const char fn[] = "MPI_Get_count";
  const hc_mpi_type_t *t = NULL;
  int rc = status_args(fn, status, datatype, count, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  return status_store_int(status_count_of(t, hc_mpi_status_bytes(status)),
                          count);
}
HC_WEAK_ALIAS(MPI_Get_count, PMPI_Get_count);

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype,
                     MPI_Count *count) {
  const hc_mpi_type_t *t = NULL;
  int rc = status_args("MPI_Get_count_c", status, datatype, count, &t);
  if (rc == MPI_SUCCESS)
    *count = status_count_of(t, hc_mpi_status_bytes(status));
  return rc;
}
HC_WEAK_ALIAS(MPI_Get_count_c, PMPI_Get_count_c);

/* Basic elements in bytes, counting a partly received derived element;
 * MPI_UNDEFINED where the bytes end inside a basic element, as
 * MPI_Get_count gives for a basic type (MPI-4.0 5.1.11: both return the
 * same values with basic datatypes). */
static MPI_Count status_elements_of(const hc_mpi_type_t *t, MPI_Count bytes) {
  MPI_Count n = hc_mpi_type_elements_in(t, bytes);
  if (t->size > 0 && hc_mpi_type_bytes_for(t, n) != bytes)
    return MPI_UNDEFINED;
  return n;
}

/* The exact element count, for the _x and _c forms. */
static int status_elements_count(const char *fn, const MPI_Status *status,
                                 MPI_Datatype datatype, MPI_Count *count) {
  const hc_mpi_type_t *t = NULL;
  int rc = status_args(fn, status, datatype, count, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  *count = status_elements_of(t, hc_mpi_status_bytes(status));
  return MPI_SUCCESS;
}

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count *count) {
  return status_elements_count("MPI_Get_elements_x", status, datatype, count);
}
HC_WEAK_ALIAS(MPI_Get_elements_x, PMPI_Get_elements_x);

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count *count) {
  return status_elements_count("MPI_Get_elements_c", status, datatype, count);
}
HC_WEAK_ALIAS(MPI_Get_elements_c, PMPI_Get_elements_c);

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype,
                      int *count) {
  static const char fn[] = "MPI_Get_elements";
  const hc_mpi_type_t *t = NULL;
  int rc = status_args(fn, status, datatype, count, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  return status_store_int(status_elements_of(t, hc_mpi_status_bytes(status)),
                          count);
}
HC_WEAK_ALIAS(MPI_Get_elements, PMPI_Get_elements);

/* The three forms differ in the width of count only; fn names the one
 * called in an error report. */
static int status_set_elements(const char *fn, MPI_Status *status,
                               MPI_Datatype datatype, MPI_Count count) {
  const hc_mpi_type_t *t = NULL;
  int rc = status_args(fn, status, datatype, status, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  if (count < 0)
    return hc_mpi_raise(NULL, fn, MPI_ERR_COUNT, "invalid count %ld",
                        (long)count);
  hc_mpi_status_set_bytes(status, hc_mpi_type_bytes_for(t, count));
  return MPI_SUCCESS;
}

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype,
                               MPI_Count count) {
  return status_set_elements("MPI_Status_set_elements_x", status, datatype,
                             count);
}
HC_WEAK_ALIAS(MPI_Status_set_elements_x, PMPI_Status_set_elements_x);

int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype,
                               MPI_Count count) {
  return status_set_elements("MPI_Status_set_elements_c", status, datatype,
                             count);
}
HC_WEAK_ALIAS(MPI_Status_set_elements_c, PMPI_Status_set_elements_c);

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype,
                             int count) {
  return status_set_elements("MPI_Status_set_elements", status, datatype,
                             count);
}
HC_WEAK_ALIAS(MPI_Status_set_elements, PMPI_Status_set_elements);

int PMPI_Status_set_cancelled(MPI_Status *status, int flag) {
  static const char fn[] = "MPI_Status_set_cancelled";
  if (status == MPI_STATUS_IGNORE)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "status is MPI_STATUS_IGNORE");
  int rc = hc_mpi_check_ptr(fn, NULL, status, "status");
  if (rc != MPI_SUCCESS)
    return rc;
  status_set_cancel_bit(status, flag);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Status_set_cancelled, PMPI_Status_set_cancelled);

int PMPI_Test_cancelled(const MPI_Status *status, int *flag) {
  static const char fn[] = "MPI_Test_cancelled";
  if (status == MPI_STATUS_IGNORE)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "status is MPI_STATUS_IGNORE");
  int rc = hc_mpi_check_ptr(fn, NULL, status, "status");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, flag, "flag");
  if (rc != MPI_SUCCESS)
    return rc;
  *flag = status->count_hi_and_cancelled & 1;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Test_cancelled, PMPI_Test_cancelled);

/* ---- MPI-4.1: the source, tag and error fields through calls ---------- */

/* A status to read or write (not MPI_STATUS_IGNORE), and where a read
 * goes (out: NULL for a write). */
static int status_field_args(const char *fn, const MPI_Status *status,
                             const int *out, int is_read) {
  if (status == MPI_STATUS_IGNORE)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "status is MPI_STATUS_IGNORE");
  int rc = hc_mpi_check_ptr(fn, NULL, status, "status");
  if (rc == MPI_SUCCESS && is_read)
    rc = hc_mpi_check_ptr(fn, NULL, out, "output argument");
  return rc;
}

int PMPI_Status_get_source(const MPI_Status *status, int *source) {
  int rc = status_field_args("MPI_Status_get_source", status, source, 1);
  if (rc == MPI_SUCCESS)
    *source = status->MPI_SOURCE;
  return rc;
}
HC_WEAK_ALIAS(MPI_Status_get_source, PMPI_Status_get_source);

int PMPI_Status_set_source(MPI_Status *status, int source) {
  int rc = status_field_args("MPI_Status_set_source", status, NULL, 0);
  if (rc == MPI_SUCCESS)
    status->MPI_SOURCE = source;
  return rc;
}
HC_WEAK_ALIAS(MPI_Status_set_source, PMPI_Status_set_source);

int PMPI_Status_get_tag(const MPI_Status *status, int *tag) {
  int rc = status_field_args("MPI_Status_get_tag", status, tag, 1);
  if (rc == MPI_SUCCESS)
    *tag = status->MPI_TAG;
  return rc;
}
HC_WEAK_ALIAS(MPI_Status_get_tag, PMPI_Status_get_tag);

int PMPI_Status_set_tag(MPI_Status *status, int tag) {
  int rc = status_field_args("MPI_Status_set_tag", status, NULL, 0);
  if (rc == MPI_SUCCESS)
    status->MPI_TAG = tag;
  return rc;
}
HC_WEAK_ALIAS(MPI_Status_set_tag, PMPI_Status_set_tag);

int PMPI_Status_get_error(const MPI_Status *status, int *error) {
  int rc = status_field_args("MPI_Status_get_error", status, error, 1);
  if (rc == MPI_SUCCESS)
    *error = status->MPI_ERROR;
  return rc;
}
HC_WEAK_ALIAS(MPI_Status_get_error, PMPI_Status_get_error);

int PMPI_Status_set_error(MPI_Status *status, int error) {
  int rc = status_field_args("MPI_Status_set_error", status, NULL, 0);
  if (rc == MPI_SUCCESS)
    status->MPI_ERROR = error;
  return rc;
}
HC_WEAK_ALIAS(MPI_Status_set_error, PMPI_Status_set_error);

/* ---- C <-> Fortran status conversion ------------------------------------ */
/* In the MPICH ABI a Fortran INTEGER status (MPI_F_STATUS_SIZE words) and
 * an MPI_F08_status hold the five int words of MPI_Status in the same order,
 * so every conversion is a copy.  The ignore sentinels are not statuses:
 * converting from one is erroneous, which MPICH reports as MPI_ERR_OTHER;
 * writing to one (or to NULL) is refused as MPI_ERR_ARG. */
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "a Fortran status is the C status word for word");
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status),
               "an F08 status is the C status word for word");
_Static_assert(
    offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
        offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
        offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
    "MPI_F_SOURCE/TAG/ERROR index the C status fields");

static int status_c_ignore(const void *s) {
  return s == MPI_STATUS_IGNORE || s == MPI_STATUSES_IGNORE;
}

static int status_f_ignore(const void *s) {
  return s == MPI_F_STATUS_IGNORE || s == MPI_F_STATUSES_IGNORE;
}

static int status_f08_ignore(const void *s) {
  return s == MPI_F08_STATUS_IGNORE || s == MPI_F08_STATUSES_IGNORE;
}

/* Copies one status representation onto another; the flags say whether
 * from and to are sentinels of their kind.  Local, legal before MPI_Init. */
static int status_convert(const char *fn, const void *from, int from_ignore,
                          void *to, int to_ignore) {
  if (from_ignore)
    return hc_mpi_raise(NULL, fn, MPI_ERR_OTHER,
                        "cannot convert a status-ignore sentinel");
  int rc = hc_mpi_check_ptr(fn, NULL, from, "input status");
  if (rc != MPI_SUCCESS)
    return rc;
  if (to_ignore || to == NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "output status is NULL or an ignore sentinel");
  memmove(to, from, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status) {
  return status_convert("MPI_Status_c2f", c_status, status_c_ignore(c_status),
                        f_status, status_f_ignore(f_status));
}
HC_WEAK_ALIAS(MPI_Status_c2f, PMPI_Status_c2f);

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status) {
  return status_convert("MPI_Status_f2c", f_status, status_f_ignore(f_status),
                        c_status, status_c_ignore(c_status));
}
HC_WEAK_ALIAS(MPI_Status_f2c, PMPI_Status_f2c);

int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status) {
  return status_convert("MPI_Status_c2f08", c_status, status_c_ignore(c_status),
                        f08_status, status_f08_ignore(f08_status));
}
HC_WEAK_ALIAS(MPI_Status_c2f08, PMPI_Status_c2f08);

int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status) {
  return status_convert("MPI_Status_f082c", f08_status,
                        status_f08_ignore(f08_status), c_status,
                        status_c_ignore(c_status));
}
HC_WEAK_ALIAS(MPI_Status_f082c, PMPI_Status_f082c);

int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status) {
  return status_convert("MPI_Status_f2f08", f_status, status_f_ignore(f_status),
                        f08_status, status_f08_ignore(f08_status));
}
HC_WEAK_ALIAS(MPI_Status_f2f08, PMPI_Status_f2f08);

int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status) {
  return status_convert("MPI_Status_f082f", f08_status,
                        status_f08_ignore(f08_status), f_status,
                        status_f_ignore(f_status));
}
HC_WEAK_ALIAS(MPI_Status_f082f, PMPI_Status_f082f);
