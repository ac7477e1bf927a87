/*
 * Datatypes of the MPI face.  Every type the face moves is described by an
 * hc_mpi_type_t: the predefined types (builtin handles, whose size is bits
 * 8-15 of the handle, and the five direct pair types) live in static
 * tables; derived types are built by typebuild.c.
 *
 * A type's data is described once, when it is built, by a short list of
 * items in type-map order (typemap.c): each item is "count copies, stride
 * bytes apart, of X", where X is one contiguous run of bytes or another
 * type (a reference to it).  A vector of a million ints is one item, so
 * memory and construction time follow the length of the constructor's
 * argument arrays, never the number of elements it describes.  Every size
 * and bound is computed with overflow checks; a type too large for
 * MPI_Aint / MPI_Count is refused at construction.  Pack/unpack walk the
 * items lazily (pack.c), seeking any stream offset in a few steps per
 * nesting level.  The constructor's arguments are kept beside it for
 * MPI_Type_get_contents.
 *
 * Lifetime: a derived type is reference counted.  Its handle holds one
 * reference (dropped by MPI_Type_free), so do types built from it and
 * requests using it, so a type freed while a request is pending survives
 * until that request completes.
 */
#ifndef HC_MPI_DATATYPE_H
#define HC_MPI_DATATYPE_H

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>

#include "mpi/handle.h"

struct hc_mpi_type;

/* count copies of one piece of an element's data, the first at off (from
 * the element's start, the buffer address), the next stride bytes further
 * on.  The piece is a contiguous run of len bytes (child NULL) or the data
 * of one element of child (len is then child->size). */
typedef struct hc_mpi_titem {
  MPI_Aint off;
  MPI_Aint stride;  /* meaningless when count is 1 */
  MPI_Count count;  /* at least 1 */
  MPI_Aint len;     /* packed bytes of one copy, at least 1 */
  MPI_Count before; /* packed bytes of the element ahead of this item */
  const struct hc_mpi_type *child; /* referenced */
  int esz;  /* run: size of its basic elements (Get_elements) */
  int unit; /* run: byte-order unit: esz, or half of it for complex types */
} hc_mpi_titem_t;

typedef struct hc_mpi_type {
  MPI_Datatype handle; /* 0 while a derived type has no live handle */
  MPI_Count size;      /* MPI_Type_size: bytes of data in one element */
  MPI_Aint lb;         /* MPI_Type_get_extent */
  MPI_Aint extent;
  MPI_Aint true_lb; /* MPI_Type_get_true_extent */
  MPI_Aint true_extent;
  /* Bytes one element occupies when count elements move as one byte span
   * [buf, buf + count * wire_size); meaningful when contiguous.  A
   * non-contiguous type moves packed: size bytes per element. */
  size_t wire_size;
  int contiguous;     /* count elements move as that span, unpacked */
  MPI_Count elements; /* basic elements in one element (MPI_Get_elements) */
  /* The size of the type's basic elements less one when they all have one
   * size, a power of two above 1 (MPI_INT: 3); else 0 (byte types, types
   * whose basic elements differ in size, empty types).  A receive whose
   * byte count has any of these bits set ended inside a basic element
   * (hc_mpi_check_whole); 0 spares that check. */
  unsigned element_mask;
  int predefined;
  int committed;
  /* hc_mpi_type_dense's answer once asked of the committed type (whose
   * layout no longer changes): 1 dense, 2 not, 0 not asked yet.  Atomic:
   * threads may ask at once (each stores the same answer). */
  _Atomic unsigned char dense_memo;
  /* ---- the type engine (datatype.c, typebuild.c, pack.c) ---- */
  hc_mpi_titem_t *items; /* one element's data, type-map order */
  size_t nitems;
  size_t item_cap; /* derived: allocated items */
  int flat;        /* no item references a child type */
  MPI_Aint align;  /* alignment a struct pads its extent to */
  int lb_marked;   /* MPI_LB itself (a bound marker, not data) */
  int ub_marked;   /* MPI_UB itself */
  int refs;        /* derived: handle + parents + requests */
  int handle_refs; /* derived: user references to the handle */
  int combiner;    /* MPI_COMBINER_* */
  /* A type of MPI_Type_create_f90_* (predefined, with a handle of its own):
   * the named type it moves and reduces as; NULL for every other type. */
  const struct hc_mpi_type *f90_named;
  int nints, naints, ntypes;
  int *ints; /* constructor arguments for MPI_Type_get_contents */
  MPI_Aint *aints;
  int nlarge;       /* the large counts of a _c constructor (MPI-4), */
  MPI_Count *large; /* for MPI_Type_get_contents_c */
  struct hc_mpi_type **types; /* referenced (refs) */
  char name[MPI_MAX_OBJECT_NAME];
  struct hc_mpi_attr *attrs; /* MPI_Type_set_attr (attr.c, its lock) */
} hc_mpi_type_t;

/* The predefined types by bits 0-7 of their handle (datatype.c), filled
 * once: hc_mpi_type_tables_ready says so (set with release order). */
extern hc_mpi_type_t hc_mpi_type_builtin_table[256];
extern int hc_mpi_type_tables_ready;
/* hc_mpi_type_get for any handle; fills the tables on first use. */
const hc_mpi_type_t *hc_mpi_type_lookup(MPI_Datatype type);
/* The table slot of a predefined type's handle, NULL when the slot holds
 * another type (a handle that only looks predefined).  The slot's address
 * is taken once through a byte offset: indexed twice, GCC computed
 * index * sizeof twice. */
static inline hc_mpi_type_t *hc_mpi_type_builtin_object(MPI_Datatype type) {
  size_t slot = ((unsigned)type & 0xffu) * sizeof(hc_mpi_type_t);
  hc_mpi_type_t *t =
      (hc_mpi_type_t *)(void *)((char *)hc_mpi_type_builtin_table + slot);
  return t->handle == type ? t : NULL;
}
/* The description of a valid, usable datatype; NULL for MPI_DATATYPE_NULL
 * and anything that is not a datatype handle.  A predefined type, what
 * most point-to-point calls carry, is found inline by its index: called,
 * the lookup cost every MPI_Isend and MPI_Irecv ~25 instructions
 * (bench/NOTES.md, recv18). */
static inline const hc_mpi_type_t *hc_mpi_type_get(MPI_Datatype type) {
  if (hc_handle_is(type, HC_HANDLE_KIND_BUILTIN, HC_OBJ_DATATYPE) &&
      __atomic_load_n(&hc_mpi_type_tables_ready, __ATOMIC_ACQUIRE))
    return hc_mpi_type_builtin_object(type);
  return hc_mpi_type_lookup(type);
}
/* The named type a predefined type stands for: itself, or for a type of
 * MPI_Type_create_f90_* the named type of that kind (typef90.c). */
const hc_mpi_type_t *hc_mpi_type_named(const hc_mpi_type_t *type);
/* Bytes that count elements of type put on the wire.  Inline: a call on
 * every MPI_Isend and MPI_Irecv's checks (bench/NOTES.md, recv17). */
static inline size_t hc_mpi_type_wire_bytes(const hc_mpi_type_t *type,
                                            MPI_Count count) {
  return (size_t)count * type->wire_size;
}

/* count elements at buf are exactly count * size bytes at [buf, ...):
 * point-to-point moves them without packing.  Inline, every send and
 * receive asks it: a committed type answers from its memo after the first
 * time (hc_mpi_type_dense_layout looks at the layout). */
int hc_mpi_type_dense_layout(const hc_mpi_type_t *type);
static inline int hc_mpi_type_dense(const hc_mpi_type_t *type) {
  unsigned char memo =
      atomic_load_explicit(&type->dense_memo, memory_order_relaxed);
  if (memo != 0)
    return memo == 1;
  return hc_mpi_type_dense_layout(type);
}

/* Packs count elements of type at buf into the contiguous stream out of
 * count * type->size bytes (data only, no gaps). */
void hc_mpi_type_pack(const hc_mpi_type_t *type, const void *buf,
                      MPI_Count count, void *out);
/* The reverse: scatters count * type->size bytes from in into buf. */
void hc_mpi_type_unpack(const hc_mpi_type_t *type, const void *in,
                        MPI_Count count, void *buf);
/* Packs / unpacks the stream bytes [first, first + n) of count elements at
 * buf (a window into the packed stream, for partial messages and chunks). */
void hc_mpi_type_pack_range(const hc_mpi_type_t *type, const void *buf,
                            MPI_Count first, MPI_Count n, void *out);
void hc_mpi_type_unpack_range(const hc_mpi_type_t *type, const void *in,
                              MPI_Count first, MPI_Count n, void *buf);
/* Calls visit for every contiguous piece of the stream bytes [first,
 * first + n) of count elements at buf, in stream order: mem is where the
 * piece lies (computed, never dereferenced here), pos its stream offset,
 * unit its byte-order unit.  For paths that move pieces themselves
 * (iovecs, byte swapping) rather than through a packed copy. */
typedef void (*hc_mpi_type_visit_cb)(void *ctx, char *mem, MPI_Count pos,
                                     MPI_Aint len, int unit);
void hc_mpi_type_visit(const hc_mpi_type_t *type, const void *buf,
                       MPI_Count first, MPI_Count n, hc_mpi_type_visit_cb visit,
                       void *ctx);
/* Reverses the byte order of every basic unit in count packed elements
 * (native <-> external32 on a little-endian machine). */
void hc_mpi_type_swap_packed(const hc_mpi_type_t *type, void *stream,
                             MPI_Count count);
/* Basic elements in the first bytes of a packed stream of type. */
MPI_Count hc_mpi_type_elements_in(const hc_mpi_type_t *type, MPI_Count bytes);
/* Bytes of a packed stream of type that hold its first elements basic
 * elements (MPI_Status_set_elements). */
MPI_Count hc_mpi_type_bytes_for(const hc_mpi_type_t *type, MPI_Count elements);

/* Takes / drops a reference on a derived type (no-ops on predefined ones);
 * the last release frees the object and drops its constituents. */
hc_mpi_type_t *hc_mpi_type_retain(const hc_mpi_type_t *type);
void hc_mpi_type_release(const hc_mpi_type_t *type);

/* ---- building (typemap.c, typebuild.c, datatype.c) ---- */

/* What the building steps return. */
enum {
  HC_MPI_TYPE_OK = 0,
  HC_MPI_TYPE_NOMEM = -1,
  HC_MPI_TYPE_OVERFLOW = -2 /* a size or bound past MPI_Aint / MPI_Count */
};

/* A fresh derived type object, one reference, no handle, not committed. */
hc_mpi_type_t *hc_mpi_type_new(void);
/* Gives t a handle (one handle reference); -1 when out of memory. */
int hc_mpi_type_publish(hc_mpi_type_t *t, MPI_Datatype *out);
/* Records constructor arguments; copies the arrays, retains the types.
 * Returns -1 when out of memory. */
int hc_mpi_type_set_contents(hc_mpi_type_t *t, int combiner, int ni,
                             const int *ints, int na, const MPI_Aint *aints,
                             int nt, const hc_mpi_type_t *const *types);
/* Records the large-count arguments of a _c constructor besides those of
 * hc_mpi_type_set_contents; -1 when out of memory. */
int hc_mpi_type_set_large(hc_mpi_type_t *t, int nc, const MPI_Count *large);
/* Block length j of a struct type, whichever constructor built it. */
MPI_Count hc_mpi_type_struct_blocklen(const hc_mpi_type_t *t, int j);
/* Appends the data of n copies of child at disp, disp + stride, ... to
 * t's items, in constant time and memory whatever n (the copies become one
 * item, merged with the previous one where they continue it).  Returns an
 * HC_MPI_TYPE_* value. */
int hc_mpi_type_append(hc_mpi_type_t *t, const hc_mpi_type_t *child,
                       MPI_Aint disp, MPI_Count n, MPI_Aint stride);
/* Sets size, elements, element_mask, true bounds and contiguity from the
 * items (t->lb and t->extent set before).  HC_MPI_TYPE_OK or
 * HC_MPI_TYPE_OVERFLOW. */
int hc_mpi_type_finish(hc_mpi_type_t *t);
/* element_mask from the items: one pass over them, at construction. */
void hc_mpi_type_set_element_mask(hc_mpi_type_t *t);
/* Drops the items and the references they hold (destruction). */
void hc_mpi_type_clear_items(hc_mpi_type_t *t);

#endif /* HC_MPI_DATATYPE_H */
