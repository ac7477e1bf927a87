/*
 * Datatypes of the MPI face.  Every type the face moves is described by an
 * hc_mpi_type_t: the predefined types (builtin handles, whose size is bits
 * 8-15 of the handle, and the five direct pair types) live in static
 * tables; derived types are built by typebuild.c.
 *
 * A type is flattened once, when it is built: one element is the list of
 * (offset, length, basic element size) blocks in type-map order, adjacent
 * blocks of the same element size merged, so a vector of contiguous runs
 * costs one block per run.  Pack/unpack walk that list count times.  The
 * constructor's arguments are kept beside it for MPI_Type_get_contents.
 *
 * Lifetime: a derived type is reference counted.  Its handle holds one
 * reference (dropped by MPI_Type_free), so do types built from it and
 * requests using it, so a type freed while a request is pending survives
 * until that request completes.
 */
#ifndef HC_MPI_DATATYPE_H
#define HC_MPI_DATATYPE_H

#include <mpi.h>
#include <stddef.h>

/* One contiguous run of data in one element of a type. */
typedef struct hc_mpi_tblock {
  MPI_Aint off; /* from the element's start (the buffer address) */
  MPI_Aint len; /* bytes */
  int esz;      /* size of the basic elements in the run (Get_elements) */
  int unit;     /* byte-order unit: esz, or half of it for complex types */
} hc_mpi_tblock_t;

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
  int predefined;
  int committed;
  /* ---- the type engine (datatype.c, typebuild.c, pack.c) ---- */
  hc_mpi_tblock_t *blocks; /* one element's data, type-map order */
  size_t nblocks;
  size_t block_cap; /* derived: allocated blocks */
  MPI_Aint align;    /* alignment a struct pads its extent to */
  int lb_marked; /* MPI_LB itself (a bound marker, not data) */
  int ub_marked; /* MPI_UB itself */
  int refs;          /* derived: handle + parents + requests */
  int handle_refs;   /* derived: user references to the handle */
  int combiner;      /* MPI_COMBINER_* */
  int nints, naints, ntypes;
  int *ints; /* constructor arguments for MPI_Type_get_contents */
  MPI_Aint *aints;
  struct hc_mpi_type **types; /* referenced (refs) */
  char name[MPI_MAX_OBJECT_NAME];
  struct hc_mpi_attr *attrs; /* MPI_Type_set_attr (attr.c, its lock) */
} hc_mpi_type_t;

/* The description of a valid, usable datatype; NULL for MPI_DATATYPE_NULL
 * and anything that is not a datatype handle. */
const hc_mpi_type_t *hc_mpi_type_get(MPI_Datatype type);
/* Bytes that count elements of type put on the wire. */
size_t hc_mpi_type_wire_bytes(const hc_mpi_type_t *type, int count);

/* count elements at buf are exactly count * size bytes at [buf, ...):
 * point-to-point moves them without packing. */
int hc_mpi_type_dense(const hc_mpi_type_t *type);

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
/* Where the last pack_at / unpack_at of one stream stopped: the next
 * slice that starts there (or a little after) needs no search from the
 * stream's start, so a large message moved in order costs linear time.
 * Start from {0}. */
typedef struct hc_mpi_type_cursor {
  MPI_Count at; /* stream offset */
  MPI_Count e;  /* element */
  size_t j;     /* block of the element */
  MPI_Aint r;   /* bytes into that block */
} hc_mpi_type_cursor_t;
/* pack_range / unpack_range using and advancing c. */
void hc_mpi_type_pack_at(const hc_mpi_type_t *type, const void *buf,
                         MPI_Count first, MPI_Count n, void *out,
                         hc_mpi_type_cursor_t *c);
void hc_mpi_type_unpack_at(const hc_mpi_type_t *type, const void *in,
                           MPI_Count first, MPI_Count n, void *buf,
                           hc_mpi_type_cursor_t *c);
/* Reverses the byte order of every basic unit in count packed elements
 * (native <-> external32 on a little-endian machine). */
void hc_mpi_type_swap_packed(const hc_mpi_type_t *type, void *stream,
                             MPI_Count count);
/* Basic elements in the first bytes of a packed stream of type. */
MPI_Count hc_mpi_type_elements_in(const hc_mpi_type_t *type, MPI_Count bytes);

/* Takes / drops a reference on a derived type (no-ops on predefined ones);
 * the last release frees the object and drops its constituents. */
hc_mpi_type_t *hc_mpi_type_retain(const hc_mpi_type_t *type);
void hc_mpi_type_release(const hc_mpi_type_t *type);

/* ---- building (typebuild.c / datatype.c) ---- */

/* A fresh derived type object, one reference, no handle, not committed. */
hc_mpi_type_t *hc_mpi_type_new(void);
/* Gives t a handle (one handle reference); -1 when out of memory. */
int hc_mpi_type_publish(hc_mpi_type_t *t, MPI_Datatype *out);
/* Records constructor arguments; copies the arrays, retains the types.
 * Returns -1 when out of memory. */
int hc_mpi_type_set_contents(hc_mpi_type_t *t, int combiner, int ni,
                             const int *ints, int na, const MPI_Aint *aints,
                             int nt, const hc_mpi_type_t *const *types);
/* Appends n copies of child at disp, disp + stride, ... to t's blocks.
 * Returns -1 when out of memory. */
int hc_mpi_type_append(hc_mpi_type_t *t, const hc_mpi_type_t *child,
                       MPI_Aint disp, MPI_Count n, MPI_Aint stride);
/* Sets size, elements, true bounds and contiguity from the blocks. */
void hc_mpi_type_finish(hc_mpi_type_t *t);

#endif /* HC_MPI_DATATYPE_H */
