/*
 * Datatypes of the MPI face.  Every type the face moves is described by an
 * hc_mpi_type_t; today these are the predefined types (builtin handles,
 * whose size is bits 8-15 of the handle, and the five direct pair types),
 * later derived types with pack/unpack slot in behind the same lookup.
 */
#ifndef HC_MPI_DATATYPE_H
#define HC_MPI_DATATYPE_H

#include <mpi.h>
#include <stddef.h>

typedef struct hc_mpi_type {
  MPI_Datatype handle;
  MPI_Count size; /* MPI_Type_size: bytes of data in one element */
  MPI_Aint lb;    /* MPI_Type_get_extent */
  MPI_Aint extent;
  MPI_Aint true_lb; /* MPI_Type_get_true_extent */
  MPI_Aint true_extent;
  /* Bytes one element occupies when count elements move as one byte span
   * [buf, buf + count * wire_size); meaningful when contiguous. */
  size_t wire_size;
  int contiguous;     /* count elements move as that span, unpacked */
  MPI_Count elements; /* basic elements in one element (MPI_Get_elements) */
  int predefined;
  int committed;
} hc_mpi_type_t;

/* The description of a valid, usable datatype; NULL for MPI_DATATYPE_NULL
 * and anything that is not a datatype handle. */
const hc_mpi_type_t *hc_mpi_type_get(MPI_Datatype type);
/* Bytes that count elements of type put on the wire. */
size_t hc_mpi_type_wire_bytes(const hc_mpi_type_t *type, int count);

/* Packs count elements of type at buf into the contiguous stream out of
 * count * type->size bytes (data only, no gaps). */
void hc_mpi_type_pack(const hc_mpi_type_t *type, const void *buf,
                      MPI_Count count, void *out);
/* The reverse: scatters count * type->size bytes from in into buf. */
void hc_mpi_type_unpack(const hc_mpi_type_t *type, const void *in,
                        MPI_Count count, void *buf);

#endif /* HC_MPI_DATATYPE_H */
