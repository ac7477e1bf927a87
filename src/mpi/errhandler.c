/*
 * Error handler objects and the MPI_Comm_*_errhandler calls.  Builtin
 * handlers are static; user handlers are counted references, freed when the
 * last communicator using them and the user's handle are both gone.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/handle.h"
#include "mpi/mpi_impl.h"

static hc_mpi_errhandler_t errh_fatal = {HC_ERRH_FATAL, NULL, 1,
                                         MPI_ERRORS_ARE_FATAL, NULL, NULL};
static hc_mpi_errhandler_t errh_return = {HC_ERRH_RETURN, NULL, 1,
                                          MPI_ERRORS_RETURN, NULL, NULL};
static hc_mpi_errhandler_t errh_abort = {HC_ERRH_ABORT, NULL, 1,
                                         MPI_ERRORS_ABORT, NULL, NULL};

static hc_handle_table_t errh_table =
    HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_ERRHANDLER, 0);
static pthread_mutex_t errh_lock = PTHREAD_MUTEX_INITIALIZER;

static int errh_is_builtin(const hc_mpi_errhandler_t *e) {
  return e == &errh_fatal || e == &errh_return || e == &errh_abort;
}

hc_mpi_errhandler_t *hc_mpi_errhandler_get(MPI_Errhandler handle) {
  switch (handle) {
  case MPI_ERRORS_ARE_FATAL:
    return &errh_fatal;
  case MPI_ERRORS_RETURN:
    return &errh_return;
  case MPI_ERRORS_ABORT:
    return &errh_abort;
  default:
    return hc_handle_get(&errh_table, handle);
  }
}

void hc_mpi_errhandler_retain(hc_mpi_errhandler_t *e) {
  if (errh_is_builtin(e))
    return;
  pthread_mutex_lock(&errh_lock);
  e->refs++;
  pthread_mutex_unlock(&errh_lock);
}

void hc_mpi_errhandler_release(hc_mpi_errhandler_t *e) {
  if (errh_is_builtin(e))
    return;
  pthread_mutex_lock(&errh_lock);
  int last = --e->refs == 0;
  pthread_mutex_unlock(&errh_lock);
  if (last) {
    hc_handle_free(&errh_table, e->handle);
    free(e);
  }
}

int hc_mpi_errhandler_new_user(const char *fn,
                               MPI_Comm_errhandler_function *comm_fn,
                               MPI_File_errhandler_function *file_fn,
                               MPI_Session_errhandler_function *session_fn,
                               MPI_Errhandler *out) {
  hc_mpi_errhandler_t *e = calloc(1, sizeof(*e));
  if (!e || hc_handle_alloc(&errh_table, e, &e->handle) != 0) {
    free(e);
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  e->kind = HC_ERRH_USER;
  e->fn = comm_fn;
  e->file_fn = file_fn;
  e->session_fn = session_fn;
  e->refs = 1;
  *out = e->handle;
  return MPI_SUCCESS;
}

/* A valid handler object for a call; raises MPI_ERR_ERRHANDLER (MPI-4.1)
 * otherwise. */
static int errh_lookup(const char *fn, hc_mpi_comm_t *comm,
                       MPI_Errhandler handle, hc_mpi_errhandler_t **out) {
  hc_mpi_errhandler_t *e = hc_mpi_errhandler_get(handle);
  if (!e)
    return hc_mpi_raise(comm, fn, MPI_ERR_ERRHANDLER, "invalid errhandler 0x%x",
                        (unsigned)handle);
  *out = e;
  return MPI_SUCCESS;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  static const char fn[] = "MPI_Comm_set_errhandler";
  hc_mpi_comm_t *c = NULL;
  hc_mpi_errhandler_t *e = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = errh_lookup(fn, c, errhandler, &e);
  if (rc == MPI_SUCCESS && e->kind == HC_ERRH_USER && !e->fn)
    rc = hc_mpi_raise(c, fn, MPI_ERR_ERRHANDLER,
                      "errhandler 0x%x was made for %s, not communicators",
                      (unsigned)errhandler,
                      e->session_fn ? "sessions" : "files");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_comm_set_errhandler(c, e);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Comm_set_errhandler, PMPI_Comm_set_errhandler);

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler) {
  static const char fn[] = "MPI_Comm_get_errhandler";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, errhandler, "errhandler");
  if (rc != MPI_SUCCESS)
    return rc;
  /* The reference taken here is the user's, dropped by Errhandler_free. */
  hc_mpi_errhandler_t *e = hc_mpi_comm_errhandler(c);
  *errhandler = e->handle;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Comm_get_errhandler, PMPI_Comm_get_errhandler);

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  return PMPI_Comm_set_errhandler(comm, errhandler);
}
HC_WEAK_ALIAS(MPI_Errhandler_set, PMPI_Errhandler_set);

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler) {
  return PMPI_Comm_get_errhandler(comm, errhandler);
}
HC_WEAK_ALIAS(MPI_Errhandler_get, PMPI_Errhandler_get);

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function,
                                MPI_Errhandler *errhandler) {
  static const char fn[] = "MPI_Comm_create_errhandler";
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, (const void *)function, "function");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, errhandler, "errhandler");
  if (rc != MPI_SUCCESS)
    return rc;
  return hc_mpi_errhandler_new_user(fn, function, NULL, NULL, errhandler);
}
HC_WEAK_ALIAS(MPI_Comm_create_errhandler, PMPI_Comm_create_errhandler);

int PMPI_Errhandler_create(MPI_Comm_errhandler_function *function,
                           MPI_Errhandler *errhandler) {
  return PMPI_Comm_create_errhandler(function, errhandler);
}
HC_WEAK_ALIAS(MPI_Errhandler_create, PMPI_Errhandler_create);

int PMPI_Errhandler_free(MPI_Errhandler *errhandler) {
  static const char fn[] = "MPI_Errhandler_free";
  hc_mpi_errhandler_t *e = NULL;
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, errhandler, "errhandler");
  if (rc == MPI_SUCCESS)
    rc = errh_lookup(fn, NULL, *errhandler, &e);
  if (rc != MPI_SUCCESS)
    return rc;
  /* The object (and its handle) lives on while a communicator uses it. */
  hc_mpi_errhandler_release(e);
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Errhandler_free, PMPI_Errhandler_free);

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  static const char fn[] = "MPI_Comm_call_errhandler";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_errhandler_t *e = hc_mpi_comm_errhandler(c);
  int kind = e->kind;
  MPI_Comm_errhandler_function *f = e->fn;
  hc_mpi_errhandler_release(e);
  if (kind == HC_ERRH_USER) {
    MPI_Comm handle = comm;
    int code = errorcode;
    f(&handle, &code);
    return MPI_SUCCESS;
  }
  if (kind == HC_ERRH_RETURN)
    return MPI_SUCCESS;
  /* The fatal handlers report through the common path so the line has the
   * usual shape. */
  int cls = hc_mpi_class_of_code(errorcode);
  if (!hc_mpi_class_name(cls))
    cls = MPI_ERR_UNKNOWN;
  hc_mpi_raise(c, fn, cls, "error code %d raised by the application",
               errorcode);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Comm_call_errhandler, PMPI_Comm_call_errhandler);

/* Predefined codes are bare classes (a valid choice: every class is a
 * code); added ones know their class (errclass.c). */
int PMPI_Error_class(int errorcode, int *errorclass) {
  static const char fn[] = "MPI_Error_class";
  int rc = hc_mpi_check_ptr(fn, NULL, errorclass, "errorclass");
  if (rc != MPI_SUCCESS)
    return rc;
  int cls = hc_mpi_class_of_code(errorcode);
  if (!hc_mpi_class_name(cls) && !hc_mpi_err_user_class(errorcode, &cls))
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "invalid error code %d",
                        errorcode);
  *errorclass = cls;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Error_class, PMPI_Error_class);

int PMPI_Error_string(int errorcode, char *string, int *resultlen) {
  static const char fn[] = "MPI_Error_string";
  int rc = hc_mpi_check_ptr(fn, NULL, string, "string");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, resultlen, "resultlen");
  if (rc != MPI_SUCCESS)
    return rc;
  const char *name = hc_mpi_class_name(errorcode);
  int n;
  if (!name &&
      (hc_mpi_err_detail_text(errorcode, string, MPI_MAX_ERROR_STRING) ||
       hc_mpi_err_user_text(errorcode, string, MPI_MAX_ERROR_STRING)))
    n = (int)strlen(string);
  else if (name)
    n = snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", name,
                 hc_mpi_class_text(errorcode));
  else
    n = snprintf(string, MPI_MAX_ERROR_STRING, "unknown error code %d",
                 errorcode);
  *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Error_string, PMPI_Error_string);
