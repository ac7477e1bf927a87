/*
 * File views (MPI-4.0 14.3), data representations (14.5) and the mapping
 * of stream bytes onto file bytes.
 *
 * A filetype is flattened once, at MPI_File_set_view, into the runs of
 * one instance (io_block_t), merged where they touch; the file is that
 * instance tiled every extent bytes from the displacement.  Walking a
 * range of the stream finds its first run by binary search and then emits
 * file runs in order, merging the ones that touch, so a contiguous view
 * gives one run however long the access.
 *
 * Representations: native and internal are the memory bytes; external32
 * is converted by src/mpi/external32.c (the one encoder of the library);
 * a registered representation calls the user's conversion functions.
 * The layout of a view is the filetype's layout in the file's
 * representation: native displacements, except in external32 when the
 * etype or filetype holds a type whose width changes there (MPI_LONG,
 * MPI_UNSIGNED_LONG, MPI_WCHAR, the pair types), where io_filetype.c
 * rebuilds it with file widths as MPI-4.0 14.5 says.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"

/* ---- representations ------------------------------------------------- */

typedef struct io_rep {
  char name[MPI_MAX_DATAREP_STRING];
  MPI_Datarep_conversion_function *rd, *wr;
  MPI_Datarep_conversion_function_c *rd_c, *wr_c;
  MPI_Datarep_extent_function *extent;
  void *extra;
} io_rep_t;

#define IO_REP_MAX 64
static io_rep_t reps[IO_REP_MAX] = {
    {.name = "native"}, {.name = "internal"}, {.name = "external32"}};
static int nreps = 3;
static pthread_mutex_t rep_lock = PTHREAD_MUTEX_INITIALIZER;

static int rep_find(const char *name) {
  pthread_mutex_lock(&rep_lock);
  int found = -1;
  for (int i = 0; i < nreps && found < 0; i++)
    if (!strcmp(reps[i].name, name))
      found = i;
  pthread_mutex_unlock(&rep_lock);
  return found;
}

static const io_rep_t *rep_get(int rep) {
  pthread_mutex_lock(&rep_lock);
  const io_rep_t *r = &reps[rep];
  pthread_mutex_unlock(&rep_lock);
  return r;
}

/* The user's file extent of one element of t in a registered rep. */
static int rep_user_extent(const io_rep_t *r, const hc_mpi_type_t *t,
                           MPI_Aint *ext) {
  if (!r->extent)
    return MPI_ERR_UNSUPPORTED_DATAREP;
  return r->extent(t->handle, ext, r->extra) == MPI_SUCCESS
             ? MPI_SUCCESS
             : MPI_ERR_CONVERSION;
}

int hc_io_rep_size(int rep, const hc_mpi_type_t *t, MPI_Count count,
                   MPI_Offset *bytes) {
  if (rep == IO_REP_EXTERNAL32) {
    *bytes = hc_mpi_ext32_size(t, count);
    return MPI_SUCCESS;
  }
  *bytes = (MPI_Offset)(t->size * count);
  return MPI_SUCCESS;
}

int hc_io_rep_convert(int rep, const hc_mpi_type_t *t, MPI_Datatype handle,
                      MPI_Count count, void *user, void *file,
                      MPI_Offset position, int to_file) {
  if (rep == IO_REP_EXTERNAL32) {
    if (to_file)
      hc_mpi_ext32_from_native(t, user, count, file);
    else
      hc_mpi_ext32_to_native(t, file, count, user);
    return MPI_SUCCESS;
  }
  const io_rep_t *r = rep_get(rep);
  MPI_Datarep_conversion_function_c *cv_c = to_file ? r->wr_c : r->rd_c;
  MPI_Datarep_conversion_function *cv = to_file ? r->wr : r->rd;
  int rc = MPI_SUCCESS;
  if (cv_c)
    rc = cv_c(user, handle, count, file, position, r->extra);
  else if (cv)
    rc = cv(user, handle, (int)count, file, position, r->extra);
  else if (to_file) /* MPI_CONVERSION_FN_NULL: the native bytes */
    hc_mpi_type_pack(t, user, count, file);
  else
    hc_mpi_type_unpack(t, file, count, user);
  return rc == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_CONVERSION;
}

/* Registered representations pass the user's buffer to the functions. */
int hc_io_rep_is_user(int rep) { return rep > IO_REP_EXTERNAL32; }

static int register_rep(const char *fn, const char *name,
                        MPI_Datarep_conversion_function *rd,
                        MPI_Datarep_conversion_function *wr,
                        MPI_Datarep_conversion_function_c *rd_c,
                        MPI_Datarep_conversion_function_c *wr_c,
                        MPI_Datarep_extent_function *extent, void *extra) {
  int rc = hc_mpi_check_ready(fn);
  if (rc != MPI_SUCCESS)
    return rc;
  if (!name || !*name || strlen(name) >= MPI_MAX_DATAREP_STRING || !extent)
    return hc_io_raise(NULL, fn, MPI_ERR_ARG, "%s",
                       extent ? "invalid datarep name"
                              : "dtype_file_extent_fn is NULL");
  pthread_mutex_lock(&rep_lock);
  int cls = MPI_SUCCESS;
  for (int i = 0; i < nreps && cls == MPI_SUCCESS; i++)
    if (!strcmp(reps[i].name, name))
      cls = MPI_ERR_DUP_DATAREP;
  if (cls == MPI_SUCCESS && nreps == IO_REP_MAX)
    cls = MPI_ERR_NO_MEM;
  if (cls == MPI_SUCCESS) {
    io_rep_t *r = &reps[nreps++];
    snprintf(r->name, sizeof(r->name), "%s", name);
    r->rd = rd;
    r->wr = wr;
    r->rd_c = rd_c;
    r->wr_c = wr_c;
    r->extent = extent;
    r->extra = extra;
  }
  pthread_mutex_unlock(&rep_lock);
  return hc_io_raise(NULL, fn, cls, "data representation \"%s\"", name);
}

int PMPI_Register_datarep(const char *datarep,
                          MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn,
                          void *extra_state) {
  return register_rep("MPI_Register_datarep", datarep, read_conversion_fn,
                      write_conversion_fn, NULL, NULL, dtype_file_extent_fn,
                      extra_state);
}
HC_WEAK_ALIAS(MPI_Register_datarep, PMPI_Register_datarep);

int PMPI_Register_datarep_c(
    const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn,
    MPI_Datarep_conversion_function_c *write_conversion_fn,
    MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state) {
  return register_rep("MPI_Register_datarep_c", datarep, NULL, NULL,
                      read_conversion_fn, write_conversion_fn,
                      dtype_file_extent_fn, extra_state);
}
HC_WEAK_ALIAS(MPI_Register_datarep_c, PMPI_Register_datarep_c);

/* ---- flattening --------------------------------------------------------- */

typedef struct flat {
  io_block_t *b;
  size_t n, cap;
  const char *base;
  int bad;            /* out of memory, negative, decreasing, refused overlap */
  int allow_disorder; /* a read-only file may overlap runs */
  int disorder;       /* a run starts before the previous one ends */
} flat_t;

static void flat_visit(void *ctx, char *mem, MPI_Count pos, MPI_Aint len,
                       int unit) {
  flat_t *fl = ctx;
  (void)unit;
  MPI_Offset off = (MPI_Offset)((uintptr_t)mem - (uintptr_t)fl->base);
  if (fl->bad)
    return;
  if (fl->n && off < fl->b[fl->n - 1].off + fl->b[fl->n - 1].len)
    fl->disorder = 1;
  /* Runs never go back (monotonically nondecreasing displacements); only
   * a read-only file may overlap them. */
  if (off < 0 || (fl->n && off < fl->b[fl->n - 1].off) ||
      (fl->disorder && !fl->allow_disorder)) {
    fl->bad = MPI_ERR_IO; /* see io_view_order */
    return;
  }
  if (fl->n && fl->b[fl->n - 1].off + fl->b[fl->n - 1].len == off) {
    fl->b[fl->n - 1].len += len;
    return;
  }
  if (fl->n == fl->cap) {
    size_t cap = fl->cap ? 2 * fl->cap : 16;
    io_block_t *nb = realloc(fl->b, cap * sizeof(*nb));
    if (!nb) {
      fl->bad = MPI_ERR_NO_MEM;
      return;
    }
    fl->b = nb;
    fl->cap = cap;
  }
  fl->b[fl->n++] = (io_block_t){off, len, (MPI_Offset)pos};
}

/* The runs of one element of t, or a class: MPI_ERR_IO for negative or
 * decreasing displacements, and for overlapping ones unless
 * allow_disorder (MPI-4.0 14.3: filetypes of files that are written must
 * not overlap); MPI_ERR_NO_MEM.  *ordered tells whether the runs go
 * forward without overlap. */
static int flatten(const hc_mpi_type_t *t, int allow_disorder, io_block_t **out,
                   size_t *n, int *ordered) {
  /* Addresses are computed from a base far from 0 and never followed. */
  static const char *const base = (const char *)(uintptr_t)((uintptr_t)1 << 46);
  flat_t fl = {NULL, 0, 0, base, 0, allow_disorder, 0};
  hc_mpi_type_visit(t, base, 0, t->size, flat_visit, &fl);
  if (fl.bad) {
    free(fl.b);
    return fl.bad;
  }
  *out = fl.b;
  *n = fl.n;
  *ordered = !fl.disorder;
  return MPI_SUCCESS;
}

/* ---- the view ------------------------------------------------------------ */

/* A filetype whose displacements break MPI-4.0 14.3 is a valid datatype
 * used where it cannot be, so its class is the I/O one MPICH (ROMIO) gives
 * it, MPI_ERR_IO, not MPI_ERR_TYPE (the standard names none). */
static const char io_view_order[] =
    "the filetype's displacements must be non-negative and nondecreasing, "
    "and may overlap only in a file opened read-only";

static void type_drop(MPI_Datatype *t) {
  const hc_mpi_type_t *o = hc_mpi_type_get(*t);
  if (o && !o->predefined)
    PMPI_Type_free(t);
  *t = MPI_DATATYPE_NULL;
}

void hc_io_view_free(MPI_File f) {
  type_drop(&f->etype);
  type_drop(&f->filetype);
  free(f->blocks);
  f->blocks = NULL;
  f->nblocks = 0;
}

/* Our own handle of a type: derived ones are duplicated (the user may
 * free theirs), predefined ones kept. */
static int type_keep(MPI_Datatype in, MPI_Datatype *out) {
  const hc_mpi_type_t *o = hc_mpi_type_get(in);
  if (o->predefined) {
    *out = in;
    return MPI_SUCCESS;
  }
  return PMPI_Type_dup(in, out);
}

/* Installs a checked view; a class on failure (the old view stays).
 * elay and flay are the layouts of etype and filetype in the file (the
 * types themselves unless widths change, io_filetype.c). */
static int view_install(MPI_File f, MPI_Offset disp, MPI_Datatype etype,
                        MPI_Datatype filetype, MPI_Datatype elay,
                        MPI_Datatype flay, int rep) {
  const hc_mpi_type_t *ft = hc_mpi_type_get(flay);
  const hc_mpi_type_t *et = hc_mpi_type_get(elay);
  io_block_t *blocks = NULL;
  size_t nblocks = 0;
  int ordered = 1;
  int cls = flatten(ft, (f->amode & MPI_MODE_RDONLY) != 0, &blocks, &nblocks,
                    &ordered);
  if (cls != MPI_SUCCESS)
    return cls;
  MPI_Datatype ek = MPI_DATATYPE_NULL, fk = MPI_DATATYPE_NULL;
  if (type_keep(etype, &ek) != MPI_SUCCESS ||
      type_keep(filetype, &fk) != MPI_SUCCESS) {
    type_drop(&ek);
    free(blocks);
    return MPI_ERR_NO_MEM;
  }
  hc_io_view_free(f);
  f->disp = disp;
  f->etype = ek;
  f->filetype = fk;
  f->blocks = blocks;
  f->nblocks = nblocks;
  f->ordered = ordered;
  f->ft_size = (MPI_Offset)ft->size;
  f->ft_extent = ft->extent;
  f->esize = (MPI_Offset)et->size;
  f->rep = rep;
  f->fp = 0;
  return MPI_SUCCESS;
}

int hc_io_view_default(MPI_File f) {
  return view_install(f, 0, MPI_BYTE, MPI_BYTE, MPI_BYTE, MPI_BYTE,
                      IO_REP_NATIVE);
}

/* Checks etype and filetype for a view in rep; a raised class. */
static int view_check_types(const char *fn, MPI_File f, const hc_mpi_type_t *et,
                            const hc_mpi_type_t *ft, int rep) {
  /* A filetype of no data is a view with no place in the file: a rank
   * with nothing to access in a collective one sets it (ROMIO takes it). */
  if (et->size == 0 || ft->size % et->size != 0)
    return hc_io_raise(f, fn, MPI_ERR_TYPE,
                       "the filetype (%ld bytes of data) must hold a whole "
                       "number of non-empty etypes (%ld bytes)",
                       (long)ft->size, (long)et->size);
  if (ft->true_lb < 0 || ft->lb < 0)
    return hc_io_raise(f, fn, MPI_ERR_IO, "%s", io_view_order);
  if (ft->extent <= 0)
    return hc_io_raise(f, fn, MPI_ERR_TYPE, "the filetype's extent is %ld",
                       (long)ft->extent);
  if (rep > IO_REP_EXTERNAL32) {
    MPI_Aint ext = 0;
    int cls = rep_user_extent(rep_get(rep), et, &ext);
    if (cls == MPI_SUCCESS && ext != (MPI_Aint)et->size)
      cls = MPI_ERR_UNSUPPORTED_DATAREP;
    if (cls != MPI_SUCCESS)
      return hc_io_raise(f, fn, cls,
                         "registered representations must keep the native "
                         "size of the etype (%ld bytes)",
                         (long)et->size);
  }
  return MPI_SUCCESS;
}

/* The layouts of etype and filetype in an external32 file; a raised
 * class (nothing left to free) on failure. */
static int view_layouts(const char *fn, MPI_File f, MPI_Datatype etype,
                        MPI_Datatype filetype, MPI_Datatype *elay,
                        MPI_Datatype *flay) {
  int rc = hc_io_file_layout_type(etype, elay);
  if (rc == MPI_SUCCESS) {
    rc = hc_io_file_layout_type(filetype, flay);
    if (rc != MPI_SUCCESS)
      hc_io_file_layout_free(etype, elay);
  }
  if (rc == MPI_SUCCESS)
    return rc;
  *elay = etype;
  *flay = filetype;
  return hc_io_raise(f, fn, hc_io_class_of_code(rc),
                     "laying out the view in external32 (a type built with "
                     "a large-count constructor cannot be)");
}

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                       MPI_Datatype filetype, const char *datarep,
                       MPI_Info info) {
  static const char fn[] = "MPI_File_set_view";
  int rc = hc_io_enter(fn, fh);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_io_collq_drain(fh); /* the file's thread reads the view */
  const hc_mpi_type_t *et = hc_mpi_type_get(etype),
                      *ft = hc_mpi_type_get(filetype);
  if (!et || !ft || !et->committed || !ft->committed)
    return hc_io_raise(fh, fn, MPI_ERR_TYPE, "invalid or uncommitted %s",
                       (!et || !et->committed) ? "etype" : "filetype");
  int rep = datarep ? rep_find(datarep) : -1;
  if (rep < 0)
    return hc_io_raise(fh, fn, MPI_ERR_UNSUPPORTED_DATAREP,
                       "unknown data representation \"%s\"",
                       datarep ? datarep : "(null)");
  if (disp == MPI_DISPLACEMENT_CURRENT && !(fh->amode & MPI_MODE_SEQUENTIAL))
    return hc_io_raise(fh, fn, MPI_ERR_ARG,
                       "MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL");
  if (disp == MPI_DISPLACEMENT_CURRENT) {
    MPI_Offset cur = 0;
    rc = hc_io_shared_fetch_add(fn, fh, 0, &cur);
    if (rc != MPI_SUCCESS)
      return rc;
    disp = hc_io_view_byte(fh, cur * fh->esize);
  }
  if (disp < 0)
    return hc_io_raise(fh, fn, MPI_ERR_ARG, "negative displacement %ld",
                       (long)disp);
  MPI_Datatype elay = etype, flay = filetype;
  if (rep == IO_REP_EXTERNAL32)
    rc = view_layouts(fn, fh, etype, filetype, &elay, &flay);
  if (rc == MPI_SUCCESS)
    rc = view_check_types(fn, fh, hc_mpi_type_get(elay),
                          hc_mpi_type_get(flay), rep);
  if (rc == MPI_SUCCESS && info != MPI_INFO_NULL && !hc_mpi_info_get(info))
    rc = hc_io_raise(fh, fn, MPI_ERR_INFO, "invalid info 0x%x",
                     (unsigned)info);
  int cls = rc == MPI_SUCCESS
                ? view_install(fh, disp, etype, filetype, elay, flay, rep)
                : rc;
  hc_io_file_layout_free(etype, &elay);
  hc_io_file_layout_free(filetype, &flay);
  if (rc != MPI_SUCCESS)
    return rc;
  if (cls == MPI_SUCCESS && info != MPI_INFO_NULL)
    cls = PMPI_File_set_info(fh, info);
  /* Collective: the shared pointer restarts at 0 in the new view. */
  PMPI_Barrier(fh->comm);
  if (cls == MPI_SUCCESS && fh->rank == 0 && fh->shfp_fd >= 0)
    cls = hc_io_shared_set(fn, fh, 0);
  PMPI_Barrier(fh->comm);
  return hc_io_raise(fh, fn, cls, "%s",
                     cls == MPI_ERR_IO ? io_view_order : "installing the view");
}
HC_WEAK_ALIAS(MPI_File_set_view, PMPI_File_set_view);

int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                       MPI_Datatype *filetype, char *datarep) {
  static const char fn[] = "MPI_File_get_view";
  int rc = hc_io_enter(fn, fh);
  if (rc == MPI_SUCCESS && (!disp || !etype || !filetype || !datarep))
    rc = hc_io_raise(fh, fn, MPI_ERR_ARG, "an output argument is NULL");
  if (rc != MPI_SUCCESS)
    return rc;
  /* Derived types come back as new handles the caller frees. */
  if (type_keep(fh->etype, etype) != MPI_SUCCESS ||
      type_keep(fh->filetype, filetype) != MPI_SUCCESS)
    return hc_io_raise(fh, fn, MPI_ERR_NO_MEM, "out of memory");
  *disp = fh->disp;
  snprintf(datarep, MPI_MAX_DATAREP_STRING, "%s", rep_get(fh->rep)->name);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_File_get_view, PMPI_File_get_view);

/* ---- stream bytes <-> file bytes ------------------------------------------
 */

/* The run holding byte within of an instance (binary search). */
static size_t block_of(const MPI_File f, MPI_Offset within) {
  size_t lo = 0, hi = f->nblocks - 1;
  while (lo < hi) {
    size_t mid = (lo + hi + 1) / 2;
    if (f->blocks[mid].pos <= within)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

MPI_Offset hc_io_view_byte(MPI_File f, MPI_Offset pos) {
  if (f->ft_size == 0) /* an empty view: every position is at its start */
    return f->disp;
  MPI_Offset k = pos / f->ft_size, within = pos % f->ft_size;
  const io_block_t *b = &f->blocks[block_of(f, within)];
  return f->disp + k * f->ft_extent + b->off + (within - b->pos);
}

MPI_Offset hc_io_view_stream_before(MPI_File f, MPI_Offset off) {
  MPI_Offset rel = off - f->disp;
  if (rel <= 0)
    return 0;
  MPI_Offset k = rel / f->ft_extent, r = rel % f->ft_extent, n = k * f->ft_size;
  for (size_t i = 0; i < f->nblocks && f->blocks[i].off < r; i++) {
    MPI_Offset end = f->blocks[i].off + f->blocks[i].len;
    n += (end <= r ? end : r) - f->blocks[i].off;
  }
  return n;
}

int hc_io_view_walk(MPI_File f, MPI_Offset pos, MPI_Offset n, hc_io_seg_cb seg,
                    void *ctx) {
  if (n <= 0 || f->ft_size == 0)
    return 0;
  if (f->nblocks == 1 && f->blocks[0].off == 0 &&
      f->blocks[0].len == f->ft_extent) /* a contiguous view */
    return seg(ctx, f->disp + pos, n, 0);
  MPI_Offset k = pos / f->ft_size, within = pos % f->ft_size;
  size_t i = block_of(f, within);
  MPI_Offset run_off = -1, run_len = 0, run_at = 0, at = 0;
  while (at < n) {
    const io_block_t *b = &f->blocks[i];
    MPI_Offset skip = within - b->pos;
    MPI_Offset len = b->len - skip < n - at ? b->len - skip : n - at;
    MPI_Offset off = f->disp + k * f->ft_extent + b->off + skip;
    if (run_len && run_off + run_len == off) {
      run_len += len;
    } else {
      int rc = run_len ? seg(ctx, run_off, run_len, run_at) : 0;
      if (rc)
        return rc;
      run_off = off;
      run_len = len;
      run_at = at;
    }
    at += len;
    within = b->pos + b->len;
    if (++i == f->nblocks) {
      i = 0;
      k++;
      within = 0;
    }
  }
  return seg(ctx, run_off, run_len, run_at);
}

/* ---- queries ---------------------------------------------------------------
 */

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset,
                              MPI_Offset *disp) {
  static const char fn[] = "MPI_File_get_byte_offset";
  int rc = hc_io_enter(fn, fh);
  if (rc == MPI_SUCCESS && !disp)
    rc = hc_io_raise(fh, fn, MPI_ERR_ARG, "disp is NULL");
  if (rc == MPI_SUCCESS && offset < 0)
    rc = hc_io_raise(fh, fn, MPI_ERR_ARG, "negative offset %ld", (long)offset);
  if (rc == MPI_SUCCESS)
    *disp = hc_io_view_byte(fh, offset * fh->esize);
  return rc;
}
HC_WEAK_ALIAS(MPI_File_get_byte_offset, PMPI_File_get_byte_offset);

static int type_extent_in_file(const char *fn, MPI_File fh,
                               MPI_Datatype datatype, MPI_Count *extent) {
  int rc = hc_io_enter(fn, fh);
  const hc_mpi_type_t *t = rc == MPI_SUCCESS ? hc_mpi_type_get(datatype) : NULL;
  if (rc == MPI_SUCCESS && !t)
    rc = hc_io_raise(fh, fn, MPI_ERR_TYPE, "invalid datatype 0x%x",
                     (unsigned)datatype);
  if (rc != MPI_SUCCESS)
    return rc;
  if (fh->rep == IO_REP_EXTERNAL32) {
    MPI_Datatype lay = datatype;
    int cls = hc_io_file_layout_type(datatype, &lay);
    if (cls != MPI_SUCCESS)
      return hc_io_raise(fh, fn, hc_io_class_of_code(cls), "laying out the type in "
                                                 "external32");
    *extent = hc_mpi_type_get(lay)->extent;
    hc_io_file_layout_free(datatype, &lay);
  } else if (fh->rep > IO_REP_EXTERNAL32) {
    MPI_Aint ext = 0;
    int cls = rep_user_extent(rep_get(fh->rep), t, &ext);
    if (cls != MPI_SUCCESS)
      return hc_io_raise(fh, fn, cls, "the representation's extent function");
    *extent = ext;
  } else {
    *extent = t->extent;
  }
  return MPI_SUCCESS;
}

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype,
                              MPI_Aint *extent) {
  static const char fn[] = "MPI_File_get_type_extent";
  MPI_Count ext = 0;
  if (!extent)
    return hc_io_raise(fh, fn, MPI_ERR_ARG, "extent is NULL");
  int rc = type_extent_in_file(fn, fh, datatype, &ext);
  if (rc == MPI_SUCCESS)
    *extent = (MPI_Aint)ext;
  return rc;
}
HC_WEAK_ALIAS(MPI_File_get_type_extent, PMPI_File_get_type_extent);

int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype,
                                MPI_Count *extent) {
  static const char fn[] = "MPI_File_get_type_extent_c";
  if (!extent)
    return hc_io_raise(fh, fn, MPI_ERR_ARG, "extent is NULL");
  return type_extent_in_file(fn, fh, datatype, extent);
}
HC_WEAK_ALIAS(MPI_File_get_type_extent_c, PMPI_File_get_type_extent_c);

int hc_io_view_runs_large(MPI_File f) {
  return f->local_fs && f->nblocks > 0 &&
         f->ft_size / (MPI_Offset)f->nblocks >= IO_PAGE_RUN;
}
