/*
 * One data access, whatever its family (MPI-4.0 14.4): checks, the memory
 * side, the position, and the file side.
 *
 * Memory side: the user's elements become the access's stream in the
 * file's representation.  A dense type in host memory with the native
 * representation is used in place; anything else is packed into a host
 * buffer first (hc_mpi_pack_any, which stages device memory through the
 * device layer's copies, so device buffers are never dereferenced), then
 * converted (external32: src/mpi/external32.c; a registered
 * representation: the user's functions on the user's host buffer).
 *
 * Positions: explicit offsets are given; the individual pointer is the
 * file object's; the shared pointer is fetched-and-added in its lock file
 * (io_shared.c); ordered accesses take their place from a prefix sum of
 * the ranks' sizes and rank 0 moves the shared pointer once for all.
 *
 * Every access is started, moved and ended here.  The start does
 * everything up to the place (a non-blocking one also moves the
 * individual pointer by what was asked); the move is hc_io_op_move; the
 * end lands a read and reports.  Independent non-blocking accesses move
 * on the kernel's ring or a worker thread (io_async.c).  Collective ones,
 * blocking, non-blocking or split, go through the file's queue
 * (io_collq.c), whose thread moves them in the order the collectives were
 * started; the completion (wait, test, _end) ends them.  A blocking collective
 * moves its bytes on the calling thread when nothing is queued before it.
 */
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "io/io_access.h"
#include "mpi/devstage.h"

/* ---- checks -------------------------------------------------------------- */

int hc_io_access_check(const char *fn, MPI_File f, const io_how_t *how,
                       const void *buf, MPI_Count count, MPI_Datatype datatype,
                       const hc_mpi_type_t **t) {
  int rc = hc_io_enter(fn, f);
  if (rc != MPI_SUCCESS)
    return rc;
  if (count < 0)
    return hc_io_raise(f, fn, MPI_ERR_COUNT, "invalid count %ld", (long)count);
  *t = hc_mpi_type_get(datatype);
  if (!*t || !(*t)->committed)
    return hc_io_raise(f, fn, MPI_ERR_TYPE,
                       "invalid or uncommitted datatype "
                       "0x%x",
                       (unsigned)datatype);
  if (!buf && count > 0 && (*t)->size > 0)
    return hc_io_raise(f, fn, MPI_ERR_BUFFER, "buf is NULL");
  if (how->write && (f->amode & MPI_MODE_RDONLY))
    return hc_io_raise(f, fn, MPI_ERR_READ_ONLY,
                       "writing a file opened MPI_MODE_RDONLY");
  if (!how->write && (f->amode & MPI_MODE_WRONLY))
    return hc_io_raise(f, fn, MPI_ERR_ACCESS,
                       "reading a file opened MPI_MODE_WRONLY");
  if (how->where == IO_AT_OFFSET && (f->amode & MPI_MODE_SEQUENTIAL))
    return hc_io_raise(f, fn, MPI_ERR_UNSUPPORTED_OPERATION,
                       "explicit offsets on a file opened "
                       "MPI_MODE_SEQUENTIAL");
  /* Both sizes as the file holds them (external32 may change widths). */
  MPI_Offset fsize = (MPI_Offset)(*t)->size;
  hc_io_rep_size(f->rep, *t, 1, &fsize);
  if (fsize % f->esize != 0)
    return hc_io_raise(f, fn, MPI_ERR_TYPE,
                       "the datatype (%ld bytes in the file) is not a whole "
                       "number of etypes (%ld bytes)",
                       (long)fsize, (long)f->esize);
  return MPI_SUCCESS;
}

/* ---- the memory side --------------------------------------------------- */

void hc_io_mem_free(hc_io_mem_t *m) {
  free(m->packed);
  free(m->conv);
  hc_mpi_type_release(m->t);
  m->t = NULL;
}

/* Sets up m for an access; for a write, fills the stream.  A class. */
int hc_io_mem_prepare(MPI_File f, hc_io_mem_t *m, int write) {
  MPI_Offset nat = (MPI_Offset)(m->t->size * m->count);
  hc_io_rep_size(f->rep, m->t, m->count, &m->fbytes);
  int user_rep = hc_io_rep_is_user(f->rep);
  hcomm_mem_info_t info;
  if (user_rep && hc_mpi_dev_classify(m->user, &info))
    return MPI_ERR_UNSUPPORTED_DATAREP;
  if (!user_rep && f->rep != IO_REP_EXTERNAL32 && hc_mpi_type_dense(m->t) &&
      !hc_mpi_dev_classify(m->user, &info)) {
    m->stream = m->user; /* in place */
    return MPI_SUCCESS;
  }
  if (!user_rep && !(m->packed = malloc(nat ? (size_t)nat : 1)))
    return MPI_ERR_NO_MEM;
  if (user_rep || f->rep == IO_REP_EXTERNAL32) {
    if (!(m->conv = malloc(m->fbytes ? (size_t)m->fbytes : 1)))
      return MPI_ERR_NO_MEM;
  }
  m->stream = m->conv ? m->conv : m->packed;
  if (!write)
    return MPI_SUCCESS;
  if (m->packed && hc_mpi_pack_any(m->t, m->user, m->count, m->packed) != HC_OK)
    return MPI_ERR_OTHER;
  if (m->conv)
    return hc_io_rep_convert(f->rep, m->t, m->handle, m->count,
                             user_rep ? m->user : m->packed, m->conv, 0, 1);
  return MPI_SUCCESS;
}

/* After a read of done stream bytes: into the user's buffer.  *mem_bytes
 * is how many bytes of the memory representation that is. */
int hc_io_mem_finish_read(MPI_File f, hc_io_mem_t *m, MPI_Offset done,
                          MPI_Offset *mem_bytes) {
  MPI_Offset nat = (MPI_Offset)(m->t->size * m->count);
  *mem_bytes = m->fbytes ? (MPI_Offset)((double)done / m->fbytes * nat) : 0;
  if (done == m->fbytes)
    *mem_bytes = nat;
  if (m->stream == m->user)
    return MPI_SUCCESS;
  int user_rep = hc_io_rep_is_user(f->rep);
  if (m->conv) {
    int cls = hc_io_rep_convert(f->rep, m->t, m->handle, m->count,
                                user_rep ? m->user : m->packed, m->conv, 0, 0);
    if (cls != MPI_SUCCESS || user_rep)
      return cls;
  }
  return hc_mpi_unpack_any(m->t, m->packed, *mem_bytes, m->count, m->user) ==
                 HC_OK
             ? MPI_SUCCESS
             : MPI_ERR_OTHER;
}

/* ---- positions --------------------------------------------------------------
 */

/* Where the access starts, in etypes; moves the pointers it uses. */
int hc_io_access_place(const char *fn, MPI_File f, const io_how_t *how,
                       MPI_Offset offset, MPI_Offset etypes,
                       MPI_Offset *start) {
  switch (how->where) {
  case IO_AT_OFFSET:
    if (offset < 0)
      return hc_io_raise(f, fn, MPI_ERR_ARG, "negative offset %ld",
                         (long)offset);
    *start = offset;
    return MPI_SUCCESS;
  case IO_AT_POINTER:
    *start = f->fp;
    return MPI_SUCCESS;
  case IO_AT_SHARED:
    return hc_io_shared_fetch_add(fn, f, etypes, start);
  default: { /* ordered: rank order, one move of the shared pointer */
    MPI_Offset before = 0, total = 0, base = 0;
    PMPI_Exscan(&etypes, &before, 1, MPI_OFFSET, MPI_SUM, f->comm);
    PMPI_Allreduce(&etypes, &total, 1, MPI_OFFSET, MPI_SUM, f->comm);
    int cls = MPI_SUCCESS;
    if (f->rank == 0)
      cls = hc_io_shared_fetch_add(fn, f, total, &base);
    MPI_Offset msg[2] = {base, cls};
    PMPI_Bcast(msg, 2, MPI_OFFSET, 0, f->comm);
    if (f->rank == 0)
      before = 0;
    *start = msg[0] + before;
    return msg[1] == MPI_SUCCESS
               ? MPI_SUCCESS
               : (f->rank == 0 ? (int)msg[1]
                               : hc_io_raise(f, fn, (int)msg[1],
                                             "the shared file pointer"));
  }
  }
}

/* ---- the access -------------------------------------------------------------
 */

void hc_io_status_of(MPI_Status *status, MPI_Offset bytes) {
  if (status == MPI_STATUS_IGNORE)
    return;
  hc_mpi_status_empty(status);
  status->count_hi_and_cancelled = 0;
  hc_mpi_status_set_bytes(status, bytes);
}

/* Starts op: checks, the memory side, the place.  MPI_SUCCESS with op
 * ready to move, or a raised class and nothing to free. */
static int op_begin(hc_io_op_t *op, const char *fn, MPI_File f,
                    const io_how_t *how, MPI_Offset offset, void *buf,
                    MPI_Count count, MPI_Datatype datatype) {
  const hc_mpi_type_t *t = NULL;
  int rc = hc_io_access_check(fn, f, how, buf, count, datatype, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  /* The communicator of collective accesses, made at the first one (all
   * ranks of the file start it, so the duplication is collective). */
  if (how->coll && f->coll_comm == MPI_COMM_NULL &&
      (rc = PMPI_Comm_dup(f->comm, &f->coll_comm)) != MPI_SUCCESS) {
    f->coll_comm = MPI_COMM_NULL;
    return hc_io_raise(f, fn, hc_io_class_of_code(rc),
                       "duplicating the file's communicator");
  }
  *op = (hc_io_op_t){.f = f, .fn = fn, .how = *how, .req = MPI_REQUEST_NULL};
  /* A nonblocking access may outlive the program's handle of the type
   * (MPI_Type_free right after MPI_File_iread is legal): hold the type. */
  op->m = (hc_io_mem_t){hc_mpi_type_retain(t), datatype, buf, count, 0,
                        NULL, NULL, NULL};
  op->prep_cls = hc_io_mem_prepare(f, &op->m, how->write);
  /* A view whose filetype holds no data has no place for a byte: a write
   * of some is refused, a read meets the end of the file at once. */
  int empty_view = f->ft_size == 0;
  if (op->prep_cls == MPI_SUCCESS && empty_view && how->write &&
      op->m.fbytes > 0)
    op->prep_cls = MPI_ERR_ARG;
  /* Collective accesses go on even after a local failure, with nothing
   * to move, so the other ranks are not left waiting. */
  if (op->prep_cls != MPI_SUCCESS && !how->coll) {
    hc_io_mem_free(&op->m);
    return hc_io_raise(f, fn, op->prep_cls, "preparing %ld elements",
                       (long)count);
  }
  op->n = op->prep_cls == MPI_SUCCESS && !empty_view ? op->m.fbytes : 0;
  rc = hc_io_access_place(fn, f, how, offset, op->n / f->esize, &op->start);
  if (rc != MPI_SUCCESS && how->where != IO_AT_ORDERED) {
    hc_io_mem_free(&op->m);
    return rc;
  }
  op->place_rc = rc;
  op->pos = op->start * f->esize;
  return MPI_SUCCESS;
}

void hc_io_op_move(hc_io_op_t *op) {
  MPI_File f = op->f;
  op->done = 0;
  if (op->how.coll && op->how.write)
    op->err = -hc_io_coll_write(f, op->pos, op->m.stream, op->n);
  else if (op->how.coll)
    op->err = -hc_io_coll_read(f, op->pos, op->m.stream, op->n, &op->done);
  else if (op->how.write)
    op->err = hc_io_stream_write(f, op->pos, op->m.stream, op->n);
  else
    op->err = hc_io_stream_read(f, op->pos, op->m.stream, op->n, &op->done);
  if (op->how.write && !op->err)
    op->done = op->n;
}

/* The class of a moved op's file side. */
static int op_io_class(const hc_io_op_t *op) {
  return op->err < 0 ? -op->err
         : op->err   ? hc_io_class_of_errno(op->err)
                     : MPI_SUCCESS;
}

/* Ends a moved op: a read lands in the user's buffer, the outcome goes to
 * status and, the first time, a failure through the file's handler.
 * Frees the memory side. */
static int op_end(hc_io_op_t *op, MPI_Status *status) {
  int first = !op->ended;
  if (first) {
    op->ended = 1;
    int io_cls = op_io_class(op);
    op->cls = op->prep_cls;
    op->mem_bytes = (MPI_Offset)(op->m.t->size * op->m.count);
    if (op->cls == MPI_SUCCESS && io_cls == MPI_SUCCESS && !op->how.write)
      op->cls = hc_io_mem_finish_read(op->f, &op->m, op->done, &op->mem_bytes);
    if (op->cls == MPI_SUCCESS)
      op->cls = io_cls;
    hc_io_mem_free(&op->m);
  }
  if (op->cls == MPI_SUCCESS && op->place_rc != MPI_SUCCESS)
    return op->place_rc; /* raised when placing */
  if (op->cls != MPI_SUCCESS)
    return first
               ? hc_io_raise(op->f, op->fn, op->cls, "%s %s at stream byte %ld",
                             op->how.write ? "writing" : "reading", op->f->path,
                             (long)op->pos)
               : op->cls;
  hc_io_status_of(status, op->mem_bytes);
  return MPI_SUCCESS;
}

int hc_io_access(const char *fn, MPI_File f, const io_how_t *how,
                 MPI_Offset offset, void *buf, MPI_Count count,
                 MPI_Datatype datatype, MPI_Status *status) {
  hc_io_op_t op;
  int rc = op_begin(&op, fn, f, how, offset, buf, count, datatype);
  if (rc != MPI_SUCCESS)
    return rc;
  if (how->coll)
    hc_io_collq_run(&op); /* after the file's collectives in flight */
  else
    hc_io_op_move(&op);
  /* A blocking access moves the pointer by what it moved. */
  if (how->where == IO_AT_POINTER && op_io_class(&op) == MPI_SUCCESS)
    f->fp = op.start + (f->esize ? op.done / f->esize : 0);
  return op_end(&op, status);
}

/* A started op whose place is final: the individual pointer moves by what
 * was asked, now (MPI-4.0 14.4.3), whatever the access later moves. */
static void op_advance_pointer(hc_io_op_t *op) {
  if (op->how.where == IO_AT_POINTER)
    op->f->fp = op->start + op->n / op->f->esize;
}

int hc_io_request_new(MPI_Grequest_query_function *query_fn,
                      MPI_Grequest_free_function *free_fn,
                      MPI_Grequest_cancel_function *cancel_fn, void *extra,
                      MPI_Request *request) {
  int rc = PMPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, request);
  if (rc == MPI_SUCCESS)
    hc_mpi_greq_set_raises_own(*request);
  return rc;
}

/* Generalized request callbacks of a non-blocking access. */
static int op_query(void *extra, MPI_Status *status) {
  hc_io_op_t *op = extra;
  int rc = op_end(op, status);
  if (rc != MPI_SUCCESS)
    hc_io_status_of(status, 0);
  return rc;
}

static int op_free(void *extra) {
  hc_io_op_t *op = extra;
  (void)op_end(op, MPI_STATUS_IGNORE); /* a freed request still lands */
  free(op);
  return MPI_SUCCESS;
}

/* The bytes of a started access cannot be called back (and every rank
 * takes part in a collective one). */
static int op_cancel(void *extra, int complete) {
  (void)extra;
  (void)complete;
  return MPI_SUCCESS;
}

int hc_io_start(const char *fn, MPI_File f, const io_how_t *how,
                MPI_Offset offset, void *buf, MPI_Count count,
                MPI_Datatype datatype, MPI_Request *request) {
  if (!request)
    return hc_io_raise(f, fn, MPI_ERR_ARG, "request is NULL");
  *request = MPI_REQUEST_NULL; /* what a failed start leaves */
  hc_io_op_t *op = malloc(sizeof(*op));
  if (!op)
    return hc_io_raise(f, fn, MPI_ERR_NO_MEM, "out of memory");
  int rc = op_begin(op, fn, f, how, offset, buf, count, datatype);
  if (rc != MPI_SUCCESS) {
    free(op);
    return rc;
  }
  rc = hc_io_request_new(op_query, op_free, op_cancel, op, &op->req);
  if (rc != MPI_SUCCESS) {
    hc_io_mem_free(&op->m);
    free(op);
    return rc;
  }
  op_advance_pointer(op);
  *request = op->req;
  if (how->coll)
    hc_io_collq_push(op);
  else
    hc_io_async_push(op);
  return MPI_SUCCESS;
}

int hc_io_split_begin(const char *fn, MPI_File f, const io_how_t *how,
                      MPI_Offset offset, void *buf, MPI_Count count,
                      MPI_Datatype datatype) {
  int rc = hc_io_enter(fn, f);
  if (rc != MPI_SUCCESS)
    return rc;
  if (f->split)
    return hc_io_raise(f, fn, MPI_ERR_OTHER,
                       "a split collective is already active on this file");
  hc_io_op_t *op = malloc(sizeof(*op));
  if (!op)
    return hc_io_raise(f, fn, MPI_ERR_NO_MEM, "out of memory");
  rc = op_begin(op, fn, f, how, offset, buf, count, datatype);
  if (rc != MPI_SUCCESS) {
    free(op);
    return rc;
  }
  op_advance_pointer(op);
  f->split = op;
  hc_io_collq_push(op);
  return MPI_SUCCESS;
}

int hc_io_split_end(const char *fn, MPI_File f, MPI_Status *status) {
  int rc = hc_io_enter(fn, f);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_io_op_t *op = f->split;
  if (!op)
    return hc_io_raise(f, fn, MPI_ERR_OTHER,
                       "no split collective was begun on this file");
  f->split = NULL;
  hc_io_collq_wait(op);
  op->fn = fn; /* a failure is the end call's */
  rc = op_end(op, status);
  free(op);
  return rc;
}

/* ---- file pointers ------------------------------------------------------- */

/* The new pointer for a seek from cur (in etypes); a raised class. */
static int seek_target(const char *fn, MPI_File f, MPI_Offset cur,
                       MPI_Offset offset, int whence, MPI_Offset *out) {
  MPI_Offset base;
  if (whence == MPI_SEEK_SET) {
    base = 0;
  } else if (whence == MPI_SEEK_CUR) {
    base = cur;
  } else if (whence == MPI_SEEK_END) {
    MPI_Offset size = 0;
    int rc = PMPI_File_get_size(f, &size);
    if (rc != MPI_SUCCESS)
      return rc;
    base = hc_io_view_stream_before(f, size) / f->esize;
  } else {
    return hc_io_raise(f, fn, MPI_ERR_ARG, "invalid whence %d", whence);
  }
  if (base + offset < 0)
    return hc_io_raise(f, fn, MPI_ERR_ARG,
                       "the seek would move the pointer before the view's "
                       "start (%ld etypes)",
                       (long)(base + offset));
  *out = base + offset;
  return MPI_SUCCESS;
}

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  static const char fn[] = "MPI_File_seek";
  int rc = hc_io_enter(fn, fh);
  if (rc == MPI_SUCCESS && (fh->amode & MPI_MODE_SEQUENTIAL))
    rc = hc_io_raise(fh, fn, MPI_ERR_UNSUPPORTED_OPERATION,
                     "seeking a file opened MPI_MODE_SEQUENTIAL");
  if (rc == MPI_SUCCESS)
    rc = seek_target(fn, fh, fh->fp, offset, whence, &fh->fp);
  return rc;
}
HC_WEAK_ALIAS(MPI_File_seek, PMPI_File_seek);

int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset) {
  static const char fn[] = "MPI_File_get_position";
  int rc = hc_io_enter(fn, fh);
  if (rc == MPI_SUCCESS && !offset)
    rc = hc_io_raise(fh, fn, MPI_ERR_ARG, "offset is NULL");
  if (rc == MPI_SUCCESS)
    *offset = fh->fp;
  return rc;
}
HC_WEAK_ALIAS(MPI_File_get_position, PMPI_File_get_position);

/* Collective: rank 0 moves the shared pointer; all ranks must pass the
 * same arguments (checked, MPI_ERR_NOT_SAME). */
int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  static const char fn[] = "MPI_File_seek_shared";
  int rc = hc_io_enter(fn, fh);
  if (rc == MPI_SUCCESS && (fh->amode & MPI_MODE_SEQUENTIAL))
    rc = hc_io_raise(fh, fn, MPI_ERR_UNSUPPORTED_OPERATION,
                     "seeking a file opened MPI_MODE_SEQUENTIAL");
  if (rc != MPI_SUCCESS)
    return rc;
  MPI_Offset mine[2] = {offset, whence}, lo[2], hi[2];
  PMPI_Allreduce(mine, lo, 2, MPI_OFFSET, MPI_MIN, fh->comm);
  PMPI_Allreduce(mine, hi, 2, MPI_OFFSET, MPI_MAX, fh->comm);
  if (lo[0] != hi[0] || lo[1] != hi[1])
    return hc_io_raise(fh, fn, MPI_ERR_NOT_SAME,
                       "the ranks passed different offsets or whence");
  int cls = MPI_SUCCESS;
  if (fh->rank == 0) {
    MPI_Offset cur = 0, target = 0;
    cls = hc_io_shared_fetch_add(fn, fh, 0, &cur);
    if (cls == MPI_SUCCESS)
      cls = seek_target(fn, fh, cur, offset, whence, &target);
    if (cls == MPI_SUCCESS)
      cls = hc_io_shared_set(fn, fh, target);
  }
  PMPI_Bcast(&cls, 1, MPI_INT, 0, fh->comm);
  if (cls != MPI_SUCCESS && fh->rank != 0)
    return hc_io_raise(fh, fn, cls, "moving the shared file pointer");
  return cls;
}
HC_WEAK_ALIAS(MPI_File_seek_shared, PMPI_File_seek_shared);

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset) {
  static const char fn[] = "MPI_File_get_position_shared";
  int rc = hc_io_enter(fn, fh);
  if (rc == MPI_SUCCESS && !offset)
    rc = hc_io_raise(fh, fn, MPI_ERR_ARG, "offset is NULL");
  if (rc == MPI_SUCCESS)
    rc = hc_io_shared_fetch_add(fn, fh, 0, offset);
  return rc;
}
HC_WEAK_ALIAS(MPI_File_get_position_shared, PMPI_File_get_position_shared);
