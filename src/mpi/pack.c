/*
 * The pack engine over a type's compact item list, and the calls built on
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

/* What a walk does with each contiguous piece: copy it to or from the
 * stream, or hand it to a visitor. */
typedef struct pk_op {
  char *stream;  /* the next stream byte (pack/unpack) */
  MPI_Count pos; /* its stream offset */
  int to_stream;
  hc_mpi_type_visit_cb visit; /* non-NULL: visit instead of copying */
  void *ctx;
} pk_op_t;

static void pk_piece(pk_op_t *op, char *mem, MPI_Aint len, int unit) {
  if (op->visit)
    op->visit(op->ctx, mem, op->pos, len, unit);
  else if (op->to_stream)
    memcpy(op->stream, mem, (size_t)len);
  else
    memcpy(mem, op->stream, (size_t)len);
  op->stream += len;
  op->pos += len;
}

/* The hot loop: n whole copies of a run item, the first at at. */
static void pk_runs(pk_op_t *op, uintptr_t at, const hc_mpi_titem_t *it,
                    MPI_Count n) {
  size_t len = (size_t)it->len;
  char *s = op->stream;
  if (op->visit) {
    for (MPI_Count j = 0; j < n; j++, at += (uintptr_t)it->stride)
      pk_piece(op, (char *)at, it->len, it->unit);
    return;
  }
  if (op->to_stream)
    for (MPI_Count j = 0; j < n; j++, at += (uintptr_t)it->stride, s += len)
      memcpy(s, (const char *)at, len);
  else
    for (MPI_Count j = 0; j < n; j++, at += (uintptr_t)it->stride, s += len)
      memcpy((char *)at, s, len);
  op->stream = s;
  op->pos += n * it->len;
}

/* The item holding stream offset skip of one element (skip < size). */
static size_t pk_find(const hc_mpi_type_t *t, MPI_Count skip) {
  size_t lo = 0, hi = t->nitems;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->items[mid].before <= skip)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Stream bytes [skip, skip + n) of one element of t at base; n does not
 * pass the element's end.  Seeking costs a search per nesting level. */
static void pk_element(const hc_mpi_type_t *t, uintptr_t base, MPI_Count skip,
                       MPI_Count n, pk_op_t *op) {
  size_t i = skip ? pk_find(t, skip) : 0;
  skip -= t->items[i].before;
  for (; n > 0; i++, skip = 0) {
    const hc_mpi_titem_t *it = &t->items[i];
    MPI_Count j = 0;
    MPI_Aint in = 0;
    if (skip) { /* the divisions only where a slice starts */
      j = skip / it->len;
      in = (MPI_Aint)(skip % it->len);
    }
    uintptr_t at = base + (uintptr_t)it->off + (uintptr_t)(j * it->stride);
    for (; j < it->count && n > 0; j++, at += (uintptr_t)it->stride) {
      if (!it->child && in == 0 && n >= it->len) {
        MPI_Count whole = n / it->len;
        whole = whole < it->count - j ? whole : it->count - j;
        pk_runs(op, at, it, whole);
        n -= whole * it->len;
        j += whole - 1;
        at += (uintptr_t)((whole - 1) * it->stride);
        continue;
      }
      MPI_Aint take = it->len - in < n ? it->len - in : (MPI_Aint)n;
      if (it->child)
        pk_element(it->child, at, in, take, op);
      else
        pk_piece(op, (char *)(at + (uintptr_t)in), take, it->unit);
      n -= take;
      in = 0;
    }
  }
}

/* Whole elements of a flat type (no item references a child): the
 * common small struct or vector costs one pass over its items per
 * element, as a flat block list would. */
static void pk_flat(const hc_mpi_type_t *t, uintptr_t base, MPI_Count elems,
                    pk_op_t *op) {
  char *s = op->stream;
  for (MPI_Count e = 0; e < elems; e++, base += (uintptr_t)t->extent)
    for (size_t i = 0; i < t->nitems; i++) {
      const hc_mpi_titem_t *it = &t->items[i];
      size_t len = (size_t)it->len;
      uintptr_t at = base + (uintptr_t)it->off;
      for (MPI_Count j = 0; j < it->count;
           j++, at += (uintptr_t)it->stride, s += len) {
        if (op->to_stream)
          memcpy(s, (const char *)at, len);
        else
          memcpy((char *)at, s, len);
      }
    }
  op->stream = s;
  op->pos += elems * t->size;
}

/* Stream bytes [first, first + n) of the elements at buf. */
static void pk_walk(const hc_mpi_type_t *t, const void *buf, MPI_Count first,
                    MPI_Count n, pk_op_t *op) {
  if (n <= 0 || t->size == 0)
    return;
  if (!op->visit && hc_mpi_type_dense(t)) {
    pk_piece(op, pk_at(buf, (MPI_Aint)first), (MPI_Aint)n, 1);
    return;
  }
  MPI_Count e = first / t->size, skip = first % t->size;
  op->pos = first;
  while (n > 0) {
    uintptr_t base = (uintptr_t)buf + (uintptr_t)(e * t->extent);
    if (skip == 0 && n >= t->size && t->flat && !op->visit) {
      MPI_Count whole = n / t->size;
      pk_flat(t, base, whole, op);
      e += whole;
      n -= whole * t->size;
      continue;
    }
    MPI_Count take = t->size - skip < n ? t->size - skip : n;
    pk_element(t, base, skip, take, op);
    n -= take;
    skip = 0;
    e++;
  }
}

static void pk_copy(const hc_mpi_type_t *t, const void *buf, MPI_Count first,
                    MPI_Count n, char *stream, int to_stream) {
  pk_op_t op = {stream, first, to_stream, NULL, NULL};
  pk_walk(t, buf, first, n, &op);
}

void hc_mpi_type_pack_range(const hc_mpi_type_t *type, const void *buf,
                            MPI_Count first, MPI_Count n, void *out) {
  pk_copy(type, buf, first, n, out, 1);
}

void hc_mpi_type_unpack_range(const hc_mpi_type_t *type, const void *in,
                              MPI_Count first, MPI_Count n, void *buf) {
  pk_copy(type, buf, first, n, (char *)in, 0);
}

void hc_mpi_type_pack(const hc_mpi_type_t *type, const void *buf,
                      MPI_Count count, void *out) {
  pk_copy(type, buf, 0, count * type->size, out, 1);
}

void hc_mpi_type_unpack(const hc_mpi_type_t *type, const void *in,
                        MPI_Count count, void *buf) {
  pk_copy(type, buf, 0, count * type->size, (char *)in, 0);
}

void hc_mpi_type_visit(const hc_mpi_type_t *type, const void *buf,
                       MPI_Count first, MPI_Count n, hc_mpi_type_visit_cb visit,
                       void *ctx) {
  pk_op_t op = {NULL, first, 0, visit, ctx};
  pk_walk(type, buf, first, n, &op);
}

/* Converts a prefix of one element between its two measures: by_elements
 * 0: the basic elements in its first amount bytes; 1: the bytes that hold
 * its first amount basic elements.  amount is less than the element's. */
static MPI_Count pk_prefix(const hc_mpi_type_t *t, MPI_Count amount,
                           int by_elements) {
  MPI_Count out = 0;
  for (size_t i = 0; i < t->nitems && amount > 0; i++) {
    const hc_mpi_titem_t *it = &t->items[i];
    MPI_Count elems = it->child ? it->child->elements : it->len / it->esz;
    MPI_Count in = by_elements ? elems : it->len;
    MPI_Count per = by_elements ? it->len : elems;
    MPI_Count whole = amount / in;
    if (whole >= it->count) {
      out += it->count * per;
      amount -= it->count * in;
      continue;
    }
    out += whole * per;
    amount -= whole * in;
    if (it->child)
      return out + pk_prefix(it->child, amount, by_elements);
    return out + (by_elements ? amount * it->esz : amount / it->esz);
  }
  return out;
}

MPI_Count hc_mpi_type_elements_in(const hc_mpi_type_t *t, MPI_Count bytes) {
  if (t->size == 0 || bytes <= 0)
    return 0;
  return bytes / t->size * t->elements + pk_prefix(t, bytes % t->size, 0);
}

MPI_Count hc_mpi_type_bytes_for(const hc_mpi_type_t *t, MPI_Count elements) {
  if (t->elements <= 0 || elements <= 0)
    return 0;
  return elements / t->elements * t->size +
         pk_prefix(t, elements % t->elements, 1);
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

static void pk_swap_piece(void *ctx, char *mem, MPI_Count pos, MPI_Aint len,
                          int unit) {
  (void)mem;
  pk_swap_run((unsigned char *)ctx + pos, len, unit);
}

void hc_mpi_type_swap_packed(const hc_mpi_type_t *type, void *stream,
                             MPI_Count count) {
  const uint16_t probe = 1;
  if (*(const unsigned char *)&probe == 0)
    return; /* already big-endian */
  /* The walk visits the elements of a notional buffer at 0: only the
   * stream offsets and units of the pieces are used. */
  hc_mpi_type_visit(type, NULL, 0, count * type->size, pk_swap_piece, stream);
}

/* ---- MPI_Pack family ---------------------------------------------------- */

static int pack_check(const char *fn, MPI_Count count, MPI_Datatype datatype,
                      MPI_Comm comm, hc_mpi_comm_t **c,
                      const hc_mpi_type_t **t) {
  int rc = hc_mpi_comm_enter(fn, comm, c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_count(fn, *c, count);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_type(fn, *c, datatype, t);
  return rc;
}

static int pack_size(const char *fn, MPI_Count incount, MPI_Datatype datatype,
                     MPI_Comm comm, const void *size_arg, MPI_Count *size,
                     hc_mpi_comm_t **c) {
  const hc_mpi_type_t *t = NULL;
  int rc = pack_check(fn, incount, datatype, comm, c, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, *c, size_arg, "size");
  if (rc == MPI_SUCCESS)
    *size = incount * t->size;
  return rc;
}

/* A packed size an int cannot hold: MPI_ERR_VALUE_TOO_LARGE, the class
 * MPI gives a result its int form cannot represent (the _c form can). */
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm,
                   int *size) {
  static const char fn[] = "MPI_Pack_size";
  hc_mpi_comm_t *c = NULL;
  MPI_Count n = 0;
  int rc = pack_size(fn, incount, datatype, comm, size, &n, &c);
  if (rc == MPI_SUCCESS && n > INT_MAX)
    rc = hc_mpi_raise(c, fn, MPI_ERR_VALUE_TOO_LARGE,
                      "packed size %lld does not fit an int (MPI_Pack_size_c)",
                      (long long)n);
  if (rc == MPI_SUCCESS)
    *size = (int)n;
  return rc;
}
HC_WEAK_ALIAS(MPI_Pack_size, PMPI_Pack_size);

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                     MPI_Count *size) {
  hc_mpi_comm_t *c = NULL;
  return pack_size("MPI_Pack_size_c", incount, datatype, comm, size, size, &c);
}
HC_WEAK_ALIAS(MPI_Pack_size_c, PMPI_Pack_size_c);

/* The window [*pos, *pos + n) of a packed buffer of the given size. */
static int pack_window(const char *fn, hc_mpi_comm_t *c, MPI_Count n,
                       MPI_Count pos, MPI_Count size, const void *packed) {
  if (pos < 0 || n > size - pos)
    return hc_mpi_raise(c, fn, MPI_ERR_TRUNCATE,
                        "%lld bytes do not fit at position %lld of %lld",
                        (long long)n, (long long)pos, (long long)size);
  if (n > 0 && packed == NULL)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER, "NULL packed buffer");
  return MPI_SUCCESS;
}

/* pos_arg: the caller's position argument, checked; *position is read and
 * advanced.  The int forms pass a copy: every position they can reach
 * (an int buffer size) fits their int. */
static int pack_native(const char *fn, const void *inbuf, MPI_Count incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                       const void *pos_arg, MPI_Count *position,
                       MPI_Comm comm) {
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *t = NULL;
  int rc = pack_check(fn, incount, datatype, comm, &c, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, pos_arg, "position");
  MPI_Count n = t ? incount * t->size : 0;
  if (rc == MPI_SUCCESS)
    rc = pack_window(fn, c, n, *position, outsize, outbuf);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_status_t st =
      hc_mpi_pack_any(t, inbuf, incount, (char *)outbuf + *position);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  *position += n;
  return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
              void *outbuf, int outsize, int *position, MPI_Comm comm) {
  MPI_Count pos = position ? *position : 0;
  int rc = pack_native("MPI_Pack", inbuf, incount, datatype, outbuf, outsize,
                       position, &pos, comm);
  if (rc == MPI_SUCCESS)
    *position = (int)pos;
  return rc;
}
HC_WEAK_ALIAS(MPI_Pack, PMPI_Pack);

int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                void *outbuf, MPI_Count outsize, MPI_Count *position,
                MPI_Comm comm) {
  MPI_Count pos = position ? *position : 0;
  int rc = pack_native("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize,
                       position, &pos, comm);
  if (rc == MPI_SUCCESS)
    *position = pos;
  return rc;
}
HC_WEAK_ALIAS(MPI_Pack_c, PMPI_Pack_c);

static int unpack_native(const char *fn, const void *inbuf, MPI_Count insize,
                         const void *pos_arg, MPI_Count *position, void *outbuf,
                         MPI_Count outcount, MPI_Datatype datatype,
                         MPI_Comm comm) {
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *t = NULL;
  int rc = pack_check(fn, outcount, datatype, comm, &c, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, pos_arg, "position");
  MPI_Count n = t ? outcount * t->size : 0;
  if (rc == MPI_SUCCESS)
    rc = pack_window(fn, c, n, *position, insize, inbuf);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_status_t st = hc_mpi_unpack_any(t, (const char *)inbuf + *position, n,
                                     outcount, outbuf);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  *position += n;
  return MPI_SUCCESS;
}

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
                int outcount, MPI_Datatype datatype, MPI_Comm comm) {
  MPI_Count pos = position ? *position : 0;
  int rc = unpack_native("MPI_Unpack", inbuf, insize, position, &pos, outbuf,
                         outcount, datatype, comm);
  if (rc == MPI_SUCCESS)
    *position = (int)pos;
  return rc;
}
HC_WEAK_ALIAS(MPI_Unpack, PMPI_Unpack);

int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position,
                  void *outbuf, MPI_Count outcount, MPI_Datatype datatype,
                  MPI_Comm comm) {
  MPI_Count pos = position ? *position : 0;
  int rc = unpack_native("MPI_Unpack_c", inbuf, insize, position, &pos, outbuf,
                         outcount, datatype, comm);
  if (rc == MPI_SUCCESS)
    *position = pos;
  return rc;
}
HC_WEAK_ALIAS(MPI_Unpack_c, PMPI_Unpack_c);

/* ---- external32 ---------------------------------------------------------
 * MPI_Aint and MPI_Count are one type here, so the int and _c forms share
 * one body each and differ only in the count's width. */

/* Checks datarep, count and type; local calls, no communicator. */
static int pack_ext_check(const char *fn, const char *datarep, MPI_Count count,
                          MPI_Datatype datatype, const hc_mpi_type_t **t) {
  int rc = hc_mpi_check_ptr(fn, NULL, datarep, "datarep");
  if (rc == MPI_SUCCESS && strcmp(datarep, "external32") != 0)
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                      "unsupported data representation "
                      "\"%s\"",
                      datarep);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_count(fn, NULL, count);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_type(fn, NULL, datatype, t);
  return rc;
}

static int pack_ext_size(const char *fn, const char *datarep, MPI_Count incount,
                         MPI_Datatype datatype, MPI_Aint *size) {
  const hc_mpi_type_t *t = NULL;
  int rc = pack_ext_check(fn, datarep, incount, datatype, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, size, "size");
  if (rc == MPI_SUCCESS)
    *size = (MPI_Aint)hc_mpi_ext32_size(t, incount);
  return rc;
}

int PMPI_Pack_external_size(const char *datarep, int incount,
                            MPI_Datatype datatype, MPI_Aint *size) {
  return pack_ext_size("MPI_Pack_external_size", datarep, incount, datatype,
                       size);
}
HC_WEAK_ALIAS(MPI_Pack_external_size, PMPI_Pack_external_size);

int PMPI_Pack_external_size_c(const char *datarep, MPI_Count incount,
                              MPI_Datatype datatype, MPI_Count *size) {
  return pack_ext_size("MPI_Pack_external_size_c", datarep, incount, datatype,
                       size);
}
HC_WEAK_ALIAS(MPI_Pack_external_size_c, PMPI_Pack_external_size_c);

static int pack_ext(const char *fn, const char *datarep, const void *inbuf,
                    MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                    MPI_Aint outsize, MPI_Aint *position) {
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

int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                       MPI_Aint *position) {
  return pack_ext("MPI_Pack_external", datarep, inbuf, incount, datatype,
                  outbuf, outsize, position);
}
HC_WEAK_ALIAS(MPI_Pack_external, PMPI_Pack_external);

int PMPI_Pack_external_c(const char *datarep, const void *inbuf,
                         MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                         MPI_Count outsize, MPI_Count *position) {
  return pack_ext("MPI_Pack_external_c", datarep, inbuf, incount, datatype,
                  outbuf, outsize, position);
}
HC_WEAK_ALIAS(MPI_Pack_external_c, PMPI_Pack_external_c);

static int unpack_ext(const char *fn, const char datarep[], const void *inbuf,
                      MPI_Aint insize, MPI_Aint *position, void *outbuf,
                      MPI_Count outcount, MPI_Datatype datatype) {
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
  MPI_Count native = outcount * t->size;
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

int PMPI_Unpack_external(const char datarep[], const void *inbuf,
                         MPI_Aint insize, MPI_Aint *position, void *outbuf,
                         int outcount, MPI_Datatype datatype) {
  return unpack_ext("MPI_Unpack_external", datarep, inbuf, insize, position,
                    outbuf, outcount, datatype);
}
HC_WEAK_ALIAS(MPI_Unpack_external, PMPI_Unpack_external);

int PMPI_Unpack_external_c(const char datarep[], const void *inbuf,
                           MPI_Count insize, MPI_Count *position, void *outbuf,
                           MPI_Count outcount, MPI_Datatype datatype) {
  return unpack_ext("MPI_Unpack_external_c", datarep, inbuf, insize, position,
                    outbuf, outcount, datatype);
}
HC_WEAK_ALIAS(MPI_Unpack_external_c, PMPI_Unpack_external_c);

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
