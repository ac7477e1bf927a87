/*
 * Buffered mode: the attach, detach and flush calls of the process's
 * buffer (MPI_Buffer_*), and MPI-4.1's of a communicator's and a
 * session's, and the buffered sends.  A send uses its communicator's
 * buffer, else that of the session the communicator derives from, else
 * the process's, the order MPI-4.1 gives.  The pools themselves, their
 * blocks and their flushes are bsend_pool.c's.
 */
#include <limits.h>
#include <stdint.h>

#include "mpi/bsend_pool.h"
#include "mpi/mpi_impl.h"
#include "mpi/mpi_trace.h"

/* The process's buffer (MPI_Buffer_attach). */
static hc_mpi_bsend_pool_t *buffer_process_slot;

/* The buffer a send on c goes through, held; NULL when none is attached
 * at any of the three levels. */
static hc_mpi_bsend_pool_t *buffer_pool_of(hc_mpi_comm_t *c) {
  hc_mpi_bsend_pool_t *pool = hc_mpi_bsend_slot_get(&c->bsend);
  hc_mpi_bsend_pool_t **session_slot =
      pool || !c->session ? NULL : hc_mpi_session_bsend_slot(c->session);
  if (session_slot)
    pool = hc_mpi_bsend_slot_get(session_slot);
  if (!pool)
    pool = hc_mpi_bsend_slot_get(&buffer_process_slot);
  return pool;
}

int hc_mpi_bsend(const char *fn, hc_mpi_comm_t *c, const void *buf,
                 size_t bytes, int dest, int tag) {
  return hc_mpi_bsend_typed(fn, c, buf, (MPI_Count)bytes,
                            hc_mpi_type_get(MPI_BYTE), dest, tag);
}

int hc_mpi_bsend_typed(const char *fn, hc_mpi_comm_t *c, const void *buf,
                       MPI_Count count, const hc_mpi_type_t *type, int dest,
                       int tag) {
  hc_mpi_bsend_pool_t *pool = buffer_pool_of(c);
  if (!pool)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                        "no buffer attached for a buffered send of %lld "
                        "bytes",
                        (long long)(count * type->size));
  int rc = hc_mpi_bsend_pool_send(fn, c, pool, buf, count, type, dest, tag);
  hc_mpi_bsend_pool_release(pool);
  return rc;
}

/* ---- attach and detach, at each level ----------------------------------- */

/* An attach's buffer and size: MPI_BUFFER_AUTOMATIC (size ignored), or a
 * region, which may be empty.  Returns the class, raising nothing. */
static int buffer_check_region(const void *buffer, MPI_Count size,
                               const char **why) {
  if (buffer == MPI_BUFFER_AUTOMATIC)
    return MPI_SUCCESS;
  if (size < 0) {
    *why = "invalid size";
    return MPI_ERR_ARG;
  }
  if (!buffer && size > 0) {
    *why = "buffer is NULL";
    return MPI_ERR_BUFFER;
  }
  return MPI_SUCCESS;
}

/* Attaches to slot; the class, with why, raising nothing. */
static int buffer_attach_to(hc_mpi_bsend_pool_t **slot, void *buffer,
                            MPI_Count size, const char **why) {
  int rc = buffer_check_region(buffer, size, why);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_bsend_slot_attach(slot, buffer, (size_t)size);
  if (rc == MPI_ERR_BUFFER && !*why)
    *why = "a buffer is already attached; detach it first";
  if (rc == MPI_ERR_NO_MEM)
    *why = "out of memory";
  return rc;
}

/* The outputs of a detach: size_arg is the caller's size argument,
 * checked; what was attached goes to *buffer_addr and *size. */
static int buffer_detach_args(const char *fn, hc_mpi_comm_t *c,
                              void *buffer_addr, const void *size_arg) {
  int rc = hc_mpi_check_ptr(fn, c, buffer_addr, "buffer_addr");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, size_arg, "size");
  return rc;
}

static void buffer_detach_from(hc_mpi_bsend_pool_t **slot, void *buffer_addr,
                               MPI_Count *size) {
  size_t n = 0;
  hc_mpi_bsend_slot_detach(slot, (void **)buffer_addr, &n);
  *size = (MPI_Count)n;
}

/* A size read back through an int: one too large for it reads
 * MPI_UNDEFINED, as MPI has sizes that int cannot hold reported. */
static int buffer_size_int(MPI_Count n) {
  return n > INT_MAX ? MPI_UNDEFINED : (int)n;
}

static int buffer_attach(const char *fn, void *buffer, MPI_Count size) {
  int rc = hc_mpi_check_ready(fn);
  if (rc != MPI_SUCCESS)
    return rc;
  const char *why = NULL;
  rc = buffer_attach_to(&buffer_process_slot, buffer, size, &why);
  if (rc != MPI_SUCCESS)
    return hc_mpi_raise(NULL, fn, rc, "%s (size %lld)", why, (long long)size);
  return MPI_SUCCESS;
}

int PMPI_Buffer_attach(void *buffer, int size) {
  return buffer_attach("MPI_Buffer_attach", buffer, size);
}
HC_WEAK_ALIAS(MPI_Buffer_attach, PMPI_Buffer_attach);

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size) {
  return buffer_attach("MPI_Buffer_attach_c", buffer, size);
}
HC_WEAK_ALIAS(MPI_Buffer_attach_c, PMPI_Buffer_attach_c);

static int buffer_detach(const char *fn, void *buffer_addr,
                         const void *size_arg, MPI_Count *size) {
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = buffer_detach_args(fn, NULL, buffer_addr, size_arg);
  if (rc != MPI_SUCCESS)
    return rc;
  buffer_detach_from(&buffer_process_slot, buffer_addr, size);
  return MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size) {
  MPI_Count n = 0;
  int rc = buffer_detach("MPI_Buffer_detach", buffer_addr, size, &n);
  if (rc == MPI_SUCCESS)
    *size = buffer_size_int(n);
  return rc;
}
HC_WEAK_ALIAS(MPI_Buffer_detach, PMPI_Buffer_detach);

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size) {
  return buffer_detach("MPI_Buffer_detach_c", buffer_addr, size, size);
}
HC_WEAK_ALIAS(MPI_Buffer_detach_c, PMPI_Buffer_detach_c);

static int comm_attach(const char *fn, MPI_Comm comm, void *buffer,
                       MPI_Count size) {
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  const char *why = NULL;
  rc = buffer_attach_to(&c->bsend, buffer, size, &why);
  if (rc != MPI_SUCCESS)
    return hc_mpi_raise(c, fn, rc, "%s (size %lld)", why, (long long)size);
  return MPI_SUCCESS;
}

int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size) {
  return comm_attach("MPI_Comm_attach_buffer", comm, buffer, size);
}
HC_WEAK_ALIAS(MPI_Comm_attach_buffer, PMPI_Comm_attach_buffer);

int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size) {
  return comm_attach("MPI_Comm_attach_buffer_c", comm, buffer, size);
}
HC_WEAK_ALIAS(MPI_Comm_attach_buffer_c, PMPI_Comm_attach_buffer_c);

static int comm_detach(const char *fn, MPI_Comm comm, void *buffer_addr,
                       const void *size_arg, MPI_Count *size) {
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = buffer_detach_args(fn, c, buffer_addr, size_arg);
  if (rc != MPI_SUCCESS)
    return rc;
  buffer_detach_from(&c->bsend, buffer_addr, size);
  return MPI_SUCCESS;
}

int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size) {
  MPI_Count n = 0;
  int rc = comm_detach("MPI_Comm_detach_buffer", comm, buffer_addr, size, &n);
  if (rc == MPI_SUCCESS)
    *size = buffer_size_int(n);
  return rc;
}
HC_WEAK_ALIAS(MPI_Comm_detach_buffer, PMPI_Comm_detach_buffer);

int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr,
                              MPI_Count *size) {
  return comm_detach("MPI_Comm_detach_buffer_c", comm, buffer_addr, size, size);
}
HC_WEAK_ALIAS(MPI_Comm_detach_buffer_c, PMPI_Comm_detach_buffer_c);

static int session_attach(const char *fn, MPI_Session session, void *buffer,
                          MPI_Count size) {
  hc_mpi_bsend_pool_t **slot = hc_mpi_session_bsend_slot(session);
  if (!slot)
    return hc_mpi_raise(NULL, fn, MPI_ERR_SESSION, "invalid session 0x%x",
                        (unsigned)session);
  const char *why = NULL;
  int rc = buffer_attach_to(slot, buffer, size, &why);
  if (rc != MPI_SUCCESS)
    return hc_mpi_session_raise(session, fn, rc, why);
  return MPI_SUCCESS;
}

int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size) {
  return session_attach("MPI_Session_attach_buffer", session, buffer, size);
}
HC_WEAK_ALIAS(MPI_Session_attach_buffer, PMPI_Session_attach_buffer);

int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer,
                                 MPI_Count size) {
  return session_attach("MPI_Session_attach_buffer_c", session, buffer, size);
}
HC_WEAK_ALIAS(MPI_Session_attach_buffer_c, PMPI_Session_attach_buffer_c);

static int session_detach(const char *fn, MPI_Session session,
                          void *buffer_addr, const void *size_arg,
                          MPI_Count *size) {
  hc_mpi_bsend_pool_t **slot = hc_mpi_session_bsend_slot(session);
  if (!slot)
    return hc_mpi_raise(NULL, fn, MPI_ERR_SESSION, "invalid session 0x%x",
                        (unsigned)session);
  if (!buffer_addr || !size_arg)
    return hc_mpi_session_raise(session, fn, MPI_ERR_ARG,
                                !buffer_addr ? "buffer_addr is NULL"
                                             : "size is NULL");
  buffer_detach_from(slot, buffer_addr, size);
  return MPI_SUCCESS;
}

int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr,
                               int *size) {
  MPI_Count n = 0;
  int rc = session_detach("MPI_Session_detach_buffer", session, buffer_addr,
                          size, &n);
  if (rc == MPI_SUCCESS)
    *size = buffer_size_int(n);
  return rc;
}
HC_WEAK_ALIAS(MPI_Session_detach_buffer, PMPI_Session_detach_buffer);

int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr,
                                 MPI_Count *size) {
  return session_detach("MPI_Session_detach_buffer_c", session, buffer_addr,
                        size, size);
}
HC_WEAK_ALIAS(MPI_Session_detach_buffer_c, PMPI_Session_detach_buffer_c);

/* ---- flushes (MPI-4.1) -------------------------------------------------- */

int PMPI_Buffer_flush(void) {
  int rc = hc_mpi_check_ready("MPI_Buffer_flush");
  if (rc == MPI_SUCCESS)
    hc_mpi_bsend_slot_flush(&buffer_process_slot);
  return rc;
}
HC_WEAK_ALIAS(MPI_Buffer_flush, PMPI_Buffer_flush);

int PMPI_Buffer_iflush(MPI_Request *request) {
  static const char fn[] = "MPI_Buffer_iflush";
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, request, "request");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_bsend_slot_iflush(fn, &buffer_process_slot, request);
  return rc;
}
HC_WEAK_ALIAS(MPI_Buffer_iflush, PMPI_Buffer_iflush);

int PMPI_Comm_flush_buffer(MPI_Comm comm) {
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter("MPI_Comm_flush_buffer", comm, &c);
  if (rc == MPI_SUCCESS)
    hc_mpi_bsend_slot_flush(&c->bsend);
  return rc;
}
HC_WEAK_ALIAS(MPI_Comm_flush_buffer, PMPI_Comm_flush_buffer);

int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request) {
  static const char fn[] = "MPI_Comm_iflush_buffer";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, request, "request");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_bsend_slot_iflush(fn, &c->bsend, request);
  return rc;
}
HC_WEAK_ALIAS(MPI_Comm_iflush_buffer, PMPI_Comm_iflush_buffer);

int PMPI_Session_flush_buffer(MPI_Session session) {
  static const char fn[] = "MPI_Session_flush_buffer";
  hc_mpi_bsend_pool_t **slot = hc_mpi_session_bsend_slot(session);
  if (!slot)
    return hc_mpi_raise(NULL, fn, MPI_ERR_SESSION, "invalid session 0x%x",
                        (unsigned)session);
  hc_mpi_bsend_slot_flush(slot);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Session_flush_buffer, PMPI_Session_flush_buffer);

int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request) {
  static const char fn[] = "MPI_Session_iflush_buffer";
  hc_mpi_bsend_pool_t **slot = hc_mpi_session_bsend_slot(session);
  if (!slot)
    return hc_mpi_raise(NULL, fn, MPI_ERR_SESSION, "invalid session 0x%x",
                        (unsigned)session);
  if (!request)
    return hc_mpi_session_raise(session, fn, MPI_ERR_ARG, "request is NULL");
  return hc_mpi_bsend_slot_iflush(fn, slot, request);
}
HC_WEAK_ALIAS(MPI_Session_iflush_buffer, PMPI_Session_iflush_buffer);

/* MPI_Bsend: the checks of a send, then the copy into the attached
 * buffer, from which the engine sends. */
static int bsend_body(const char *fn, const void *buf, MPI_Count count,
                      MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  hc_mpi_comm_t *c = NULL;
  size_t bytes = 0;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_send(fn, c, buf, count, datatype, dest, tag, &bytes);
  if (rc != MPI_SUCCESS || dest == MPI_PROC_NULL)
    return rc;
  return hc_mpi_bsend_typed(
      fn, c, buf, count, hc_mpi_type_get(hc_mpi_message_type(datatype, count)),
      dest, tag);
}

/* Traced entry (mpi_trace.h). */
static int bsend_traced(const char *fn, const void *buf, MPI_Count count,
                        MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = bsend_body(fn, buf, count, datatype, dest, tag, comm);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_BSEND, t0, dest, tag,
                               hc_mpi_trace_bytes(count, datatype))
            : rc;
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm) {
  return bsend_traced("MPI_Bsend", buf, count, datatype, dest, tag, comm);
}
HC_WEAK_ALIAS(MPI_Bsend, PMPI_Bsend);

int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                 int dest, int tag, MPI_Comm comm) {
  return bsend_traced("MPI_Bsend_c", buf, count, datatype, dest, tag, comm);
}
HC_WEAK_ALIAS(MPI_Bsend_c, PMPI_Bsend_c);

/* MPI_Ibsend: MPI_Bsend's work, then a request already complete. */
static int ibsend_body(const char *fn, const void *buf, MPI_Count count,
                       MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                       MPI_Request *request) {
  hc_mpi_comm_t *c = NULL;
  size_t bytes = 0;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_send(fn, c, buf, count, datatype, dest, tag, &bytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, request, "request");
  if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL)
    rc = hc_mpi_bsend_typed(
        fn, c, buf, count,
        hc_mpi_type_get(hc_mpi_message_type(datatype, count)), dest, tag);
  if (rc != MPI_SUCCESS)
    return rc;
  /* The data now sits in the attached buffer: the send is complete. */
  hcomm_status_t st = {MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0, HC_OK};
  return hc_mpi_request_new_done(fn, c, &st, request);
}

/* Traced entry (mpi_trace.h). */
static int ibsend_traced(const char *fn, const void *buf, MPI_Count count,
                         MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = ibsend_body(fn, buf, count, datatype, dest, tag, comm, request);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IBSEND, t0, dest, tag,
                               hc_mpi_trace_bytes(count, datatype))
            : rc;
}

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm comm, MPI_Request *request) {
  return ibsend_traced("MPI_Ibsend", buf, count, datatype, dest, tag, comm,
                       request);
}
HC_WEAK_ALIAS(MPI_Ibsend, PMPI_Ibsend);

int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                  int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  return ibsend_traced("MPI_Ibsend_c", buf, count, datatype, dest, tag, comm,
                       request);
}
HC_WEAK_ALIAS(MPI_Ibsend_c, PMPI_Ibsend_c);
