/*
 * The pack engine over a type's flattened blocks, and the calls built on
 * it: MPI_Pack / MPI_Unpack / MPI_Pack_size, the external32 variants,
 * MPI_Get_address and the address arithmetic.  The packed format of this
 * library is the data of each element back to back (type->size bytes per
 * element), so MPI_Pack_size is exact.  external32 is the same stream with
 * every basic unit in big-endian order, and the few basic types whose
 * native size is not their external32 size narrowed or widened
 * (external32.c; long double keeps its size: its bytes are only swapped).
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/devstage.h"
#include "mpi/mpi_impl.h"

/* Address arithmetic stays in integers, so MPI_BOTTOM plus an absolute
 * address is well defined. */
static char *pk_at(const void *base, MPI_Aint off) {
  return (char *)((uintptr_t)base + (uintptr_t)off);
}

/* Moves c to stream offset first: forward from where it stands when that
 * is within one element (sequential fragments cost nothing), else from
 * the start of first's element. */
static void pk_seek(const hc_mpi_type_t *t, hc_mpi_type_cursor_t *c,
                    MPI_Count first) {
  if (first < c->at || first - c->at >= t->size) {
    c->e = first / t->size;
    c->j = 0;
    c->r = (MPI_Aint)(first % t->size);
  } else {
    c->r += (MPI_Aint)(first - c->at);
  }
  c->at = first;
  while (c->r >= t->blocks[c->j].len) {
    c->r -= t->blocks[c->j].len;
    if (++c->j == t->nblocks) {
      c->j = 0;
      c->e++;
    }
  }
}

/* Copies stream bytes [first, first + n) of count elements at buf to or
 * from stream, starting the search at c; leaves c after the last byte. */
static void pk_walk_at(const hc_mpi_type_t *t, const void *buf,
                       MPI_Count first, MPI_Count n, char *stream,
                       int to_stream, hc_mpi_type_cursor_t *c) {
  if (n <= 0 || t->size == 0)
    return;
  if (hc_mpi_type_dense(t)) {
    char *mem = pk_at(buf, (MPI_Aint)first);
    if (to_stream)
      memcpy(stream, mem, (size_t)n);
    else
      memcpy(mem, stream, (size_t)n);
    return;
  }
  pk_seek(t, c, first);
  c->at += n;
  while (n > 0) {
    const hc_mpi_tblock_t *b = &t->blocks[c->j];
    char *mem = pk_at(buf, (MPI_Aint)c->e * t->extent + b->off + c->r);
    MPI_Aint take = b->len - c->r < n ? b->len - c->r : (MPI_Aint)n;
    if (to_stream)
      memcpy(stream, mem, (size_t)take);
    else
      memcpy(mem, stream, (size_t)take);
    stream += take;
    n -= take;
    c->r += take;
    if (c->r == b->len) {
      c->r = 0;
      if (++c->j == t->nblocks) {
        c->j = 0;
        c->e++;
      }
    }
  }
}

static void pk_walk(const hc_mpi_type_t *t, const void *buf, MPI_Count first,
                    MPI_Count n, char *stream, int to_stream) {
  hc_mpi_type_cursor_t c = {0, 0, 0, 0};
  pk_walk_at(t, buf, first, n, stream, to_stream, &c);
}

void hc_mpi_type_pack_range(const hc_mpi_type_t *type, const void *buf,
                            MPI_Count first, MPI_Count n, void *out) {
  pk_walk(type, buf, first, n, out, 1);
}

void hc_mpi_type_unpack_range(const hc_mpi_type_t *type, const void *in,
                              MPI_Count first, MPI_Count n, void *buf) {
  pk_walk(type, buf, first, n, (char *)in, 0);
}

void hc_mpi_type_pack_at(const hc_mpi_type_t *type, const void *buf,
                         MPI_Count first, MPI_Count n, void *out,
                         hc_mpi_type_cursor_t *c) {
  pk_walk_at(type, buf, first, n, out, 1, c);
}

void hc_mpi_type_unpack_at(const hc_mpi_type_t *type, const void *in,
                           MPI_Count first, MPI_Count n, void *buf,
                           hc_mpi_type_cursor_t *c) {
  pk_walk_at(type, buf, first, n, (char *)in, 0, c);
}

void hc_mpi_type_pack(const hc_mpi_type_t *type, const void *buf,
                      MPI_Count count, void *out) {
  pk_walk(type, buf, 0, count * type->size, out, 1);
}

void hc_mpi_type_unpack(const hc_mpi_type_t *type, const void *in,
                        MPI_Count count, void *buf) {
  pk_walk(type, buf, 0, count * type->size, (char *)in, 0);
}

MPI_Count hc_mpi_type_elements_in(const hc_mpi_type_t *t, MPI_Count bytes) {
  if (t->size == 0 || bytes <= 0)
    return 0;
  MPI_Count n = bytes / t->size * t->elements;
  MPI_Aint rem = (MPI_Aint)(bytes % t->size);
  for (size_t j = 0; j < t->nblocks && rem > 0; j++) {
    const hc_mpi_tblock_t *b = &t->blocks[j];
    MPI_Aint part = rem < b->len ? rem : b->len;
    n += part / b->esz;
    rem -= part;
  }
  return n;
}

static void pk_swap_run(unsigned char *p, MPI_Aint len, int unit) {
  if (unit <= 1)
    return;
  for (MPI_Aint i = 0; i + unit <= len; i += unit)
    for (int a = 0, z = unit - 1; a < z; a++, z--) {
      unsigned char c = p[i + a];
      p[i + a] = p[i + z];
      p[i + z] = c;
    }
}

void hc_mpi_type_swap_packed(const hc_mpi_type_t *type, void *stream,
                             MPI_Count count) {
  const uint16_t probe = 1;
  if (*(const unsigned char *)&probe == 0)
    return; /* already big-endian */
  unsigned char *p = stream;
  for (MPI_Count e = 0; e < count; e++)
    for (size_t j = 0; j < type->nblocks; j++) {
      pk_swap_run(p, type->blocks[j].len, type->blocks[j].unit);
      p += type->blocks[j].len;
    }
}

/* ---- MPI_Pack family ---------------------------------------------------- */

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

static int pack_size_out(const char *fn, hc_mpi_comm_t *c, MPI_Count n,
                         int *size) {
  if (n > INT_MAX)
    return hc_mpi_raise(c, fn, MPI_ERR_ARG,
                        "packed size %lld does not fit an int", (long long)n);
  *size = (int)n;
  return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm,
                   int *size) {
  static const char fn[] = "MPI_Pack_size";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *t = NULL;
  int rc = pack_check(fn, incount, datatype, comm, &c, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, size, "size");
  if (rc != MPI_SUCCESS)
    return rc;
  return pack_size_out(fn, c, (MPI_Count)incount * t->size, size);
}
HC_WEAK_ALIAS(MPI_Pack_size, PMPI_Pack_size);

/* The window [*pos, *pos + n) of a packed buffer of the given size. */
static int pack_window(const char *fn, hc_mpi_comm_t *c, MPI_Count n,
                       MPI_Aint pos, MPI_Aint size, const void *packed) {
  if (pos < 0 || n > (MPI_Count)size - pos)
    return hc_mpi_raise(c, fn, MPI_ERR_TRUNCATE,
                        "%lld bytes do not fit at position %ld of %ld",
                        (long long)n, (long)pos, (long)size);
  if (n > 0 && packed == NULL)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER, "NULL packed buffer");
  return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
              void *outbuf, int outsize, int *position, MPI_Comm comm) {
  static const char fn[] = "MPI_Pack";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *t = NULL;
  int rc = pack_check(fn, incount, datatype, comm, &c, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, position, "position");
  MPI_Count n = t ? (MPI_Count)incount * t->size : 0;
  if (rc == MPI_SUCCESS)
    rc = pack_window(fn, c, n, *position, outsize, outbuf);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_status_t st = hc_mpi_pack_any(t, inbuf, incount, (char *)outbuf + *position);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  *position += (int)n;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Pack, PMPI_Pack);

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
                int outcount, MPI_Datatype datatype, MPI_Comm comm) {
  static const char fn[] = "MPI_Unpack";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *t = NULL;
  int rc = pack_check(fn, outcount, datatype, comm, &c, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, position, "position");
  MPI_Count n = t ? (MPI_Count)outcount * t->size : 0;
  if (rc == MPI_SUCCESS)
    rc = pack_window(fn, c, n, *position, insize, inbuf);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_status_t st = hc_mpi_unpack_any(t, (const char *)inbuf + *position, n,
                                     outcount, outbuf);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  *position += (int)n;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Unpack, PMPI_Unpack);

/* ---- external32 --------------------------------------------------------- */

/* Checks datarep, count and type; local calls, no communicator. */
static int pack_ext_check(const char *fn, const char *datarep, int count,
                          MPI_Datatype datatype, const hc_mpi_type_t **t) {
  int rc = hc_mpi_check_ptr(fn, NULL, datarep, "datarep");
  if (rc == MPI_SUCCESS && strcmp(datarep, "external32") != 0)
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "unsupported data representation "
                      "\"%s\"", datarep);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_count(fn, NULL, count);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_type(fn, NULL, datatype, t);
  return rc;
}

int PMPI_Pack_external_size(const char *datarep, int incount,
                            MPI_Datatype datatype, MPI_Aint *size) {
  static const char fn[] = "MPI_Pack_external_size";
  const hc_mpi_type_t *t = NULL;
  int rc = pack_ext_check(fn, datarep, incount, datatype, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, size, "size");
  if (rc == MPI_SUCCESS)
    *size = (MPI_Aint)hc_mpi_ext32_size(t, incount);
  return rc;
}
HC_WEAK_ALIAS(MPI_Pack_external_size, PMPI_Pack_external_size);

int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                       MPI_Aint *position) {
  static const char fn[] = "MPI_Pack_external";
  const hc_mpi_type_t *t = NULL;
  int rc = pack_ext_check(fn, datarep, incount, datatype, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, position, "position");
  MPI_Count n = t ? hc_mpi_ext32_size(t, incount) : 0;
  if (rc == MPI_SUCCESS)
    rc = pack_window(fn, NULL, n, *position, outsize, outbuf);
  if (rc != MPI_SUCCESS)
    return rc;
  /* Packed natively first (a private copy), then converted. */
  size_t native = (size_t)incount * (size_t)t->size;
  void *tmp = native ? malloc(native) : NULL;
  if (native && !tmp)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  hc_status_t st = hc_mpi_pack_any(t, inbuf, incount, tmp);
  if (st == HC_OK)
    hc_mpi_ext32_from_native(t, tmp, incount, (char *)outbuf + *position);
  free(tmp);
  if (st != HC_OK)
    return hc_mpi_raise_status(NULL, fn, st);
  *position += (MPI_Aint)n;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Pack_external, PMPI_Pack_external);

int PMPI_Unpack_external(const char datarep[], const void *inbuf,
                         MPI_Aint insize, MPI_Aint *position, void *outbuf,
                         int outcount, MPI_Datatype datatype) {
  static const char fn[] = "MPI_Unpack_external";
  const hc_mpi_type_t *t = NULL;
  int rc = pack_ext_check(fn, datarep, outcount, datatype, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, position, "position");
  MPI_Count n = t ? hc_mpi_ext32_size(t, outcount) : 0;
  if (rc == MPI_SUCCESS)
    rc = pack_window(fn, NULL, n, *position, insize, inbuf);
  if (rc != MPI_SUCCESS)
    return rc;
  /* Converted into a private native copy: the input buffer is const. */
  MPI_Count native = (MPI_Count)outcount * t->size;
  void *tmp = native ? malloc((size_t)native) : NULL;
  if (native && !tmp)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  if (native)
    hc_mpi_ext32_to_native(t, (const char *)inbuf + *position, outcount, tmp);
  hc_status_t st = hc_mpi_unpack_any(t, tmp, native, outcount, outbuf);
  free(tmp);
  if (st != HC_OK)
    return hc_mpi_raise_status(NULL, fn, st);
  *position += (MPI_Aint)n;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Unpack_external, PMPI_Unpack_external);

/* ---- addresses ---------------------------------------------------------- */

int PMPI_Get_address(const void *location, MPI_Aint *address) {
  int rc = hc_mpi_check_ptr("MPI_Get_address", NULL, address, "address");
  if (rc == MPI_SUCCESS)
    *address = (MPI_Aint)(uintptr_t)location;
  return rc;
}
HC_WEAK_ALIAS(MPI_Get_address, PMPI_Get_address);

int PMPI_Address(void *location, MPI_Aint *address) {
  int rc = hc_mpi_check_ptr("MPI_Address", NULL, address, "address");
  if (rc == MPI_SUCCESS)
    *address = (MPI_Aint)(uintptr_t)location;
  return rc;
}
HC_WEAK_ALIAS(MPI_Address, PMPI_Address);

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
HC_WEAK_ALIAS(MPI_Aint_add, PMPI_Aint_add);

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
HC_WEAK_ALIAS(MPI_Aint_diff, PMPI_Aint_diff);
