/*
 * Files: open, close, delete, size, hints, atomicity, the Fortran handle
 * and the file error handlers (MPI-4.0 sections 14.2 and 9.3).
 *
 * Open is collective: rank 0 creates the file first (so MPI_MODE_EXCL
 * fails on one rank only and everyone learns it), then every rank opens
 * it, and the worst error class any rank met is everyone's answer, so all
 * ranks leave open with the same result.  A write-only file is opened
 * read-write when the permissions allow, so that aggregators and data
 * sieving can read around the holes they patch.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "io/io.h"
#include "mpi/handle.h"

static hc_handle_table_t file_table =
    HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_FILE, 1);
/* The handler of MPI_FILE_NULL: new files start with it (MPI_ERRORS_RETURN
 * unless changed, as the standard says). */
static hc_mpi_errhandler_t *file_null_errh;
static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- errors ---------------------------------------------------------------
 */

static hc_mpi_errhandler_t *file_errhandler(MPI_File f) {
  pthread_mutex_lock(&file_lock);
  hc_mpi_errhandler_t *e = f ? f->errh : file_null_errh;
  if (!e)
    e = hc_mpi_errhandler_get(MPI_ERRORS_RETURN);
  hc_mpi_errhandler_retain(e);
  pthread_mutex_unlock(&file_lock);
  return e;
}

int hc_io_raise(MPI_File f, const char *fn, int errclass, const char *fmt,
                ...) {
  if (errclass == MPI_SUCCESS)
    return MPI_SUCCESS;
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  hc_mpi_error_line(line, sizeof(line), fn, errclass, fmt, ap);
  va_end(ap);
  hc_mpi_errhandler_t *e = file_errhandler(f);
  int kind = e->kind;
  MPI_File_errhandler_function *user = e->file_fn;
  hc_mpi_errhandler_release(e);
  if (kind == HC_ERRH_USER && user) {
    MPI_File handle = f;
    int code = errclass;
    user(&handle, &code);
  } else if (kind == HC_ERRH_FATAL || kind == HC_ERRH_ABORT) {
    fflush(stdout);
    hcomm_abort(errclass, line);
  }
  return errclass;
}

int hc_io_class_of_code(int code) {
  int cls = MPI_ERR_OTHER;
  if (code == MPI_SUCCESS)
    return MPI_SUCCESS;
  PMPI_Error_class(code, &cls);
  return cls;
}

int hc_io_class_of_errno(int err) {
  switch (err) {
  case ENOENT:
    return MPI_ERR_NO_SUCH_FILE;
  case EACCES:
  case EPERM:
    return MPI_ERR_ACCESS;
  case EEXIST:
    return MPI_ERR_FILE_EXISTS;
  case ENOSPC:
  case EFBIG:
    return MPI_ERR_NO_SPACE;
  case EDQUOT:
    return MPI_ERR_QUOTA;
  case EROFS:
    return MPI_ERR_READ_ONLY;
  case ENAMETOOLONG:
  case ENOTDIR:
  case EISDIR:
  case ELOOP:
    return MPI_ERR_BAD_FILE;
  case ETXTBSY:
  case EBUSY:
    return MPI_ERR_FILE_IN_USE;
  case ENOMEM:
    return MPI_ERR_NO_MEM;
  default:
    return MPI_ERR_IO;
  }
}

/* A live file object: its handle finds it in the table.  (A pointer to
 * freed memory cannot be told apart without reading it, as in MPICH.) */
static int file_is_live(MPI_File f) {
  if (!f)
    return 0;
  pthread_mutex_lock(&file_lock);
  int live = hc_handle_get(&file_table, f->handle) == (void *)f;
  pthread_mutex_unlock(&file_lock);
  return live;
}

int hc_io_enter(const char *fn, MPI_File f) {
  int rc = hc_mpi_check_ready(fn);
  if (rc != MPI_SUCCESS)
    return rc;
  if (f == MPI_FILE_NULL)
    return hc_io_raise(NULL, fn, MPI_ERR_FILE, "invalid file MPI_FILE_NULL");
  if (!file_is_live(f))
    return hc_io_raise(NULL, fn, MPI_ERR_FILE, "invalid file %p", (void *)f);
  return MPI_SUCCESS;
}

/* ---- hints ----------------------------------------------------------------
 */

static int hint_switch(const char *v, int dflt) {
  if (!strcmp(v, "enable"))
    return IO_CB_ENABLE;
  if (!strcmp(v, "disable"))
    return IO_CB_DISABLE;
  if (!strcmp(v, "automatic"))
    return IO_CB_AUTO;
  return dflt;
}

static const char *switch_name(int v) {
  return v == IO_CB_ENABLE    ? "enable"
         : v == IO_CB_DISABLE ? "disable"
                              : "automatic";
}

/* Reads the hints we act on from info into h (unknown values keep the
 * defaults) and copies every key of info into f->info. */
static void hints_take(MPI_File f, MPI_Info info) {
  io_hints_t *h = &f->hints;
  int nkeys = 0;
  if (info == MPI_INFO_NULL || PMPI_Info_get_nkeys(info, &nkeys) != 0)
    nkeys = 0;
  for (int i = 0; i < nkeys; i++) {
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    if (PMPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS ||
        PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag) != 0 || !flag)
      continue;
    PMPI_Info_set(f->info, key, val);
    long n = atol(val);
    if (!strcmp(key, "cb_nodes") && n > 0)
      h->cb_nodes = (int)n;
    else if (!strcmp(key, "cb_buffer_size") && n > 0)
      h->cb_buffer_size = n;
    else if (!strcmp(key, "ind_rd_buffer_size") && n > 0)
      h->ind_rd_buffer_size = n;
    else if (!strcmp(key, "ind_wr_buffer_size") && n > 0)
      h->ind_wr_buffer_size = n;
    else if (!strcmp(key, "romio_cb_read"))
      h->cb_read = hint_switch(val, h->cb_read);
    else if (!strcmp(key, "romio_cb_write"))
      h->cb_write = hint_switch(val, h->cb_write);
    else if (!strcmp(key, "romio_ds_read"))
      h->ds_read = hint_switch(val, h->ds_read);
    else if (!strcmp(key, "romio_ds_write"))
      h->ds_write = hint_switch(val, h->ds_write);
  }
}

/* Writes the values in use back into f->info, so get_info shows them. */
static void hints_publish(MPI_File f) {
  char v[32];
  const io_hints_t *h = &f->hints;
  snprintf(v, sizeof(v), "%d", f->naggr);
  PMPI_Info_set(f->info, "cb_nodes", v);
  snprintf(v, sizeof(v), "%ld", (long)h->cb_buffer_size);
  PMPI_Info_set(f->info, "cb_buffer_size", v);
  snprintf(v, sizeof(v), "%ld", (long)h->ind_rd_buffer_size);
  PMPI_Info_set(f->info, "ind_rd_buffer_size", v);
  snprintf(v, sizeof(v), "%ld", (long)h->ind_wr_buffer_size);
  PMPI_Info_set(f->info, "ind_wr_buffer_size", v);
  PMPI_Info_set(f->info, "romio_cb_read", switch_name(h->cb_read));
  PMPI_Info_set(f->info, "romio_cb_write", switch_name(h->cb_write));
  PMPI_Info_set(f->info, "romio_ds_read", switch_name(h->ds_read));
  PMPI_Info_set(f->info, "romio_ds_write", switch_name(h->ds_write));
}

static void hints_default(io_hints_t *h) {
  h->cb_nodes = 0; /* one per node */
  h->cb_buffer_size = 16 << 20;
  h->cb_read = h->cb_write = IO_CB_AUTO;
  h->ds_read = h->ds_write = IO_CB_AUTO;
  h->ind_rd_buffer_size = 4 << 20;
  h->ind_wr_buffer_size = 512 << 10;
}

/* ---- open and close ----------------------------------------------------- */

static int amode_check(int amode) {
  int rd = !!(amode & MPI_MODE_RDONLY), wr = !!(amode & MPI_MODE_WRONLY),
      rw = !!(amode & MPI_MODE_RDWR);
  if (rd + wr + rw != 1)
    return 0;
  if (rd && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
    return 0;
  if ((amode & MPI_MODE_SEQUENTIAL) && rw)
    return 0;
  return 1;
}

/* open(2) flags for amode; creat adds the creation flags (rank 0). */
static int amode_flags(int amode, int creat) {
  int fl = (amode & MPI_MODE_RDONLY) ? O_RDONLY : O_RDWR;
  if (creat && (amode & MPI_MODE_CREATE))
    fl |= O_CREAT;
  if (creat && (amode & MPI_MODE_EXCL))
    fl |= O_EXCL;
  return fl;
}

/* Opens the file, falling back to write-only where read-write is refused;
 * -errno on failure. */
static int posix_open(const char *path, int amode, int creat) {
  int fd = open(path, amode_flags(amode, creat) | O_CLOEXEC, 0666);
  if (fd < 0 && errno == EACCES && (amode & MPI_MODE_WRONLY))
    fd =
        open(path, (amode_flags(amode, creat) & ~O_RDWR) | O_WRONLY | O_CLOEXEC,
             0666);
  return fd >= 0 ? fd : -errno;
}

/* ROMIO names a file system before the path ("ufs:/tmp/x", "nfs:x"); the
 * file system here is always POSIX, so the prefix is dropped. */
static const char *strip_fs_prefix(const char *name) {
  const char *colon = strchr(name, ':');
  if (!colon || colon - name < 2 || memchr(name, '/', (size_t)(colon - name)))
    return name;
  return colon + 1;
}

static void file_free(MPI_File f) {
  if (!f)
    return;
  hc_io_collq_close(f);
  if (f->fd >= 0)
    close(f->fd);
  if (f->coll_comm != MPI_COMM_NULL)
    PMPI_Comm_free(&f->coll_comm);
  if (f->comm != MPI_COMM_NULL)
    PMPI_Comm_free(&f->comm);
  if (f->info != MPI_INFO_NULL)
    PMPI_Info_free(&f->info);
  if (f->errh)
    hc_mpi_errhandler_release(f->errh);
  hc_io_view_free(f);
  free(f->aggr);
  free(f->path);
  free(f->shfp_path);
  free(f);
}

/* 1 when fd is on a file system of this node's own disks or memory; a
 * network or parallel one (NFS, Lustre, GPFS, ...) or an unknown one is
 * not: collective buffering and data sieving stay on for those. */
static int fs_is_local(int fd) {
  static const unsigned long local_types[] = {
      0xEF53,     /* ext2/3/4 */
      0x58465342, /* xfs */
      0x9123683E, /* btrfs */
      0x01021994, /* tmpfs */
      0xF2F52010, /* f2fs */
      0x2FC12FC1, /* zfs */
      0x794C7630, /* overlayfs */
  };
  struct statfs st;
  if (fstatfs(fd, &st) != 0)
    return 0;
  for (size_t i = 0; i < sizeof(local_types) / sizeof(local_types[0]); i++)
    if ((unsigned long)st.f_type == local_types[i])
      return 1;
  return 0;
}

/* Every rank's worst class (classes are positive; MPI_SUCCESS is 0). */
static int agree_class(MPI_Comm comm, int cls) {
  int worst = cls;
  if (PMPI_Allreduce(&cls, &worst, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
    return MPI_ERR_OTHER;
  return worst;
}

/* The collective part of open once f->comm exists: the file on every rank,
 * then its view, aggregators and shared pointer. */
static int file_open_on_all(const char *fn, MPI_File f, int *err) {
  int fd = 0;
  if (f->rank == 0)
    fd = posix_open(f->path, f->amode, 1);
  int first = fd < 0 ? -fd : 0;
  PMPI_Bcast(&first, 1, MPI_INT, 0, f->comm);
  if (first) {
    *err = first;
    return hc_io_class_of_errno(first);
  }
  if (f->rank != 0)
    fd = posix_open(f->path, f->amode, 0);
  *err = fd < 0 ? -fd : 0;
  f->fd = fd < 0 ? -1 : fd;
  f->readable = fd >= 0 && (fcntl(fd, F_GETFL) & O_ACCMODE) != O_WRONLY;
  f->local_fs = fd >= 0 && fs_is_local(fd);
  int cls = agree_class(f->comm, fd < 0 ? hc_io_class_of_errno(-fd) : 0);
  if (cls != MPI_SUCCESS)
    return cls;
  if (hc_io_view_default(f) != MPI_SUCCESS || hc_io_coll_setup(f) != 0)
    return MPI_ERR_NO_MEM;
  hc_io_shared_open(f);
  if (f->amode & MPI_MODE_APPEND) {
    struct stat st;
    f->fp = fstat(f->fd, &st) == 0 ? st.st_size : 0;
    if (f->rank == 0 && f->shfp_fd >= 0)
      hc_io_shared_set(fn, f, f->fp);
    PMPI_Barrier(f->comm);
  }
  return MPI_SUCCESS;
}

static int file_publish(MPI_File f) {
  pthread_mutex_lock(&file_lock);
  int rc = hc_handle_alloc(&file_table, f, &f->handle);
  pthread_mutex_unlock(&file_lock);
  return rc;
}

int PMPI_File_open(MPI_Comm comm, const char *filename, int amode,
                   MPI_Info info, MPI_File *fh) {
  static const char fn[] = "MPI_File_open";
  int rc = hc_mpi_check_ready(fn);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_comm_t *c = hc_mpi_comm_get(comm);
  if (!c)
    return hc_io_raise(NULL, fn, MPI_ERR_COMM, "invalid communicator 0x%x",
                       (unsigned)comm);
  if (!fh || !filename)
    return hc_io_raise(NULL, fn, MPI_ERR_ARG, "%s is NULL",
                       fh ? "filename" : "fh");
  if (info != MPI_INFO_NULL && !hc_mpi_info_get(info))
    return hc_io_raise(NULL, fn, MPI_ERR_INFO, "invalid info 0x%x",
                       (unsigned)info);
  if (!amode_check(amode))
    return hc_io_raise(NULL, fn, MPI_ERR_AMODE,
                       "access mode 0x%x: exactly one of RDONLY, WRONLY, "
                       "RDWR; no CREATE or EXCL with RDONLY; no SEQUENTIAL "
                       "with RDWR",
                       (unsigned)amode);
  filename = strip_fs_prefix(filename);
  MPI_File f = calloc(1, sizeof(*f));
  if (!f || !(f->path = strdup(filename))) {
    free(f);
    return hc_io_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  f->fd = f->shfp_fd = -1;
  f->comm = f->coll_comm = MPI_COMM_NULL;
  f->info = MPI_INFO_NULL;
  f->amode = amode;
  f->errh = file_errhandler(NULL);
  hints_default(&f->hints);
  int err = 0, cls = MPI_ERR_OTHER;
  if (PMPI_Comm_dup(comm, &f->comm) == MPI_SUCCESS) {
    /* The file's own communicator carries its open, views and close: a
     * few small collectives, for which a shared-memory segment (some
     * milliseconds to make) cost more than it saved at every open (an
     * open, a write and a close on 2 ranks: 5.4 ms with it). */
    hc_mpi_comm_t *own = hc_mpi_comm_get(f->comm);
    if (own != NULL)
      hcomm_coll_shm_defer(own->engine, 1);
    PMPI_Comm_set_errhandler(f->comm, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(f->comm, &f->rank);
    PMPI_Comm_size(f->comm, &f->size);
    cls = PMPI_Info_create(&f->info);
  }
  if (cls == MPI_SUCCESS) {
    hints_take(f, info);
    cls = file_open_on_all(fn, f, &err);
  }
  if (cls == MPI_SUCCESS)
    hints_publish(f);
  if (cls == MPI_SUCCESS && file_publish(f) != 0)
    cls = MPI_ERR_NO_MEM;
  if (cls != MPI_SUCCESS) {
    hc_io_shared_close(f);
    file_free(f);
    return hc_io_raise(NULL, fn, cls, "%s: %s", filename,
                       err ? strerror(err) : "open failed on another rank");
  }
  *fh = f;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_File_open, PMPI_File_open);

int PMPI_File_close(MPI_File *fh) {
  static const char fn[] = "MPI_File_close";
  if (!fh)
    return hc_io_raise(NULL, fn, MPI_ERR_ARG, "fh is NULL");
  int rc = hc_io_enter(fn, *fh);
  if (rc != MPI_SUCCESS)
    return rc;
  MPI_File f = *fh;
  /* The application completes its accesses before closing (MPI-4.0
   * 14.2.2); the file's thread may still be finishing one. */
  hc_io_collq_close(f);
  /* MPI-4.0 14.2.2 makes close "synchronize file state": what every rank
   * wrote is visible to whoever opens the file next.  close(2) gives that
   * on a local file system and, by close-to-open consistency, on NFS, and
   * it reports a write the file system could not keep (NFS, delayed
   * allocation).  Pushing the bytes to the device (fsync) is
   * MPI_File_sync's job, not close's: it cost 2-50 ms per close, and
   * neither ROMIO nor OMPIO does it either. */
  int sync_err = f->fd >= 0 && close(f->fd) != 0 && errno != EINTR ? errno : 0;
  f->fd = -1;
  hc_io_shared_close(f); /* a barrier: every rank is done with the file */
  if ((f->amode & MPI_MODE_DELETE_ON_CLOSE) && f->rank == 0)
    unlink(f->path);
  pthread_mutex_lock(&file_lock);
  hc_handle_free(&file_table, f->handle);
  pthread_mutex_unlock(&file_lock);
  file_free(f);
  *fh = MPI_FILE_NULL;
  if (sync_err)
    return hc_io_raise(NULL, fn, hc_io_class_of_errno(sync_err),
                       "flushing the file: %s", strerror(sync_err));
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_File_close, PMPI_File_close);

int PMPI_File_delete(const char *filename, MPI_Info info) {
  static const char fn[] = "MPI_File_delete";
  int rc = hc_mpi_check_ready(fn);
  if (rc != MPI_SUCCESS)
    return rc;
  if (!filename)
    return hc_io_raise(NULL, fn, MPI_ERR_ARG, "filename is NULL");
  if (info != MPI_INFO_NULL && !hc_mpi_info_get(info))
    return hc_io_raise(NULL, fn, MPI_ERR_INFO, "invalid info 0x%x",
                       (unsigned)info);
  if (unlink(filename) != 0) {
    int e = errno;
    return hc_io_raise(NULL, fn, hc_io_class_of_errno(e), "%s: %s", filename,
                       strerror(e));
  }
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_File_delete, PMPI_File_delete);

/* ---- size ------------------------------------------------------------------
 */

static int size_check(const char *fn, MPI_File f, MPI_Offset size) {
  int rc = hc_io_enter(fn, f);
  if (rc == MPI_SUCCESS && size < 0)
    rc = hc_io_raise(f, fn, MPI_ERR_ARG, "negative size %ld", (long)size);
  if (rc == MPI_SUCCESS && (f->amode & MPI_MODE_RDONLY))
    rc = hc_io_raise(f, fn, MPI_ERR_READ_ONLY, "the file was opened read-only");
  if (rc == MPI_SUCCESS && (f->amode & MPI_MODE_SEQUENTIAL))
    rc = hc_io_raise(f, fn, MPI_ERR_UNSUPPORTED_OPERATION,
                     "the file was opened with MPI_MODE_SEQUENTIAL");
  return rc;
}

/* Rank 0 changes the file; everyone learns its errno. */
static int size_apply(const char *fn, MPI_File f, MPI_Offset size, int grow) {
  int err = 0;
  hc_io_collq_drain(f); /* its accesses land before the size changes */
  if (f->rank == 0) {
    if (grow) {
      struct stat st;
      if (fstat(f->fd, &st) != 0)
        err = errno;
      else if (st.st_size < size)
        err = posix_fallocate(f->fd, 0, size);
      if (err == EOPNOTSUPP || err == EINVAL) /* no fallocate: extend */
        err = st.st_size < size && ftruncate(f->fd, size) != 0 ? errno : 0;
    } else if (ftruncate(f->fd, size) != 0) {
      err = errno;
    }
  }
  PMPI_Bcast(&err, 1, MPI_INT, 0, f->comm);
  if (err)
    return hc_io_raise(f, fn, hc_io_class_of_errno(err), "%s: %s", f->path,
                       strerror(err));
  return MPI_SUCCESS;
}

int PMPI_File_set_size(MPI_File fh, MPI_Offset size) {
  static const char fn[] = "MPI_File_set_size";
  int rc = size_check(fn, fh, size);
  return rc != MPI_SUCCESS ? rc : size_apply(fn, fh, size, 0);
}
HC_WEAK_ALIAS(MPI_File_set_size, PMPI_File_set_size);

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  static const char fn[] = "MPI_File_preallocate";
  int rc = size_check(fn, fh, size);
  return rc != MPI_SUCCESS ? rc : size_apply(fn, fh, size, 1);
}
HC_WEAK_ALIAS(MPI_File_preallocate, PMPI_File_preallocate);

int PMPI_File_get_size(MPI_File fh, MPI_Offset *size) {
  static const char fn[] = "MPI_File_get_size";
  int rc = hc_io_enter(fn, fh);
  if (rc == MPI_SUCCESS && !size)
    rc = hc_io_raise(fh, fn, MPI_ERR_ARG, "size is NULL");
  if (rc != MPI_SUCCESS)
    return rc;
  struct stat st;
  if (fstat(fh->fd, &st) != 0) {
    int e = errno;
    return hc_io_raise(fh, fn, hc_io_class_of_errno(e), "%s", strerror(e));
  }
  *size = st.st_size;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_File_get_size, PMPI_File_get_size);

int PMPI_File_sync(MPI_File fh) {
  static const char fn[] = "MPI_File_sync";
  int rc = hc_io_enter(fn, fh);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_io_collq_drain(fh); /* what the file's thread still moves */
  int err = fsync(fh->fd) != 0 && errno != EINVAL ? errno : 0;
  /* Collective: what one rank wrote and synced is visible to the others
   * after this call (MPI-4.0 14.6.1). */
  PMPI_Barrier(fh->comm);
  if (err)
    return hc_io_raise(fh, fn, hc_io_class_of_errno(err), "%s", strerror(err));
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_File_sync, PMPI_File_sync);

/* ---- queries ------------------------------------------------------------- */

static int query_enter(const char *fn, MPI_File f, const void *out,
                       const char *what) {
  int rc = hc_io_enter(fn, f);
  if (rc == MPI_SUCCESS && !out)
    rc = hc_io_raise(f, fn, MPI_ERR_ARG, "%s is NULL", what);
  return rc;
}

int PMPI_File_get_amode(MPI_File fh, int *amode) {
  int rc = query_enter("MPI_File_get_amode", fh, amode, "amode");
  if (rc == MPI_SUCCESS)
    *amode = fh->amode;
  return rc;
}
HC_WEAK_ALIAS(MPI_File_get_amode, PMPI_File_get_amode);

int PMPI_File_get_group(MPI_File fh, MPI_Group *group) {
  int rc = query_enter("MPI_File_get_group", fh, group, "group");
  if (rc == MPI_SUCCESS)
    rc = PMPI_Comm_group(fh->comm, group);
  return rc;
}
HC_WEAK_ALIAS(MPI_File_get_group, PMPI_File_get_group);

int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used) {
  static const char fn[] = "MPI_File_get_info";
  int rc = query_enter(fn, fh, info_used, "info_used");
  if (rc == MPI_SUCCESS && PMPI_Info_dup(fh->info, info_used) != MPI_SUCCESS)
    rc = hc_io_raise(fh, fn, MPI_ERR_NO_MEM, "out of memory");
  return rc;
}
HC_WEAK_ALIAS(MPI_File_get_info, PMPI_File_get_info);

int PMPI_File_set_info(MPI_File fh, MPI_Info info) {
  static const char fn[] = "MPI_File_set_info";
  int rc = hc_io_enter(fn, fh);
  if (rc == MPI_SUCCESS && info != MPI_INFO_NULL && !hc_mpi_info_get(info))
    rc = hc_io_raise(fh, fn, MPI_ERR_INFO, "invalid info 0x%x", (unsigned)info);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_io_collq_drain(fh); /* the file's thread reads the hints */
  hints_take(fh, info);
  if (hc_io_coll_setup(fh) != 0)
    return hc_io_raise(fh, fn, MPI_ERR_NO_MEM, "out of memory");
  hints_publish(fh);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_File_set_info, PMPI_File_set_info);

int PMPI_File_set_atomicity(MPI_File fh, int flag) {
  static const char fn[] = "MPI_File_set_atomicity";
  int rc = hc_io_enter(fn, fh);
  if (rc != MPI_SUCCESS)
    return rc;
  int mine = flag != 0, lo = 0, hi = 0;
  PMPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, fh->comm);
  PMPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, fh->comm);
  if (lo != hi)
    return hc_io_raise(fh, fn, MPI_ERR_NOT_SAME,
                       "the ranks passed different flags");
  hc_io_collq_drain(fh); /* the file's thread reads the mode */
  fh->atomic = mine;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_File_set_atomicity, PMPI_File_set_atomicity);

int PMPI_File_get_atomicity(MPI_File fh, int *flag) {
  int rc = query_enter("MPI_File_get_atomicity", fh, flag, "flag");
  if (rc == MPI_SUCCESS)
    *flag = fh->atomic;
  return rc;
}
HC_WEAK_ALIAS(MPI_File_get_atomicity, PMPI_File_get_atomicity);

/* ---- Fortran handles ------------------------------------------------------
 */

MPI_Fint PMPI_File_c2f(MPI_File file) {
  if (file == MPI_FILE_NULL || !file_is_live(file))
    return 0;
  return (MPI_Fint)file->handle;
}
HC_WEAK_ALIAS(MPI_File_c2f, PMPI_File_c2f);

MPI_File PMPI_File_f2c(MPI_Fint file) {
  if (file == 0)
    return MPI_FILE_NULL;
  pthread_mutex_lock(&file_lock);
  MPI_File f = hc_handle_get(&file_table, (int)file);
  pthread_mutex_unlock(&file_lock);
  return f;
}
HC_WEAK_ALIAS(MPI_File_f2c, PMPI_File_f2c);

/* ---- error handlers --------------------------------------------------------
 */

int PMPI_File_create_errhandler(MPI_File_errhandler_function *function,
                                MPI_Errhandler *errhandler) {
  static const char fn[] = "MPI_File_create_errhandler";
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS && (!function || !errhandler))
    rc = hc_io_raise(NULL, fn, MPI_ERR_ARG, "%s is NULL",
                     function ? "errhandler" : "function");
  if (rc != MPI_SUCCESS)
    return rc;
  return hc_mpi_errhandler_new_user(fn, NULL, function, NULL, errhandler);
}
HC_WEAK_ALIAS(MPI_File_create_errhandler, PMPI_File_create_errhandler);

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
  static const char fn[] = "MPI_File_set_errhandler";
  int rc =
      file == MPI_FILE_NULL ? hc_mpi_check_ready(fn) : hc_io_enter(fn, file);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_errhandler_t *e = hc_mpi_errhandler_get(errhandler);
  if (!e || (e->kind == HC_ERRH_USER && !e->file_fn))
    return hc_io_raise(file, fn, MPI_ERR_ERRHANDLER,
                       "errhandler 0x%x is not a file error handler",
                       (unsigned)errhandler);
  hc_mpi_errhandler_retain(e);
  pthread_mutex_lock(&file_lock);
  hc_mpi_errhandler_t **slot = file ? &file->errh : &file_null_errh;
  hc_mpi_errhandler_t *old = *slot;
  *slot = e;
  pthread_mutex_unlock(&file_lock);
  if (old)
    hc_mpi_errhandler_release(old);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_File_set_errhandler, PMPI_File_set_errhandler);

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler) {
  static const char fn[] = "MPI_File_get_errhandler";
  int rc =
      file == MPI_FILE_NULL ? hc_mpi_check_ready(fn) : hc_io_enter(fn, file);
  if (rc == MPI_SUCCESS && !errhandler)
    rc = hc_io_raise(file, fn, MPI_ERR_ARG, "errhandler is NULL");
  if (rc != MPI_SUCCESS)
    return rc;
  /* The reference taken here is the user's (MPI_Errhandler_free). */
  *errhandler = file_errhandler(file)->handle;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_File_get_errhandler, PMPI_File_get_errhandler);

int PMPI_File_call_errhandler(MPI_File fh, int errorcode) {
  static const char fn[] = "MPI_File_call_errhandler";
  int rc = fh == MPI_FILE_NULL ? hc_mpi_check_ready(fn) : hc_io_enter(fn, fh);
  if (rc != MPI_SUCCESS)
    return rc;
  int cls = hc_mpi_class_of_code(errorcode);
  if (!hc_mpi_class_name(cls) && !hc_mpi_err_user_class(errorcode, &cls))
    cls = MPI_ERR_UNKNOWN;
  hc_mpi_errhandler_t *e = file_errhandler(fh);
  int user = e->kind == HC_ERRH_USER;
  MPI_File_errhandler_function *ufn = e->file_fn;
  hc_mpi_errhandler_release(e);
  if (user) {
    MPI_File handle = fh;
    int code = errorcode;
    ufn(&handle, &code);
    return MPI_SUCCESS;
  }
  hc_io_raise(fh, fn, cls, "error code %d raised by the application",
              errorcode);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_File_call_errhandler, PMPI_File_call_errhandler);
