/*
 * Error classes, their text, and raising an error through a communicator's
 * handler.  hc_mpi_raise is the only place that formats an error message and
 * the only place that calls a handler for an error the library detects.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi/mpi_impl.h"

struct err_class_info {
  const char *name;
  const char *text;
};

/* Indexed by class; a NULL name marks a number that is no class. */
static const struct err_class_info err_classes[] = {
    [MPI_SUCCESS] = {"MPI_SUCCESS", "no error"},
    [MPI_ERR_BUFFER] = {"MPI_ERR_BUFFER", "invalid buffer pointer"},
    [MPI_ERR_COUNT] = {"MPI_ERR_COUNT", "invalid count argument"},
    [MPI_ERR_TYPE] = {"MPI_ERR_TYPE", "invalid datatype"},
    [MPI_ERR_TAG] = {"MPI_ERR_TAG", "invalid tag"},
    [MPI_ERR_COMM] = {"MPI_ERR_COMM", "invalid communicator"},
    [MPI_ERR_RANK] = {"MPI_ERR_RANK", "invalid rank"},
    [MPI_ERR_ROOT] = {"MPI_ERR_ROOT", "invalid root"},
    [MPI_ERR_GROUP] = {"MPI_ERR_GROUP", "invalid group"},
    [MPI_ERR_OP] = {"MPI_ERR_OP", "invalid reduction operation"},
    [MPI_ERR_TOPOLOGY] = {"MPI_ERR_TOPOLOGY", "invalid topology"},
    [MPI_ERR_DIMS] = {"MPI_ERR_DIMS", "invalid dimension argument"},
    [MPI_ERR_ARG] = {"MPI_ERR_ARG", "invalid argument of some other kind"},
    [MPI_ERR_UNKNOWN] = {"MPI_ERR_UNKNOWN", "unknown error"},
    [MPI_ERR_TRUNCATE] = {"MPI_ERR_TRUNCATE", "message truncated on receive"},
    [MPI_ERR_OTHER] = {"MPI_ERR_OTHER", "known error not in this list"},
    [MPI_ERR_INTERN] = {"MPI_ERR_INTERN", "internal MPI error"},
    [MPI_ERR_IN_STATUS] = {"MPI_ERR_IN_STATUS", "error code is in status"},
    [MPI_ERR_PENDING] = {"MPI_ERR_PENDING", "pending request"},
    [MPI_ERR_REQUEST] = {"MPI_ERR_REQUEST", "invalid request"},
    [MPI_ERR_ACCESS] = {"MPI_ERR_ACCESS", "permission denied"},
    [MPI_ERR_AMODE] = {"MPI_ERR_AMODE", "invalid file access mode"},
    [MPI_ERR_BAD_FILE] = {"MPI_ERR_BAD_FILE", "invalid file name"},
    [MPI_ERR_CONVERSION] = {"MPI_ERR_CONVERSION",
                            "error in a user data conversion function"},
    [MPI_ERR_DUP_DATAREP] = {"MPI_ERR_DUP_DATAREP",
                             "data representation already defined"},
    [MPI_ERR_FILE_EXISTS] = {"MPI_ERR_FILE_EXISTS", "file exists"},
    [MPI_ERR_FILE_IN_USE] = {"MPI_ERR_FILE_IN_USE", "file in use"},
    [MPI_ERR_FILE] = {"MPI_ERR_FILE", "invalid file handle"},
    [MPI_ERR_INFO] = {"MPI_ERR_INFO", "invalid info object"},
    [MPI_ERR_INFO_KEY] = {"MPI_ERR_INFO_KEY", "info key too long"},
    [MPI_ERR_INFO_VALUE] = {"MPI_ERR_INFO_VALUE", "info value too long"},
    [MPI_ERR_INFO_NOKEY] = {"MPI_ERR_INFO_NOKEY", "info key not defined"},
    [MPI_ERR_IO] = {"MPI_ERR_IO", "I/O error"},
    [MPI_ERR_NAME] = {"MPI_ERR_NAME", "invalid service name"},
    [MPI_ERR_NO_MEM] = {"MPI_ERR_NO_MEM", "out of memory"},
    [MPI_ERR_NOT_SAME] = {"MPI_ERR_NOT_SAME",
                          "collective arguments differ between processes"},
    [MPI_ERR_NO_SPACE] = {"MPI_ERR_NO_SPACE", "not enough space"},
    [MPI_ERR_NO_SUCH_FILE] = {"MPI_ERR_NO_SUCH_FILE", "file does not exist"},
    [MPI_ERR_PORT] = {"MPI_ERR_PORT", "invalid port name"},
    [MPI_ERR_QUOTA] = {"MPI_ERR_QUOTA", "quota exceeded"},
    [MPI_ERR_READ_ONLY] = {"MPI_ERR_READ_ONLY", "read-only file or system"},
    [MPI_ERR_SERVICE] = {"MPI_ERR_SERVICE", "invalid service"},
    [MPI_ERR_SPAWN] = {"MPI_ERR_SPAWN", "error spawning processes"},
    [MPI_ERR_UNSUPPORTED_DATAREP] = {"MPI_ERR_UNSUPPORTED_DATAREP",
                                     "unsupported data representation"},
    [MPI_ERR_UNSUPPORTED_OPERATION] = {"MPI_ERR_UNSUPPORTED_OPERATION",
                                       "unsupported operation"},
    [MPI_ERR_WIN] = {"MPI_ERR_WIN", "invalid window"},
    [MPI_ERR_BASE] = {"MPI_ERR_BASE", "invalid base address"},
    [MPI_ERR_LOCKTYPE] = {"MPI_ERR_LOCKTYPE", "invalid lock type"},
    [MPI_ERR_KEYVAL] = {"MPI_ERR_KEYVAL", "invalid attribute key"},
    [MPI_ERR_RMA_CONFLICT] = {"MPI_ERR_RMA_CONFLICT",
                              "conflicting accesses to a window"},
    [MPI_ERR_RMA_SYNC] = {"MPI_ERR_RMA_SYNC",
                          "wrong synchronisation of RMA calls"},
    [MPI_ERR_SIZE] = {"MPI_ERR_SIZE", "invalid size argument"},
    [MPI_ERR_DISP] = {"MPI_ERR_DISP", "invalid displacement argument"},
    [MPI_ERR_ASSERT] = {"MPI_ERR_ASSERT", "invalid assert argument"},
    [MPI_ERR_RMA_RANGE] = {"MPI_ERR_RMA_RANGE",
                           "target memory outside the window"},
    [MPI_ERR_RMA_ATTACH] = {"MPI_ERR_RMA_ATTACH",
                            "memory cannot be attached to the window"},
    [MPI_ERR_RMA_SHARED] = {"MPI_ERR_RMA_SHARED", "memory cannot be shared"},
    [MPI_ERR_RMA_FLAVOR] = {"MPI_ERR_RMA_FLAVOR",
                            "wrong window flavor for this call"},
    [MPI_T_ERR_MEMORY] = {"MPI_T_ERR_MEMORY", "tool interface: out of memory"},
    [MPI_T_ERR_NOT_INITIALIZED] = {"MPI_T_ERR_NOT_INITIALIZED",
                                   "tool interface not initialised"},
    [MPI_T_ERR_CANNOT_INIT] = {"MPI_T_ERR_CANNOT_INIT",
                               "tool interface cannot be initialised"},
    [MPI_T_ERR_INVALID_INDEX] = {"MPI_T_ERR_INVALID_INDEX",
                                 "tool interface: invalid index"},
    [MPI_T_ERR_INVALID_ITEM] = {"MPI_T_ERR_INVALID_ITEM",
                                "tool interface: invalid item"},
    [MPI_T_ERR_INVALID_HANDLE] = {"MPI_T_ERR_INVALID_HANDLE",
                                  "tool interface: invalid handle"},
    [MPI_T_ERR_OUT_OF_HANDLES] = {"MPI_T_ERR_OUT_OF_HANDLES",
                                  "tool interface: out of handles"},
    [MPI_T_ERR_OUT_OF_SESSIONS] = {"MPI_T_ERR_OUT_OF_SESSIONS",
                                   "tool interface: out of sessions"},
    [MPI_T_ERR_INVALID_SESSION] = {"MPI_T_ERR_INVALID_SESSION",
                                   "tool interface: invalid session"},
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = {"MPI_T_ERR_CVAR_SET_NOT_NOW",
                                    "control variable cannot be set now"},
    [MPI_T_ERR_CVAR_SET_NEVER] = {"MPI_T_ERR_CVAR_SET_NEVER",
                                  "control variable can never be set"},
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = {"MPI_T_ERR_PVAR_NO_STARTSTOP",
                                     "performance variable cannot start/stop"},
    [MPI_T_ERR_PVAR_NO_WRITE] = {"MPI_T_ERR_PVAR_NO_WRITE",
                                 "performance variable cannot be written"},
    [MPI_T_ERR_PVAR_NO_ATOMIC] = {"MPI_T_ERR_PVAR_NO_ATOMIC",
                                  "performance variable not atomic"},
    [MPI_T_ERR_INVALID_NAME] = {"MPI_T_ERR_INVALID_NAME",
                                "tool interface: invalid name"},
    [MPI_T_ERR_INVALID] = {"MPI_T_ERR_INVALID", "tool interface: invalid use"},
    [MPI_ERR_SESSION] = {"MPI_ERR_SESSION", "invalid session"},
    [MPI_ERR_PROC_ABORTED] = {"MPI_ERR_PROC_ABORTED",
                              "a peer process has aborted"},
    [MPI_ERR_VALUE_TOO_LARGE] = {"MPI_ERR_VALUE_TOO_LARGE",
                                 "value too large for the output argument"},
    [MPI_T_ERR_NOT_SUPPORTED] = {"MPI_T_ERR_NOT_SUPPORTED",
                                 "tool interface: not supported"},
    [MPI_T_ERR_NOT_ACCESSIBLE] = {"MPI_T_ERR_NOT_ACCESSIBLE",
                                  "tool interface: not accessible"},
    [MPI_ERR_ERRHANDLER] = {"MPI_ERR_ERRHANDLER", "invalid error handler"},
    [MPIX_ERR_PROC_FAILED] = {"MPIX_ERR_PROC_FAILED", "process failed"},
    [MPIX_ERR_PROC_FAILED_PENDING] = {"MPIX_ERR_PROC_FAILED_PENDING",
                                      "process failed, request pending"},
    [MPIX_ERR_REVOKED] = {"MPIX_ERR_REVOKED", "communicator revoked"},
    [MPIX_ERR_EAGAIN] = {"MPIX_ERR_EAGAIN", "resource busy, try again"},
    [MPIX_ERR_NOREQ] = {"MPIX_ERR_NOREQ", "no request available"},
};

#define ERR_NCLASSES ((int)(sizeof(err_classes) / sizeof(err_classes[0])))

const char *hc_mpi_class_name(int errclass) {
  if (errclass < 0 || errclass >= ERR_NCLASSES)
    return NULL;
  return err_classes[errclass].name;
}

const char *hc_mpi_class_text(int errclass) {
  if (errclass < 0 || errclass >= ERR_NCLASSES)
    return NULL;
  return err_classes[errclass].text;
}

int hc_mpi_class_of_status(hc_status_t status) {
  switch (status) {
  case HC_OK:
    return MPI_SUCCESS;
  case HC_ERR_NOMEM:
    return MPI_ERR_NO_MEM;
  case HC_ERR_ARG:
    return MPI_ERR_ARG;
  case HC_ERR_RANK:
    return MPI_ERR_RANK;
  case HC_ERR_TAG:
    return MPI_ERR_TAG;
  case HC_ERR_COMM:
    return MPI_ERR_COMM;
  case HC_ERR_TRUNCATE:
    return MPI_ERR_TRUNCATE;
  case HC_ERR_AGAIN:
    return MPIX_ERR_EAGAIN;
  case HC_ERR_PEER_DEAD:
  case HC_ERR_PEER_AUTH:
  case HC_ERR_PEER_CORRUPT:
    /* The peer is lost to this rank whatever the cause: the fault-
     * tolerance calls (and MPI_Comm_shrink) treat it as failed. */
    return MPIX_ERR_PROC_FAILED;
  case HC_ERR_PEER_DEAD_PENDING:
    return MPIX_ERR_PROC_FAILED_PENDING;
  case HC_ERR_NOT_SUPPORTED:
    return MPI_ERR_UNSUPPORTED_OPERATION;
  case HC_ERR_INTERNAL:
    return MPI_ERR_INTERN;
  case HC_ERR_REQUEST:
    return MPI_ERR_REQUEST;
  case HC_ERR_RMA_SYNC:
    return MPI_ERR_RMA_SYNC;
  case HC_ERR_RMA_RANGE:
    return MPI_ERR_RMA_RANGE;
  case HC_ERR_REVOKED:
    return MPIX_ERR_REVOKED;
  case HC_ERR_PORT:
    return MPI_ERR_PORT;
  case HC_ERR_NAME:
    return MPI_ERR_NAME;
  case HC_ERR_SERVICE:
    return MPI_ERR_SERVICE;
  case HC_ERR_SPAWN:
    return MPI_ERR_SPAWN;
  case HC_ERR_PARTIAL_ELEMENT:
    return MPI_ERR_TYPE;
  case HC_ERR_NO_CONTEXT:
  case HC_ERR_BOOTSTRAP:
  case HC_ERR_TRANSPORT:
  case HC_ERR_SYSTEM:
  case HC_ERR_STATE:
    return MPI_ERR_OTHER;
  }
  return MPI_ERR_UNKNOWN;
}

/* The receive this thread last found ending inside a basic element
 * (hc_mpi_partial_element), for the text of the code its status turns
 * into right after (hc_mpi_code_of_status). */
static _Thread_local struct {
  size_t bytes;
  size_t element;
} err_partial;

hc_status_t hc_mpi_partial_element(hcomm_status_t *st, hc_status_t error,
                                   unsigned element_mask) {
  if (error != HC_OK)
    return error;
  st->error = HC_ERR_PARTIAL_ELEMENT;
  err_partial.bytes = st->bytes;
  err_partial.element = (size_t)element_mask + 1;
  return HC_ERR_PARTIAL_ELEMENT;
}

/* The text of HC_ERR_PARTIAL_ELEMENT for the receive just found. */
#define ERR_PARTIAL_FMT                                                        \
  "message of %zu bytes ends inside a basic element of the receive "           \
  "datatype (its elements are %zu bytes each)"

int hc_mpi_code_of_status(hc_status_t status) {
  if (status != HC_ERR_PARTIAL_ELEMENT)
    return hc_mpi_class_of_status(status);
  return hc_mpi_err_detail_new(MPI_ERR_TYPE, ERR_PARTIAL_FMT, err_partial.bytes,
                               err_partial.element);
}

int hc_mpi_class_of_code(int code) {
  int cls = hc_mpi_err_detail_class(code);
  return cls >= 0 ? cls : code;
}

/* What FATAL and ABORT do: hcomm_abort prints the line (one line on
 * stderr, "hcmpi: abort (code N): <line>") and ends the job. */
static void err_fatal(int errclass, const char *line) __attribute__((noreturn));
static void err_fatal(int errclass, const char *line) {
  fflush(stdout);
  hcomm_abort(hc_mpi_class_of_code(errclass), line);
}

/* The user's handler may return, the fatal ones do not. */
void hc_mpi_errhandler_invoke(hc_mpi_errhandler_t *errh, int handle,
                              int errclass, const char *line) {
  int kind = errh->kind;
  MPI_Comm_errhandler_function *fn = errh->fn;
  MPI_Session_errhandler_function *session_fn = errh->session_fn;
  int code = errclass;
  hc_mpi_errhandler_release(errh);
  if (kind == HC_ERRH_RETURN)
    return;
  if (kind == HC_ERRH_USER && session_fn) {
    MPI_Session session = handle;
    session_fn(&session, &code);
    return;
  }
  if (kind == HC_ERRH_USER) {
    MPI_Comm comm = handle;
    fn(&comm, &code);
    return;
  }
  err_fatal(errclass, line);
}

static void err_dispatch(hc_mpi_comm_t *comm, int errclass, const char *line) {
  hc_mpi_errhandler_invoke(hc_mpi_comm_errhandler(comm), comm->handle, errclass,
                           line);
}

void hc_mpi_error_line(char *line, size_t len, const char *fn, int errclass,
                       const char *fmt, va_list ap) {
  char what[384];
  vsnprintf(what, sizeof(what), fmt, ap);
  const char *name = hc_mpi_class_name(hc_mpi_class_of_code(errclass));
  snprintf(line, len, "%s: %s (%s)", fn, what,
           name ? name : "unknown error class");
}

int hc_mpi_raise(hc_mpi_comm_t *comm, const char *fn, int errclass,
                 const char *fmt, ...) {
  if (errclass == MPI_SUCCESS)
    return MPI_SUCCESS;
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  hc_mpi_error_line(line, sizeof(line), fn, errclass, fmt, ap);
  va_end(ap);
  err_dispatch(comm ? comm : hc_mpi_comm_world(), errclass, line);
  return errclass;
}

int hc_mpi_raise_on(hc_mpi_errhandler_t *errh, int handle, const char *fn,
                    int errclass, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  hc_mpi_error_line(line, sizeof(line), fn, errclass, fmt, ap);
  va_end(ap);
  hc_mpi_errhandler_invoke(errh, handle, errclass, line);
  return errclass;
}

/* The lowest failed world rank that was lost for why, or -1; *others
 * tells whether further ranks failed. */
static int err_lost_peer(hc_status_t why, int *others) {
  int failed[64];
  int n = hcomm_failed_peers(failed, 64), found = -1;
  for (int i = 0; i < n && i < 64 && found < 0; i++)
    if (hcomm_peer_failure(failed[i]) == why)
      found = failed[i];
  *others = n > 1;
  return found;
}

int hc_mpi_raise_status(hc_mpi_comm_t *comm, const char *fn,
                        hc_status_t status) {
  if (status == HC_OK)
    return MPI_SUCCESS;
  int others = 0, lost = -1;
  if (status == HC_ERR_PEER_DEAD || status == HC_ERR_PEER_AUTH ||
      status == HC_ERR_PEER_CORRUPT)
    lost = err_lost_peer(status, &others);
  /* The one line a fatal handler prints names the lost rank and why. */
  const char *more = others ? " (and others failed)" : "";
  if (lost >= 0 && status == HC_ERR_PEER_AUTH)
    return hc_mpi_raise(comm, fn, MPIX_ERR_PROC_FAILED,
                        "world rank %d failed authentication: its job "
                        "secret or hcmpi version differs%s",
                        lost, more);
  if (lost >= 0 && status == HC_ERR_PEER_CORRUPT)
    return hc_mpi_raise(comm, fn, MPIX_ERR_PROC_FAILED,
                        "world rank %d sent corrupt data (shared-memory "
                        "ring, tcp stream or packet); it is not known to "
                        "have died%s",
                        lost, more);
  if (lost >= 0)
    return hc_mpi_raise(comm, fn, MPIX_ERR_PROC_FAILED,
                        "%s: world rank %d failed%s", hcomm_strerror(status),
                        lost, others ? " (and others)" : "");
  if (status == HC_ERR_PARTIAL_ELEMENT)
    return hc_mpi_raise(comm, fn, hc_mpi_code_of_status(status),
                        ERR_PARTIAL_FMT, err_partial.bytes,
                        err_partial.element);
  return hc_mpi_raise(comm, fn, hc_mpi_class_of_status(status), "%s",
                      hcomm_strerror(status));
}

/* ---- argument checks ---------------------------------------------------- */

int hc_mpi_check_count(const char *fn, hc_mpi_comm_t *comm, MPI_Count count) {
  if (count >= 0)
    return MPI_SUCCESS;
  return hc_mpi_raise(comm, fn, MPI_ERR_COUNT, "invalid count %lld",
                      (long long)count);
}

int hc_mpi_check_type(const char *fn, hc_mpi_comm_t *comm, MPI_Datatype type,
                      const hc_mpi_type_t **out) {
  const hc_mpi_type_t *t = hc_mpi_type_get(type);
  if (!t && type == MPI_DATATYPE_NULL)
    return hc_mpi_raise(comm, fn, MPI_ERR_TYPE,
                        "invalid datatype MPI_DATATYPE_NULL");
  if (!t)
    return hc_mpi_raise(comm, fn, MPI_ERR_TYPE, "invalid datatype 0x%x",
                        (unsigned)type);
  if (!t->committed)
    return hc_mpi_raise(comm, fn, MPI_ERR_TYPE,
                        "datatype 0x%x is not committed", (unsigned)type);
  *out = t;
  return MPI_SUCCESS;
}

/* No element moves, so no type is needed: an empty message of bytes.
 * MPICH, too, looks at a message's datatype only when count > 0, and
 * programs send "nothing" as (NULL, 0, MPI_DATATYPE_NULL). */
MPI_Datatype hc_mpi_message_type(MPI_Datatype type, MPI_Count count) {
  return count == 0 && type == MPI_DATATYPE_NULL ? MPI_BYTE : type;
}

int hc_mpi_check_data(const char *fn, hc_mpi_comm_t *comm, const void *buf,
                      MPI_Count count, MPI_Datatype type, size_t *bytes) {
  const hc_mpi_type_t *t = NULL;
  return hc_mpi_check_data_typed(fn, comm, buf, count, type, &t, bytes);
}

/* hc_mpi_check_data_typed's checks one by one, in the order their errors
 * are raised. */
static int err_check_data_each(const char *fn, hc_mpi_comm_t *comm,
                               const void *buf, MPI_Count count,
                               MPI_Datatype type, const hc_mpi_type_t **out,
                               size_t *bytes) {
  const hc_mpi_type_t *t = NULL;
  int rc = hc_mpi_check_count(fn, comm, count);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_type(fn, comm, hc_mpi_message_type(type, count), &t);
  if (rc != MPI_SUCCESS)
    return rc;
  *out = t;
  if (buf == MPI_IN_PLACE)
    return hc_mpi_raise(comm, fn, MPI_ERR_BUFFER,
                        "MPI_IN_PLACE is not a point-to-point buffer");
  size_t n = hc_mpi_type_wire_bytes(t, count);
  /* MPI_BOTTOM (NULL) is a valid buffer for a type of absolute addresses. */
  if (n > 0 && buf == NULL && t->true_lb == 0)
    return hc_mpi_raise(comm, fn, MPI_ERR_BUFFER,
                        "NULL buffer for %lld elements", (long long)count);
  *bytes = n;
  return MPI_SUCCESS;
}

int hc_mpi_check_data_typed(const char *fn, hc_mpi_comm_t *comm,
                            const void *buf, MPI_Count count, MPI_Datatype type,
                            const hc_mpi_type_t **out, size_t *bytes) {
  /* The good case in a few branches: a count, a committed type, a buffer
   * that can hold the data.  Anything else takes the checks one by one,
   * which name the first thing wrong. */
  const hc_mpi_type_t *t = hc_mpi_type_get(type);
  if (count >= 0 && t != NULL && t->committed && buf != MPI_IN_PLACE) {
    size_t n = hc_mpi_type_wire_bytes(t, count);
    if (buf != NULL || n == 0 || t->true_lb != 0) {
      *out = t;
      *bytes = n;
      return MPI_SUCCESS;
    }
  }
  return err_check_data_each(fn, comm, buf, count, type, out, bytes);
}

static int err_rank_check(const char *fn, hc_mpi_comm_t *comm, int rank,
                          const char *what, int errclass) {
  /* Point-to-point ranks on an intercommunicator name the remote group. */
  int size = hcomm_comm_peer_size(comm->engine);
  if (rank >= 0 && rank < size)
    return MPI_SUCCESS;
  return hc_mpi_raise(comm, fn, errclass,
                      "invalid %s %d for a communicator of size %d", what, rank,
                      size);
}

int hc_mpi_check_dest(const char *fn, hc_mpi_comm_t *comm, int rank) {
  if (rank == MPI_PROC_NULL)
    return MPI_SUCCESS;
  return err_rank_check(fn, comm, rank, "rank", MPI_ERR_RANK);
}

int hc_mpi_check_source(const char *fn, hc_mpi_comm_t *comm, int rank) {
  if (rank == MPI_PROC_NULL || rank == MPI_ANY_SOURCE)
    return MPI_SUCCESS;
  return err_rank_check(fn, comm, rank, "rank", MPI_ERR_RANK);
}

/* On an intercommunicator the root's group names MPI_ROOT and
 * MPI_PROC_NULL; the other group, the root's rank in the remote group. */
int hc_mpi_check_root(const char *fn, hc_mpi_comm_t *comm, int root) {
  if ((root == MPI_ROOT || root == MPI_PROC_NULL) &&
      hcomm_comm_is_inter(comm->engine))
    return MPI_SUCCESS;
  return err_rank_check(fn, comm, root, "root", MPI_ERR_ROOT);
}

int hc_mpi_check_send_tag(const char *fn, hc_mpi_comm_t *comm, int tag) {
  if (tag >= 0 && tag <= HCOMM_TAG_UB)
    return MPI_SUCCESS;
  return hc_mpi_raise(comm, fn, MPI_ERR_TAG, "invalid tag %d (valid: 0 to %d)",
                      tag, HCOMM_TAG_UB);
}

int hc_mpi_check_recv_tag(const char *fn, hc_mpi_comm_t *comm, int tag) {
  if (tag == MPI_ANY_TAG)
    return MPI_SUCCESS;
  if (tag >= 0 && tag <= HCOMM_TAG_UB)
    return MPI_SUCCESS;
  return hc_mpi_raise(comm, fn, MPI_ERR_TAG,
                      "invalid tag %d (valid: MPI_ANY_TAG or 0 to %d)", tag,
                      HCOMM_TAG_UB);
}

int hc_mpi_check_ptr(const char *fn, hc_mpi_comm_t *comm, const void *ptr,
                     const char *what) {
  if (ptr)
    return MPI_SUCCESS;
  return hc_mpi_raise(comm, fn, MPI_ERR_ARG, "%s is NULL", what);
}
