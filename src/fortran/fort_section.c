/*
 * Array sections as choice buffers of the mpi_f08 binding
 * (MPI_SUBARRAYS_SUPPORTED).  A buffer arrives as gfortran's descriptor of
 * an assumed-rank array (fort_gfc.h); a contiguous one passes on as its
 * first element's address with the caller's count and datatype.  A
 * section with gaps (a(1:n:2), a(:,2:6:2), a component of an array of
 * derived type) passes on in one of two ways:
 *
 *  - as a datatype: one item of a type whose elements are the section's,
 *    built from the descriptor's strides.  Nothing is copied, so this is
 *    what a nonblocking, persistent or one-sided call needs (the buffer is
 *    used after the call returns).  It needs the count items of the
 *    datatype to be whole array elements: a dense datatype whose size
 *    divides the element's length (MPI_REAL on a REAL array, MPI_BYTE on
 *    anything), and the buffer's own count (Send's), or a count per peer
 *    when the section splits into equally spaced blocks of that count
 *    (Gather's receive buffer, Alltoall's both); where counts come in
 *    arrays (the v-forms, partitions), a section of equally spaced
 *    elements passes as the datatype resized to their spacing;
 *  - as a copy: a contiguous temporary filled from the section before a
 *    blocking call and written back after it unless the call only reads
 *    the buffer.  This serves whatever no datatype describes: counts in
 *    arrays over a section not equally spaced, the w-forms, one datatype
 *    shared by two buffers of different shapes (Reduce), derived
 *    datatypes with holes.
 *
 * A nonblocking call whose section only a copy could serve fails with
 * MPI_ERR_BUFFER before anything starts, naming the argument.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fortran/fort_impl.h"

/* The elements of a descriptor, walked in array element order. */
typedef struct section_walk {
  int rank;
  ptrdiff_t extent[15];
  ptrdiff_t step[15]; /* bytes between neighbours along each dimension */
  ptrdiff_t index[15];
  ptrdiff_t offset; /* bytes from the first element to the current one */
} section_walk_t;

static MPI_Count section_elements(const hc_f_gfc_desc_t *d) {
  MPI_Count n = 1;
  for (int i = 0; i < d->dtype.rank; i++) {
    ptrdiff_t extent = d->dim[i].upper_bound - d->dim[i].lower_bound + 1;
    n *= extent > 0 ? extent : 0;
  }
  return n;
}

static void walk_start(section_walk_t *w, const hc_f_gfc_desc_t *d) {
  w->rank = d->dtype.rank;
  for (int i = 0; i < w->rank; i++) {
    w->extent[i] = d->dim[i].upper_bound - d->dim[i].lower_bound + 1;
    w->step[i] = d->dim[i].stride * d->span;
    w->index[i] = 0;
  }
  w->offset = 0;
}

/* Moves to the next element (the first dimension runs fastest). */
static void walk_next(section_walk_t *w) {
  for (int i = 0; i < w->rank; i++) {
    if (++w->index[i] < w->extent[i]) {
      w->offset += w->step[i];
      return;
    }
    w->offset -= (w->extent[i] - 1) * w->step[i];
    w->index[i] = 0;
  }
}

/* Copies the section's elements to or from the contiguous tmp. */
static void section_copy(const hc_f_gfc_desc_t *d, unsigned char *tmp,
                         MPI_Count n, int to_section) {
  size_t len = d->dtype.elem_len;
  unsigned char *base = d->base_addr;
  section_walk_t w;
  walk_start(&w, d);
  for (MPI_Count i = 0; i < n; i++, tmp += len) {
    if (to_section)
      memcpy(base + w.offset, tmp, len);
    else
      memcpy(tmp, base + w.offset, len);
    walk_next(&w);
  }
}

static int section_fail(hc_f_section_t *s, int errclass, const char *name,
                        const char *what) {
  s->rc = errclass;
  snprintf(s->why, sizeof s->why, "%s: %s", name, what);
  return 0;
}

/* elem, the datatype of one array element made of items of the dense
 * datatype type (size bytes each); MPI_DATATYPE_NULL when the element is
 * not a whole number of items. */
static MPI_Datatype element_type(MPI_Datatype type, MPI_Count size,
                                 size_t elem_len, int *made) {
  MPI_Count lb, extent, true_lb, true_extent;
  *made = 0;
  if (size <= 0 || elem_len % (size_t)size != 0 ||
      PMPI_Type_get_extent_c(type, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent_c(type, &true_lb, &true_extent) !=
          MPI_SUCCESS ||
      lb != 0 || true_lb != 0 || extent != size || true_extent != size)
    return MPI_DATATYPE_NULL;
  if (elem_len == (size_t)size)
    return type;
  MPI_Datatype elem;
  if (PMPI_Type_contiguous_c((MPI_Count)elem_len / size, type, &elem) !=
      MPI_SUCCESS)
    return MPI_DATATYPE_NULL;
  *made = 1;
  return elem;
}

/* Puts next, built on *t, in place of *t (freeing *t when made here). */
static int stack_type(MPI_Datatype *t, int *made, int rc, MPI_Datatype next) {
  if (rc != MPI_SUCCESS)
    return rc;
  if (*made)
    PMPI_Type_free(t);
  *t = next;
  *made = 1;
  return MPI_SUCCESS;
}

/* The type of the section's first m elements of type elem, resized to
 * extent spacing when that is nonzero (so that count items of it are
 * equally spaced blocks).  The whole section builds one level per
 * dimension; a shorter run lists its elements. */
static int section_type(const hc_f_gfc_desc_t *d, MPI_Datatype elem,
                        int elem_made, MPI_Count m, MPI_Count spacing,
                        MPI_Datatype *out) {
  MPI_Datatype t = elem, next = MPI_DATATYPE_NULL;
  int made = elem_made, rc = MPI_SUCCESS;
  if (m == section_elements(d)) {
    for (int i = 0; i < d->dtype.rank && rc == MPI_SUCCESS; i++) {
      ptrdiff_t extent = d->dim[i].upper_bound - d->dim[i].lower_bound + 1;
      if (extent == 1)
        continue;
      rc = PMPI_Type_create_hvector_c(extent, 1, d->dim[i].stride * d->span,
                                      t, &next);
      rc = stack_type(&t, &made, rc, next);
    }
  } else {
    MPI_Aint *displs = malloc((size_t)m * sizeof *displs);
    if (!displs)
      rc = MPI_ERR_NO_MEM;
    if (displs) {
      section_walk_t w;
      walk_start(&w, d);
      for (MPI_Count i = 0; i < m; i++, walk_next(&w))
        displs[i] = w.offset;
      rc = PMPI_Type_create_hindexed_block_c(m, 1, displs, t, &next);
      free(displs);
      rc = stack_type(&t, &made, rc, next);
    }
  }
  if (rc == MPI_SUCCESS && spacing != 0) {
    rc = PMPI_Type_create_resized_c(t, 0, spacing, &next);
    rc = stack_type(&t, &made, rc, next);
  }
  if (rc == MPI_SUCCESS && !made) { /* our own handle, to free after */
    rc = PMPI_Type_contiguous_c(1, t, &next);
    rc = stack_type(&t, &made, rc, next);
  }
  if (rc == MPI_SUCCESS)
    rc = PMPI_Type_commit(&t);
  if (rc != MPI_SUCCESS) {
    if (made)
      PMPI_Type_free(&t);
    return rc;
  }
  *out = t;
  return MPI_SUCCESS;
}

/* Where a section splits into equally spaced blocks of m elements with
 * the same inner layout (what a count per peer needs), the bytes from one
 * block's first element to the next one's; 0 where it does not. */
static MPI_Count block_spacing(const hc_f_gfc_desc_t *d, MPI_Count m) {
  /* The blocks are t consecutive indices of dimension k over whole lower
   * dimensions, k the highest dimension whose lower ones divide m; the
   * dimensions above k must go on at dimension k's pace, so that block
   * starts form one progression. */
  int rank = d->dtype.rank, k = 0;
  MPI_Count lower = 1, at_k = 1;
  for (int i = 0; i < rank; i++) {
    if (m % lower == 0) {
      k = i;
      at_k = lower;
    }
    lower *= d->dim[i].upper_bound - d->dim[i].lower_bound + 1;
  }
  ptrdiff_t extent = d->dim[k].upper_bound - d->dim[k].lower_bound + 1;
  MPI_Count t = m / at_k;
  if (t <= 0 || extent % t != 0)
    return 0;
  ptrdiff_t step = d->dim[k].stride * d->span, reach = step * extent;
  for (int j = k + 1; j < rank; j++) {
    ptrdiff_t ej = d->dim[j].upper_bound - d->dim[j].lower_bound + 1;
    if (ej > 1) {
      if (d->dim[j].stride * d->span != reach)
        return 0;
      reach *= ej;
    }
  }
  return t * step > 0 ? t * step : 0;
}

/* The section as one item of a datatype (1), or 0 where none describes it
 * (the caller may copy instead), or an error class. */
static int section_typed(hc_f_section_t *s, const char *name, MPI_Count count,
                         int how) {
  const hc_f_gfc_desc_t *d = s->desc;
  MPI_Datatype type = PMPI_Type_f2c(s->type);
  MPI_Count size, n = section_elements(d);
  size_t len = d->dtype.elem_len;
  int elem_made;
  if (PMPI_Type_size_c(type, &size) != MPI_SUCCESS)
    return 1; /* the call itself reports the datatype */
  if (count == 0 || size == 0)
    return 1; /* no byte moves: the count and datatype as they are */
  MPI_Datatype elem = element_type(type, size, len, &elem_made);
  if (elem == MPI_DATATYPE_NULL)
    return 0;
  if ((count * size) % (MPI_Count)len != 0) {
    if (elem_made)
      PMPI_Type_free(&elem);
    return 0;
  }
  MPI_Count m = count * size / (MPI_Count)len, spacing = 0;
  if (m > n) {
    if (elem_made)
      PMPI_Type_free(&elem);
    return section_fail(s, MPI_ERR_BUFFER, name,
                        "count items of the datatype reach past the end of "
                        "the array section");
  }
  if (how & HC_F_SECTION_PER_PEER && m < n &&
      (spacing = block_spacing(d, m)) == 0) {
    if (elem_made)
      PMPI_Type_free(&elem);
    return 0;
  }
  int rc = section_type(d, elem, elem_made, m, spacing, &s->made);
  if (rc != MPI_SUCCESS)
    return section_fail(s, rc, name,
                        "no datatype could be built for the array section");
  s->count = 1;
  s->count_c = 1;
  s->type = PMPI_Type_c2f(s->made);
  return 1;
}

/* The bytes from each element to the next where the section's elements
 * are equally spaced in memory (a row, a strided vector), else 0. */
static ptrdiff_t element_spacing(const hc_f_gfc_desc_t *d) {
  ptrdiff_t step = 0, reach = 0;
  for (int i = 0; i < d->dtype.rank; i++) {
    ptrdiff_t extent = d->dim[i].upper_bound - d->dim[i].lower_bound + 1;
    if (extent <= 1)
      continue;
    ptrdiff_t here = d->dim[i].stride * d->span;
    if (step && here != reach)
      return 0;
    if (!step)
      step = here;
    reach = here * extent;
  }
  return step > 0 ? step : 0;
}

/* Where counts in arrays index items of the datatype through the buffer,
 * a section of equally spaced elements, one item each, passes as the
 * datatype resized to their spacing: the counts stay as they are.  1 when
 * done, 0 where that does not fit, or an error (0 with s->rc). */
static int section_spaced(hc_f_section_t *s, const char *name) {
  const hc_f_gfc_desc_t *d = s->desc;
  ptrdiff_t step = element_spacing(d);
  MPI_Datatype type = PMPI_Type_f2c(s->type);
  MPI_Count size, lb, extent, true_lb, true_extent;
  if (step == 0)
    return 0;
  if (PMPI_Type_size_c(type, &size) != MPI_SUCCESS)
    return 1; /* the call itself reports the datatype */
  if (size != (MPI_Count)d->dtype.elem_len ||
      PMPI_Type_get_extent_c(type, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent_c(type, &true_lb, &true_extent) !=
          MPI_SUCCESS ||
      lb != 0 || true_lb != 0 || extent != size || true_extent != size)
    return 0;
  MPI_Datatype spaced;
  int rc = PMPI_Type_create_resized_c(type, 0, step, &spaced);
  if (rc == MPI_SUCCESS && (rc = PMPI_Type_commit(&spaced)) != MPI_SUCCESS)
    PMPI_Type_free(&spaced);
  if (rc != MPI_SUCCESS)
    return section_fail(s, rc, name,
                        "no datatype could be built for the array section");
  s->made = spaced;
  s->type = PMPI_Type_c2f(spaced);
  return 1;
}

/* Fails (0) where count items of the datatype reach past a copy of n
 * elements of len bytes. */
static int copy_fits(hc_f_section_t *s, const char *name, MPI_Count count,
                     MPI_Count n, size_t len) {
  MPI_Count lb, extent, true_lb, true_extent;
  MPI_Datatype type = PMPI_Type_f2c(s->type);
  if (count <= 0 ||
      PMPI_Type_get_extent_c(type, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent_c(type, &true_lb, &true_extent) !=
          MPI_SUCCESS)
    return 1; /* nothing read, or the call reports the datatype */
  MPI_Count last = (count - 1) * extent;
  if (true_lb < 0 || last + true_lb + true_extent > n * (MPI_Count)len)
    return section_fail(s, MPI_ERR_BUFFER, name,
                        "count items of the datatype reach past the end of "
                        "the array section");
  return 1;
}

int hc_f_section_open(hc_f_section_t *s, const char *name,
                      const hc_f_gfc_desc_t *d, MPI_Count count,
                      MPI_Fint type, int how) {
  memset(s, 0, sizeof *s);
  s->desc = d;
  s->addr = d->base_addr;
  s->count = (MPI_Fint)count;
  s->count_c = count;
  s->type = type;
  s->made = MPI_DATATYPE_NULL;
  if (how & HC_F_SECTION_ADDRESS || hc_f_f08ts_contiguous(d))
    return 1;
  if (d->dtype.rank < 0 || d->dtype.rank > 15)
    return section_fail(s, MPI_ERR_BUFFER, name,
                        "an array descriptor of no known shape");
  if (how & HC_F_SECTION_WHOLE)
    return section_fail(s, MPI_ERR_BUFFER, name,
                        "a non-contiguous array section where the call "
                        "needs one contiguous piece of memory");
  if (how & (HC_F_SECTION_COUNTED | HC_F_SECTION_PER_PEER) &&
      !(how & HC_F_SECTION_UNTYPED)) {
    int done = section_typed(s, name, count, how);
    if (done || s->rc != MPI_SUCCESS)
      return done;
  }
  if (how & HC_F_SECTION_SPACED && !(how & HC_F_SECTION_UNTYPED)) {
    int done = section_spaced(s, name);
    if (done || s->rc != MPI_SUCCESS)
      return done;
  }
  if (!(how & HC_F_SECTION_COPY))
    return section_fail(s, MPI_ERR_BUFFER, name,
                        "a non-contiguous array section that no datatype "
                        "describes (counts in arrays, a datatype shared "
                        "with a buffer of another shape, or one with "
                        "holes) in a call that uses the buffer after it "
                        "returns; pass a contiguous array");
  MPI_Count n = section_elements(d);
  size_t len = d->dtype.elem_len;
  if (how & HC_F_SECTION_COUNTED && !copy_fits(s, name, count, n, len))
    return 0;
  if (n == 0)
    return 1;
  s->copy = malloc((size_t)n * len);
  if (!s->copy)
    return section_fail(s, MPI_ERR_NO_MEM, name,
                        "no memory for a contiguous copy of the array "
                        "section");
  section_copy(d, s->copy, n, 0);
  s->copy_out = (how & HC_F_SECTION_OUT) != 0;
  s->addr = s->copy;
  return 1;
}

/* Two descriptors whose elements sit at the same offsets from their first
 * elements. */
static int same_layout(const hc_f_gfc_desc_t *a, const hc_f_gfc_desc_t *b) {
  if (a->dtype.rank != b->dtype.rank || a->dtype.elem_len != b->dtype.elem_len)
    return 0;
  for (int i = 0; i < a->dtype.rank; i++) {
    ptrdiff_t ea = a->dim[i].upper_bound - a->dim[i].lower_bound + 1;
    ptrdiff_t eb = b->dim[i].upper_bound - b->dim[i].lower_bound + 1;
    if (ea != eb ||
        (ea > 1 && a->dim[i].stride * a->span != b->dim[i].stride * b->span))
      return 0;
  }
  return 1;
}

int hc_f_section_open_shared(hc_f_section_t *s, int n,
                             const char *const names[],
                             hc_f_gfc_desc_t *const descs[], const int how[],
                             MPI_Count count, MPI_Fint type) {
  int lead = -1;
  for (int i = 0; i < n && lead < 0; i++)
    if (!hc_f_f08ts_contiguous(descs[i]))
      lead = i;
  if (lead < 0) {
    for (int i = 0; i < n; i++)
      hc_f_section_open(&s[i], names[i], descs[i], count, type, how[i]);
    return 1;
  }
  /* One datatype can describe every buffer where the others are
   * MPI_IN_PLACE or laid out as the first section is (with a count), or
   * spaced as it is (with counts per rank: Reduce_scatter's). */
  int counted = (how[lead] & HC_F_SECTION_COUNTED) != 0;
  int share = counted || (how[lead] & HC_F_SECTION_SPACED);
  for (int i = 0; share && i < n; i++)
    if (i != lead && hc_f_buf(descs[i]->base_addr) == descs[i]->base_addr &&
        (counted ? !same_layout(descs[i], descs[lead])
                 : hc_f_f08ts_contiguous(descs[i]) ||
                       descs[i]->dtype.elem_len != descs[lead]->dtype.elem_len ||
                       element_spacing(descs[i]) !=
                           element_spacing(descs[lead])))
      share = 0;
  int ok = hc_f_section_open(&s[lead], names[lead], descs[lead], count, type,
                             share ? how[lead]
                                   : how[lead] | HC_F_SECTION_UNTYPED);
  int typed = ok && s[lead].made != MPI_DATATYPE_NULL;
  for (int i = 0; i < n; i++) {
    if (i == lead)
      continue;
    if (!ok) { /* opened only to be closed */
      hc_f_section_open(&s[i], names[i], descs[i], count, type,
                        HC_F_SECTION_ADDRESS);
      continue;
    }
    ok = hc_f_section_open(&s[i], names[i], descs[i], count, type,
                           typed ? HC_F_SECTION_ADDRESS
                                 : how[i] | HC_F_SECTION_UNTYPED);
    if (typed) {
      s[i].count = s[lead].count;
      s[i].count_c = s[lead].count_c;
      s[i].type = s[lead].type;
    }
  }
  return ok;
}

static void section_close(hc_f_section_t *s, int ran) {
  if (!s->desc) /* never opened */
    return;
  if (s->copy) {
    if (ran && s->copy_out)
      section_copy(s->desc, s->copy, section_elements(s->desc), 1);
    free(s->copy);
    s->copy = NULL;
  }
  if (s->made != MPI_DATATYPE_NULL)
    PMPI_Type_free(&s->made);
}

void hc_f_sections_end(hc_f_section_t *s, int n, int ran, const char *fn,
                       int kind, MPI_Fint handle, MPI_Fint *ierr) {
  const hc_f_section_t *failed = NULL;
  for (int i = 0; i < n; i++) {
    if (!failed && s[i].rc != MPI_SUCCESS)
      failed = &s[i];
    section_close(&s[i], ran);
  }
  if (failed)
    hc_f_raise(ierr, fn, kind, handle, failed->rc, failed->why);
}
