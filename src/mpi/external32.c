/*
 * The external32 representation (MPI 4.0 section 13.5.2) of types whose
 * native size differs from it.  On this ABI (LP64) those are MPI_LONG and
 * MPI_UNSIGNED_LONG (8 bytes native, 4 in external32), MPI_WCHAR (4 and 2)
 * and MPI_LONG_INT (long then int); every other basic type has its
 * external32 size and only changes byte order (pack.c swaps it in place).
 *
 * A datatype's packed stream lists its basic elements in type-map order,
 * so the external stream is converted run by run along the type's
 * signature: a struct's entries in order, any other constructor's one
 * child repeated size / child size times (the constructor arguments kept
 * for MPI_Type_get_contents say which children).  Narrowing keeps the low
 * bytes, as MPICH does; widening sign-extends MPI_LONG and zero-extends
 * the unsigned types.
 */
#include <stdint.h>
#include <string.h>

#include "mpi/mpi_impl.h"

/* external32 bytes of one element of a basic type that changes width;
 * 0 for one that keeps its native size. */
static int ext_width(MPI_Datatype basic) {
  if (basic == MPI_LONG || basic == MPI_UNSIGNED_LONG)
    return 4;
  if (basic == MPI_WCHAR)
    return 2;
  return 0;
}

/* A run of n elements of one basic type, native stream at *in, external
 * at *out (or the reverse when unpacking); both cursors advance. */
typedef struct ext_cursor {
  const unsigned char *in;
  unsigned char *out;
  MPI_Count ext_bytes; /* external32 bytes visited so far */
  int unpack;          /* external -> native */
} ext_cursor_t;

static void ext_store_be(unsigned char *p, uint64_t v, int width) {
  for (int i = width - 1; i >= 0; i--, v >>= 8)
    p[i] = (unsigned char)v;
}

static uint64_t ext_load_be(const unsigned char *p, int width, int sign) {
  uint64_t v = 0;
  for (int i = 0; i < width; i++)
    v = v << 8 | p[i];
  if (sign && width < 8 && (p[0] & 0x80))
    v |= ~(uint64_t)0 << (8 * width);
  return v;
}

/* The native integer of nsize (4 or 8) bytes at p, and back. */
static uint64_t ext_native_load(const unsigned char *p, int nsize) {
  if (nsize == 8) {
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
  }
  uint32_t x;
  memcpy(&x, p, 4);
  return x;
}

static void ext_native_store(unsigned char *p, uint64_t v, int nsize) {
  if (nsize == 8) {
    memcpy(p, &v, 8);
    return;
  }
  uint32_t x = (uint32_t)v;
  memcpy(p, &x, 4);
}

/* n elements of a width-changing basic type (native size nsize). */
static void ext_convert(ext_cursor_t *c, MPI_Datatype basic, int nsize,
                        MPI_Count n) {
  int w = ext_width(basic);
  for (MPI_Count i = 0; i < n; i++) {
    if (c->unpack) {
      ext_native_store(c->out, ext_load_be(c->in, w, basic == MPI_LONG), nsize);
      c->in += w;
      c->out += nsize;
    } else {
      ext_store_be(c->out, ext_native_load(c->in, nsize), w);
      c->in += nsize;
      c->out += w;
    }
  }
  c->ext_bytes += n * w;
}

/* n elements of a type that keeps its size: copied, then byte-swapped. */
static void ext_copy(ext_cursor_t *c, const hc_mpi_type_t *t, MPI_Count n) {
  size_t len = (size_t)(n * t->size);
  c->ext_bytes += (MPI_Count)len;
  if (!c->out)
    return;
  memcpy(c->out, c->in, len);
  hc_mpi_type_swap_packed(t, c->out, n);
  c->in += len;
  c->out += len;
}

/* A basic type: converted, copied, or only counted (c->out NULL). */
static void ext_basic(ext_cursor_t *c, const hc_mpi_type_t *t, MPI_Count n) {
  int w = ext_width(t->handle);
  if (w == 0)
    ext_copy(c, t, n);
  else if (c->out)
    ext_convert(c, t->handle, (int)t->size, n);
  else
    c->ext_bytes += n * w;
}

/* Visits n elements of t along its signature; c->out NULL: sizes only. */
static void ext_walk(ext_cursor_t *c, const hc_mpi_type_t *t, MPI_Count n) {
  if (n == 0 || t->size == 0)
    return;
  if (t->predefined && t->handle == MPI_LONG_INT) {
    for (MPI_Count k = 0; k < n; k++) {
      ext_basic(c, hc_mpi_type_get(MPI_LONG), 1);
      ext_basic(c, hc_mpi_type_get(MPI_INT), 1);
    }
  } else if (t->predefined) {
    ext_basic(c, hc_mpi_type_named(t), n);
  } else if (t->combiner == MPI_COMBINER_STRUCT) {
    for (MPI_Count k = 0; k < n; k++)
      for (int j = 0; j < t->ntypes; j++)
        ext_walk(c, t->types[j], hc_mpi_type_struct_blocklen(t, j));
  } else if (t->ntypes == 1 && t->types[0]->size > 0) {
    ext_walk(c, t->types[0], n * (t->size / t->types[0]->size));
  } else {
    ext_copy(c, t, n); /* no constituents to follow: its own units */
  }
}

/* Whether t holds any basic type that changes width. */
static int ext_changes_width(const hc_mpi_type_t *t) {
  ext_cursor_t c = {NULL, NULL, 0, 0};
  ext_walk(&c, t, 1);
  return c.ext_bytes != t->size;
}

MPI_Count hc_mpi_ext32_size(const hc_mpi_type_t *t, MPI_Count count) {
  ext_cursor_t c = {NULL, NULL, 0, 0};
  ext_walk(&c, t, 1);
  return c.ext_bytes * count;
}

void hc_mpi_ext32_from_native(const hc_mpi_type_t *t, const void *native,
                              MPI_Count count, void *ext) {
  if (!ext_changes_width(t)) {
    memcpy(ext, native, (size_t)(count * t->size));
    hc_mpi_type_swap_packed(t, ext, count);
    return;
  }
  ext_cursor_t c = {native, ext, 0, 0};
  ext_walk(&c, t, count);
}

void hc_mpi_ext32_to_native(const hc_mpi_type_t *t, const void *ext,
                            MPI_Count count, void *native) {
  if (!ext_changes_width(t)) {
    memcpy(native, ext, (size_t)(count * t->size));
    hc_mpi_type_swap_packed(t, native, count);
    return;
  }
  ext_cursor_t c = {ext, native, 0, 1};
  ext_walk(&c, t, count);
}
