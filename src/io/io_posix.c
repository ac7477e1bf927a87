/*
 * Moving stream bytes to and from the file with pread / pwrite.
 *
 * The view cuts an access into file runs (io_view.c).  Runs close together
 * are grouped: a group spanning at most ind_rd_buffer_size (reads) or
 * ind_wr_buffer_size (writes) bytes is read in one pread, and for a write
 * patched and written back in one pwrite under a write lock on the span
 * (data sieving), so a strided view costs a few large system calls
 * instead of one per run.  romio_ds_read / romio_ds_write = disable turn
 * it off; a write-only descriptor cannot sieve writes.
 *
 * Atomic mode (MPI_File_set_atomicity) holds an fcntl lock on the whole
 * range an access touches (shared for reads, exclusive for writes), which
 * gives the standard's atomicity on a local file system and on NFS with
 * working lockd.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/io.h"

int hc_io_pwrite_all(int fd, const void *buf, MPI_Offset len, MPI_Offset off) {
  const char *p = buf;
  while (len > 0) {
    ssize_t w = pwrite(fd, p, (size_t)len, off);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0)
      return errno;
    if (w == 0)
      return ENOSPC;
    p += w;
    len -= w;
    off += w;
  }
  return 0;
}

int hc_io_pread_all(int fd, void *buf, MPI_Offset len, MPI_Offset off,
                    MPI_Offset *got) {
  char *p = buf;
  MPI_Offset total = 0;
  while (total < len) {
    ssize_t r = pread(fd, p + total, (size_t)(len - total), off + total);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return errno;
    if (r == 0)
      break; /* the end of the file */
    total += r;
  }
  *got = total;
  return 0;
}

static void lock_range(int fd, short type, MPI_Offset off, MPI_Offset len) {
  struct flock fl;
  memset(&fl, 0, sizeof(fl));
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = off;
  fl.l_len = len;
  while (fcntl(fd, F_SETLKW, &fl) != 0 && errno == EINTR)
    ;
}

void hc_io_lock(int fd, int write, MPI_Offset off, MPI_Offset len) {
  lock_range(fd, write ? F_WRLCK : F_RDLCK, off, len);
}

void hc_io_unlock(int fd, MPI_Offset off, MPI_Offset len) {
  lock_range(fd, F_UNLCK, off, len);
}

/* ---- grouping runs --------------------------------------------------------
 */

typedef struct piece {
  MPI_Offset off, len, at;
} piece_t;

typedef struct group {
  MPI_File f;
  char *buf; /* the stream bytes of the access */
  int write;
  int sieve;        /* group runs at all */
  int lock_sieve;   /* lock a sieved write's span (not in atomic mode) */
  MPI_Offset limit; /* largest span of a group */
  piece_t *p;
  size_t n, cap;
  char *tmp;       /* limit bytes, for a sieved group */
  MPI_Offset done; /* reads: stream bytes known to be read */
  int stop;        /* reads: the end of the file was met */
  int err;         /* errno */
} group_t;

static MPI_Offset group_span(const group_t *g) {
  return g->p[g->n - 1].off + g->p[g->n - 1].len - g->p[0].off;
}

static void flush_one(group_t *g, const piece_t *p) {
  if (g->write) {
    /* Another rank may be sieving over this run: its read-modify-write
     * holds the lock, so a plain write takes it too. */
    int lock = g->lock_sieve && g->f->hints.ds_write != IO_CB_DISABLE;
    if (lock)
      hc_io_lock(g->f->fd, 1, p->off, p->len);
    g->err = hc_io_pwrite_all(g->f->fd, g->buf + p->at, p->len, p->off);
    if (lock)
      hc_io_unlock(g->f->fd, p->off, p->len);
    return;
  }
  MPI_Offset got = 0;
  g->err = hc_io_pread_all(g->f->fd, g->buf + p->at, p->len, p->off, &got);
  g->done = p->at + got;
  g->stop = got < p->len;
}

static void flush_sieved(group_t *g) {
  MPI_Offset start = g->p[0].off, span = group_span(g), got = 0;
  if (g->write && g->lock_sieve)
    hc_io_lock(g->f->fd, 1, start, span);
  g->err = hc_io_pread_all(g->f->fd, g->tmp, span, start, &got);
  if (g->write && !g->err) {
    memset(g->tmp + got, 0, (size_t)(span - got));
    for (size_t i = 0; i < g->n; i++)
      memcpy(g->tmp + (g->p[i].off - start), g->buf + g->p[i].at,
             (size_t)g->p[i].len);
    g->err = hc_io_pwrite_all(g->f->fd, g->tmp, span, start);
  }
  if (g->write && g->lock_sieve)
    hc_io_unlock(g->f->fd, start, span);
  for (size_t i = 0; !g->write && !g->err && i < g->n && !g->stop; i++) {
    MPI_Offset have = start + got - g->p[i].off;
    MPI_Offset take = have < g->p[i].len ? (have > 0 ? have : 0) : g->p[i].len;
    memcpy(g->buf + g->p[i].at, g->tmp + (g->p[i].off - start), (size_t)take);
    g->done = g->p[i].at + take;
    g->stop = take < g->p[i].len;
  }
}

static int group_flush(group_t *g) {
  if (g->n == 1)
    flush_one(g, &g->p[0]);
  else if (g->n > 1)
    flush_sieved(g);
  g->n = 0;
  return g->err || g->stop;
}

static int group_add(void *ctx, MPI_Offset off, MPI_Offset len, MPI_Offset at) {
  group_t *g = ctx;
  if (g->n && (!g->sieve || off + len - g->p[0].off > g->limit) &&
      group_flush(g))
    return 1;
  if (g->n == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 64;
    piece_t *np = realloc(g->p, cap * sizeof(*np));
    if (!np) {
      g->err = ENOMEM;
      return 1;
    }
    g->p = np;
    g->cap = cap;
  }
  g->p[g->n++] = (piece_t){off, len, at};
  /* A run larger than a group goes alone, straight from the buffer. */
  if (len > g->limit)
    return group_flush(g);
  return 0;
}

/* Moves stream bytes [pos, pos + n) between buf and the file. */
static int stream_move(MPI_File f, MPI_Offset pos, char *buf, MPI_Offset n,
                       int write, MPI_Offset *done) {
  int ds = write ? f->hints.ds_write : f->hints.ds_read;
  group_t g = {.f = f, .buf = buf, .write = write};
  g.sieve = ds != IO_CB_DISABLE && (!write || f->readable) && f->ordered &&
            !(f->nblocks == 1 && f->blocks[0].len == f->ft_extent) &&
            !(ds == IO_CB_AUTO && hc_io_view_runs_large(f));
  g.limit = write ? f->hints.ind_wr_buffer_size : f->hints.ind_rd_buffer_size;
  g.lock_sieve = !f->atomic;
  if (g.sieve && !(g.tmp = malloc((size_t)g.limit)))
    g.sieve = 0;
  MPI_Offset first = 0, span = 0;
  if (f->atomic && n > 0) {
    first = hc_io_view_byte(f, pos);
    span = hc_io_view_byte(f, pos + n - 1) + 1 - first;
    hc_io_lock(f->fd, write, first, span);
  }
  if (!hc_io_view_walk(f, pos, n, group_add, &g))
    group_flush(&g);
  if (f->atomic && n > 0)
    hc_io_unlock(f->fd, first, span);
  free(g.tmp);
  free(g.p);
  if (done)
    *done = g.stop || g.err ? g.done : n;
  return g.err;
}

int hc_io_stream_write(MPI_File f, MPI_Offset pos, const void *buf,
                       MPI_Offset n) {
  /* The buffer is only read on this path. */
  return stream_move(f, pos, (char *)(uintptr_t)buf, n, 1, NULL);
}

int hc_io_stream_read(MPI_File f, MPI_Offset pos, void *buf, MPI_Offset n,
                      MPI_Offset *done) {
  return stream_move(f, pos, buf, n, 0, done);
}
