/*
 * The shared file pointer (MPI-4.0 14.4.4) lives in a small hidden file
 * beside the data file, ".<name>.hcmpi-shfp.<pid>.<n>" (8 bytes: the
 * pointer in etypes), made by rank 0 at MPI_File_open.  When every rank of
 * the file is on one node, rank 0 removes the name as soon as all have the
 * file open: the descriptors and their locks live on, and nothing is left
 * behind however the job ends.  Across nodes the name has to stay (an NFS
 * client cannot use a file another client removed) and is removed at
 * MPI_File_close.  Every rank updates it under an exclusive fcntl lock,
 * so the pointer is shared by all ranks of the file's communicator on
 * any node that sees the same file system with working locks (local
 * disks, tmpfs, NFS with lockd) and no rank has to serve the others.
 * When the directory is not writable the file cannot be made; the shared
 * pointer calls then fail with MPI_ERR_ACCESS and say why.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/io.h"

static atomic_int shfp_serial;

/* "<dir>/.<base>.hcmpi-shfp.<pid>.<n>" for the data file path. */
static char *shfp_name(const char *path) {
  const char *slash = strrchr(path, '/');
  int dirlen = slash ? (int)(slash - path + 1) : 0;
  const char *base = slash ? slash + 1 : path;
  size_t len = strlen(path) + 64;
  char *name = malloc(len);
  if (name)
    snprintf(name, len, "%.*s.%s.hcmpi-shfp.%ld.%d", dirlen, path, base,
             (long)getpid(), atomic_fetch_add(&shfp_serial, 1));
  return name;
}

void hc_io_shared_open(MPI_File f) {
  int len = 0;
  char *name = NULL;
  if (f->rank == 0 && (name = shfp_name(f->path)) != NULL) {
    int fd = open(name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    uint64_t zero = 0;
    if (fd >= 0 && hc_io_pwrite_all(fd, &zero, sizeof(zero), 0) == 0)
      len = (int)strlen(name) + 1;
    if (fd >= 0)
      close(fd);
    if (fd >= 0 && !len)
      unlink(name);
  }
  PMPI_Bcast(&len, 1, MPI_INT, 0, f->comm);
  if (len > 0 && f->rank != 0)
    name = malloc((size_t)len);
  /* Every rank joins the broadcast; one that could not allocate passes a
   * scratch buffer and goes without the pointer. */
  char scratch[1];
  if (len > 0)
    PMPI_Bcast(name ? name : scratch, name ? len : 1, MPI_CHAR, 0, f->comm);
  if (len > 0 && name) {
    f->shfp_path = name;
    f->shfp_fd = open(name, O_RDWR | O_CLOEXEC);
  } else {
    free(name);
  }
  if (len > 0 && f->nodes == 1) {
    /* Once everyone has opened it, the name can go. */
    PMPI_Barrier(f->comm);
    if (f->rank == 0)
      unlink(f->shfp_path);
    free(f->shfp_path);
    f->shfp_path = NULL;
  }
}

void hc_io_shared_close(MPI_File f) {
  if (f->comm != MPI_COMM_NULL)
    PMPI_Barrier(f->comm);
  if (f->shfp_fd >= 0)
    close(f->shfp_fd);
  f->shfp_fd = -1;
  if (f->rank == 0 && f->shfp_path)
    unlink(f->shfp_path);
}

static int shared_missing(const char *fn, MPI_File f) {
  return hc_io_raise(f, fn, MPI_ERR_ACCESS,
                     "the shared file pointer needs a file of its own beside "
                     "%s, and it could not be made there",
                     f->path);
}

int hc_io_shared_fetch_add(const char *fn, MPI_File f, MPI_Offset add,
                           MPI_Offset *old) {
  if (f->shfp_fd < 0)
    return shared_missing(fn, f);
  int64_t v = 0;
  MPI_Offset got = 0;
  hc_io_lock(f->shfp_fd, 1, 0, sizeof(v));
  int err = hc_io_pread_all(f->shfp_fd, &v, sizeof(v), 0, &got);
  if (!err && got != sizeof(v))
    v = 0;
  int64_t nv = v + add;
  if (!err && add != 0)
    err = hc_io_pwrite_all(f->shfp_fd, &nv, sizeof(nv), 0);
  hc_io_unlock(f->shfp_fd, 0, sizeof(v));
  if (err)
    return hc_io_raise(f, fn, hc_io_class_of_errno(err),
                       "the shared file pointer: %s", strerror(err));
  *old = v;
  return MPI_SUCCESS;
}

int hc_io_shared_set(const char *fn, MPI_File f, MPI_Offset value) {
  if (f->shfp_fd < 0)
    return shared_missing(fn, f);
  int64_t v = value;
  hc_io_lock(f->shfp_fd, 1, 0, sizeof(v));
  int err = hc_io_pwrite_all(f->shfp_fd, &v, sizeof(v), 0);
  hc_io_unlock(f->shfp_fd, 0, sizeof(v));
  if (err)
    return hc_io_raise(f, fn, hc_io_class_of_errno(err),
                       "the shared file pointer: %s", strerror(err));
  return MPI_SUCCESS;
}
