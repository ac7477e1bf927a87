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
 * Independent non-blocking accesses move their bytes on a worker thread
 * (io_async.c).  Collective non-blocking and split collective accesses
 * are done in the call that starts them; the request handed back is
 * already complete (MPI-4.0 allows an implementation to finish the work
 * at any time before the completion call).
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

int hc_io_access(const char *fn, MPI_File f, const io_how_t *how,
                 MPI_Offset offset, void *buf, MPI_Count count,
                 MPI_Datatype datatype, MPI_Status *status) {
  const hc_mpi_type_t *t = NULL;
  int rc = hc_io_access_check(fn, f, how, buf, count, datatype, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_io_mem_t m = {t, datatype, buf, count, 0, NULL, NULL, NULL};
  int cls = hc_io_mem_prepare(f, &m, how->write);
  /* Collective accesses go on even after a local failure, with nothing
   * to move, so the other ranks are not left waiting. */
  if (cls != MPI_SUCCESS && !how->coll) {
    hc_io_mem_free(&m);
    return hc_io_raise(f, fn, cls, "preparing %ld elements", (long)count);
  }
  MPI_Offset n = cls == MPI_SUCCESS ? m.fbytes : 0, start = 0, done = 0;
  MPI_Offset etypes = n / f->esize;
  rc = hc_io_access_place(fn, f, how, offset, cls == MPI_SUCCESS ? etypes : 0,
                          &start);
  if (rc != MPI_SUCCESS && how->where != IO_AT_ORDERED) {
    hc_io_mem_free(&m);
    return rc;
  }
  MPI_Offset pos = start * f->esize;
  int err = 0;
  if (how->coll && how->write)
    err = -hc_io_coll_write(f, pos, m.stream, n);
  else if (how->coll)
    err = -hc_io_coll_read(f, pos, m.stream, n, &done);
  else if (how->write)
    err = hc_io_stream_write(f, pos, m.stream, n);
  else
    err = hc_io_stream_read(f, pos, m.stream, n, &done);
  if (how->write && !err)
    done = n;
  /* Errors: collective ones are classes (negated), others errnos. */
  int io_cls = err < 0 ? -err : err ? hc_io_class_of_errno(err) : MPI_SUCCESS;
  MPI_Offset mem_bytes = (MPI_Offset)(t->size * count);
  if (cls == MPI_SUCCESS && io_cls == MPI_SUCCESS && !how->write)
    cls = hc_io_mem_finish_read(f, &m, done, &mem_bytes);
  if (how->where == IO_AT_POINTER && io_cls == MPI_SUCCESS)
    f->fp = start + (f->esize ? done / f->esize : 0);
  hc_io_mem_free(&m);
  if (cls == MPI_SUCCESS)
    cls = io_cls;
  if (cls == MPI_SUCCESS && rc != MPI_SUCCESS)
    return rc;
  if (cls != MPI_SUCCESS)
    return hc_io_raise(f, fn, cls, "%s %s at stream byte %ld",
                       how->write ? "writing" : "reading", f->path, (long)pos);
  hc_io_status_of(status, mem_bytes);
  return MPI_SUCCESS;
}

int hc_io_start(const char *fn, MPI_File f, const io_how_t *how,
                MPI_Offset offset, void *buf, MPI_Count count,
                MPI_Datatype datatype, MPI_Request *request) {
  if (!request)
    return hc_io_raise(f, fn, MPI_ERR_ARG, "request is NULL");
  *request = MPI_REQUEST_NULL; /* what a failed start leaves */
  if (!how->coll)
    return hc_io_async_start(fn, f, how, offset, buf, count, datatype, request);
  MPI_Status st;
  int rc = hc_io_access(fn, f, how, offset, buf, count, datatype, &st);
  if (rc != MPI_SUCCESS) {
    *request = MPI_REQUEST_NULL;
    return rc;
  }
  hcomm_status_t done = {MPI_ANY_SOURCE, MPI_ANY_TAG,
                         (size_t)hc_mpi_status_bytes(&st), 0, HC_OK};
  hc_mpi_comm_t *c = hc_mpi_comm_get(f->comm);
  return hc_mpi_request_new_done(fn, c, &done, request);
}

int hc_io_split_begin(const char *fn, MPI_File f, const io_how_t *how,
                      MPI_Offset offset, void *buf, MPI_Count count,
                      MPI_Datatype datatype) {
  int rc = hc_io_enter(fn, f);
  if (rc != MPI_SUCCESS)
    return rc;
  if (f->split_active)
    return hc_io_raise(f, fn, MPI_ERR_OTHER,
                       "a split collective is already active on this file");
  f->split_rc =
      hc_io_access(fn, f, how, offset, buf, count, datatype, &f->split_status);
  f->split_active = 1;
  return f->split_rc;
}

int hc_io_split_end(const char *fn, MPI_File f, MPI_Status *status) {
  int rc = hc_io_enter(fn, f);
  if (rc != MPI_SUCCESS)
    return rc;
  if (!f->split_active)
    return hc_io_raise(f, fn, MPI_ERR_OTHER,
                       "no split collective was begun on this file");
  f->split_active = 0;
  if (status != MPI_STATUS_IGNORE)
    *status = f->split_status;
  return f->split_rc;
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
