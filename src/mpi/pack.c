/*
 * MPI_Pack, MPI_Unpack and MPI_Pack_size over the type engine's
 * hc_mpi_type_pack / hc_mpi_type_unpack.  The packed format of this
 * library is the data of each element back to back (type->size bytes per
 * element), so MPI_Pack_size is exact.
 */
#include <limits.h>
#include <string.h>

#include "mpi/mpi_impl.h"

/* Per-element copy of a pair type (value then int, padding after). */
static void pack_pairs(const hc_mpi_type_t *t, const char *src, MPI_Count n,
                       char *dst, int to_stream) {
  size_t first = (size_t)t->size - sizeof(int);
  size_t ioff = (size_t)t->true_extent - sizeof(int);
  for (MPI_Count i = 0; i < n; i++) {
    const char *e = to_stream ? src + i * t->extent : src + i * t->size;
    char *o = to_stream ? dst + i * t->size : dst + i * t->extent;
    size_t eoff = to_stream ? ioff : first;
    size_t ooff = to_stream ? first : ioff;
    memcpy(o, e, first);
    memcpy(o + ooff, e + eoff, sizeof(int));
  }
}

void hc_mpi_type_pack(const hc_mpi_type_t *type, const void *buf,
                      MPI_Count count, void *out) {
  if (count <= 0)
    return;
  if (type->contiguous && (MPI_Aint)type->size == type->extent) {
    memcpy(out, (const char *)buf + type->true_lb,
           (size_t)(count * type->size));
    return;
  }
  pack_pairs(type, buf, count, out, 1);
}

void hc_mpi_type_unpack(const hc_mpi_type_t *type, const void *in,
                        MPI_Count count, void *buf) {
  if (count <= 0)
    return;
  if (type->contiguous && (MPI_Aint)type->size == type->extent) {
    memcpy((char *)buf + type->true_lb, in, (size_t)(count * type->size));
    return;
  }
  pack_pairs(type, in, count, buf, 0);
}

static int pack_check(const char *fn, int count, MPI_Datatype datatype,
                      MPI_Comm comm, hc_mpi_comm_t **c,
                      const hc_mpi_type_t **t) {
  int rc = hc_mpi_comm_enter(fn, comm, c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_count(fn, *c, count);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_type(fn, *c, datatype, t);
  return rc;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm,
                   int *size) {
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *t = NULL;
  int rc = pack_check("MPI_Pack_size", incount, datatype, comm, &c, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr("MPI_Pack_size", c, size, "size");
  if (rc != MPI_SUCCESS)
    return rc;
  MPI_Count n = (MPI_Count)incount * t->size;
  if (n > INT_MAX)
    return hc_mpi_raise(c, "MPI_Pack_size", MPI_ERR_ARG,
                        "packed size %lld does not fit an int", (long long)n);
  *size = (int)n;
  return MPI_SUCCESS;
}
#pragma weak MPI_Pack_size = PMPI_Pack_size

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
              void *outbuf, int outsize, int *position, MPI_Comm comm) {
  const char *fn = "MPI_Pack";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *t = NULL;
  int rc = pack_check(fn, incount, datatype, comm, &c, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, position, "position");
  if (rc != MPI_SUCCESS)
    return rc;
  MPI_Count n = (MPI_Count)incount * t->size;
  if (*position < 0 || n > (MPI_Count)outsize - *position)
    return hc_mpi_raise(c, fn, MPI_ERR_TRUNCATE,
                        "%lld bytes do not fit at position %d of %d",
                        (long long)n, *position, outsize);
  if (n > 0 && (inbuf == NULL || outbuf == NULL))
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER, "NULL buffer");
  hc_mpi_type_pack(t, inbuf, incount, (char *)outbuf + *position);
  *position += (int)n;
  return MPI_SUCCESS;
}
#pragma weak MPI_Pack = PMPI_Pack

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
                int outcount, MPI_Datatype datatype, MPI_Comm comm) {
  const char *fn = "MPI_Unpack";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *t = NULL;
  int rc = pack_check(fn, outcount, datatype, comm, &c, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, position, "position");
  if (rc != MPI_SUCCESS)
    return rc;
  MPI_Count n = (MPI_Count)outcount * t->size;
  if (*position < 0 || n > (MPI_Count)insize - *position)
    return hc_mpi_raise(c, fn, MPI_ERR_TRUNCATE,
                        "%lld bytes wanted at position %d of %d",
                        (long long)n, *position, insize);
  if (n > 0 && (inbuf == NULL || outbuf == NULL))
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER, "NULL buffer");
  hc_mpi_type_unpack(t, (const char *)inbuf + *position, outcount, outbuf);
  *position += (int)n;
  return MPI_SUCCESS;
}
#pragma weak MPI_Unpack = PMPI_Unpack
