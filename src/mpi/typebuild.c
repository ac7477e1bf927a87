/*
 * Derived datatype constructors.  Every constructor reduces to a sequence
 * of components "count blocks, step bytes apart, of blocklen copies of
 * child one child extent apart": the data goes to the compact type map
 * (typemap.c, constant cost per component whatever its counts) and the
 * bounds are accumulated following MPI's rules, every sum and product
 * checked, so a type whose extent or size does not fit MPI_Aint is refused
 * with MPI_ERR_ARG instead of wrapping around.  The MPI-1 MPI_LB / MPI_UB
 * markers set the bounds of the struct that lists them (whatever its data);
 * like MPICH 4, they do not stick through further constructors, nor do
 * the bounds of a resized type.  Subarray and
 * darray enumerate the owned index ranges of each dimension directly.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"

/* Bounds of the components seen so far. */
typedef struct tb_acc {
  int any; /* a component with data bounds */
  MPI_Aint lb, ub;
  int lbm, ubm; /* a marked lower / upper bound */
  MPI_Aint mlb, mub;
  MPI_Aint align;
} tb_acc_t;

static void tb_acc_init(tb_acc_t *a) { memset(a, 0, sizeof(*a)); }

/* ---- bounds ------------------------------------------------------------- */

static MPI_Aint tb_min(MPI_Aint a, MPI_Aint b) { return a < b ? a : b; }
static MPI_Aint tb_max(MPI_Aint a, MPI_Aint b) { return a > b ? a : b; }

static int tb_sum(MPI_Aint a, MPI_Aint b, MPI_Aint *out) {
  return __builtin_add_overflow(a, b, out) ? HC_MPI_TYPE_OVERFLOW
                                           : HC_MPI_TYPE_OK;
}

/* *lo and *hi moved by the span of n copies step apart. */
static int tb_spread(MPI_Count n, MPI_Aint step, MPI_Aint *lo, MPI_Aint *hi) {
  MPI_Aint span;
  if (__builtin_mul_overflow(n - 1, step, &span))
    return HC_MPI_TYPE_OVERFLOW;
  return span < 0 ? tb_sum(*lo, span, lo) : tb_sum(*hi, span, hi);
}

/* The bounds [*lb, *ub) of count blocks step apart of blocklen copies of
 * child, the first at disp. */
static int tb_component_bounds(const hc_mpi_type_t *child, MPI_Aint disp,
                               MPI_Count count, MPI_Count blocklen,
                               MPI_Aint step, MPI_Aint *lb, MPI_Aint *ub) {
  int rc = tb_sum(disp, child->lb, lb);
  if (rc == HC_MPI_TYPE_OK)
    rc = tb_sum(*lb, child->extent, ub);
  if (rc == HC_MPI_TYPE_OK)
    rc = tb_spread(blocklen, child->extent, lb, ub);
  if (rc == HC_MPI_TYPE_OK)
    rc = tb_spread(count, step, lb, ub);
  return rc;
}

static void tb_acc_bounds(tb_acc_t *a, const hc_mpi_type_t *child, MPI_Aint lb,
                          MPI_Aint ub) {
  int marker = child->handle == MPI_LB || child->handle == MPI_UB;
  if (!marker) {
    a->lb = a->any ? tb_min(a->lb, lb) : lb;
    a->ub = a->any ? tb_max(a->ub, ub) : ub;
    a->any = 1;
  }
  if (child->handle == MPI_LB) {
    a->mlb = a->lbm ? tb_min(a->mlb, lb) : lb;
    a->lbm = 1;
  }
  if (child->handle == MPI_UB) {
    a->mub = a->ubm ? tb_max(a->mub, ub) : ub;
    a->ubm = 1;
  }
  a->align = tb_max(a->align, child->align);
}

/* The data of count blocks step apart of blocklen copies of child: one
 * block, or blocks of one child, are appended directly; others go through
 * a block type that the items may reference. */
static int tb_append_blocks(hc_mpi_type_t *t, const hc_mpi_type_t *child,
                            MPI_Aint disp, MPI_Count count, MPI_Count blocklen,
                            MPI_Aint step) {
  if (count == 1)
    return hc_mpi_type_append(t, child, disp, blocklen, child->extent);
  if (blocklen == 1)
    return hc_mpi_type_append(t, child, disp, count, step);
  hc_mpi_type_t *block = hc_mpi_type_new();
  if (!block)
    return HC_MPI_TYPE_NOMEM;
  int rc = hc_mpi_type_append(block, child, 0, blocklen, child->extent);
  if (rc == HC_MPI_TYPE_OK)
    rc = hc_mpi_type_finish(block);
  if (rc == HC_MPI_TYPE_OK)
    rc = hc_mpi_type_append(t, block, disp, count, step);
  hc_mpi_type_release(block);
  return rc;
}

/* Adds a component (count blocks, step bytes apart, of blocklen copies of
 * child, the first at disp) to t and to the bounds.  An HC_MPI_TYPE_*
 * value; the bounds are checked before any data is described. */
static int tb_add_blocks(hc_mpi_type_t *t, tb_acc_t *a,
                         const hc_mpi_type_t *child, MPI_Aint disp,
                         MPI_Count count, MPI_Count blocklen, MPI_Aint step) {
  if (count <= 0 || blocklen <= 0)
    return HC_MPI_TYPE_OK;
  MPI_Aint lb, ub;
  int rc = tb_component_bounds(child, disp, count, blocklen, step, &lb, &ub);
  if (rc != HC_MPI_TYPE_OK)
    return rc;
  tb_acc_bounds(a, child, lb, ub);
  return tb_append_blocks(t, child, disp, count, blocklen, step);
}

/* Adds n copies of child at disp (one block). */
static int tb_add(hc_mpi_type_t *t, tb_acc_t *a, const hc_mpi_type_t *child,
                  MPI_Aint disp, MPI_Count n) {
  return tb_add_blocks(t, a, child, disp, 1, n, 0);
}

/* Sets t's bounds from the components; a struct without markers pads its
 * extent to the alignment of its most aligned member, as C does. */
static int tb_close(hc_mpi_type_t *t, const tb_acc_t *a, int is_struct) {
  MPI_Aint lb = a->lbm ? a->mlb : (a->any ? a->lb : 0);
  MPI_Aint ub = a->ubm ? a->mub : (a->any ? a->ub : 0);
  MPI_Aint extent;
  t->align = a->align > 0 ? a->align : 1;
  if (__builtin_sub_overflow(ub, lb, &extent))
    return HC_MPI_TYPE_OVERFLOW;
  if (is_struct && !a->lbm && !a->ubm && t->align > 1) {
    MPI_Aint rem = extent % t->align;
    if (rem && tb_sum(extent, t->align - rem, &extent) != HC_MPI_TYPE_OK)
      return HC_MPI_TYPE_OVERFLOW;
  }
  t->lb = lb;
  t->extent = extent;
  return hc_mpi_type_finish(t);
}

/* ---- common argument checks and publishing ------------------------------ */

static int tb_type(const char *fn, MPI_Datatype type,
                   const hc_mpi_type_t **out) {
  *out = hc_mpi_type_get(type);
  if (*out)
    return MPI_SUCCESS;
  if (type == MPI_DATATYPE_NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_TYPE,
                        "invalid datatype MPI_DATATYPE_NULL");
  return hc_mpi_raise(NULL, fn, MPI_ERR_TYPE, "invalid datatype 0x%x",
                      (unsigned)type);
}

static int tb_count(const char *fn, MPI_Count count) {
  return hc_mpi_check_count(fn, NULL, count);
}

static int tb_blocklen(const char *fn, MPI_Count len) {
  if (len >= 0)
    return MPI_SUCCESS;
  return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "negative block length %lld",
                      (long long)len);
}

static int tb_arrays(const char *fn, MPI_Count count, const void *a,
                     const void *b) {
  if (count == 0 || (a && b))
    return MPI_SUCCESS;
  return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "NULL array for %lld blocks",
                      (long long)count);
}

static int tb_oom(const char *fn, hc_mpi_type_t *t) {
  hc_mpi_type_release(t);
  return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
}

/* Releases t and reports why a building step (an HC_MPI_TYPE_* value)
 * failed. */
static int tb_fail(const char *fn, hc_mpi_type_t *t, int why) {
  if (why == HC_MPI_TYPE_NOMEM)
    return tb_oom(fn, t);
  hc_mpi_type_release(t);
  return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                      "datatype too large: its size or extent does not fit "
                      "in MPI_Aint");
}

/* Records the contents and hands out the handle; consumes t on failure. */
static int tb_publish(const char *fn, hc_mpi_type_t *t, int combiner, int ni,
                      const int *ints, int na, const MPI_Aint *aints, int nt,
                      const hc_mpi_type_t *const *types, MPI_Datatype *out) {
  if (hc_mpi_type_set_contents(t, combiner, ni, ints, na, aints, nt, types) !=
          0 ||
      hc_mpi_type_publish(t, out) != 0)
    return tb_oom(fn, t);
  return MPI_SUCCESS;
}

/* tb_publish for a _c constructor: every count, block length and
 * displacement is a large count (MPI-4 section 5.1.13), the rest ints. */
static int tb_publish_large(const char *fn, hc_mpi_type_t *t, int combiner,
                            int ni, const int *ints, MPI_Count nc,
                            const MPI_Count *large, int nt,
                            const hc_mpi_type_t *const *types,
                            MPI_Datatype *out) {
  if (nc > INT32_MAX ||
      hc_mpi_type_set_contents(t, combiner, ni, ints, 0, NULL, nt, types) !=
          0 ||
      hc_mpi_type_set_large(t, (int)nc, large) != 0 ||
      hc_mpi_type_publish(t, out) != 0)
    return tb_oom(fn, t);
  return MPI_SUCCESS;
}

/* Start of every constructor: the old type and the output pointer. */
static int tb_begin(const char *fn, MPI_Count count, MPI_Datatype oldtype,
                    const void *newtype, const hc_mpi_type_t **old,
                    hc_mpi_type_t **t) {
  int rc = tb_count(fn, count);
  if (rc == MPI_SUCCESS)
    rc = tb_type(fn, oldtype, old);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, newtype, "newtype");
  if (rc != MPI_SUCCESS)
    return rc;
  *t = hc_mpi_type_new();
  if (!*t)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  return MPI_SUCCESS;
}

/* ---- contiguous, vector, hvector ---------------------------------------- */

/* large: a _c form (its arguments recorded as large counts). */
static int tb_contiguous(const char *fn, MPI_Count count, MPI_Datatype oldtype,
                         MPI_Datatype *newtype, int large) {
  const hc_mpi_type_t *o = NULL;
  hc_mpi_type_t *t = NULL;
  int rc = tb_begin(fn, count, oldtype, newtype, &o, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  tb_acc_t a;
  tb_acc_init(&a);
  rc = tb_add(t, &a, o, 0, count);
  if (rc == HC_MPI_TYPE_OK)
    rc = tb_close(t, &a, 0);
  if (rc != HC_MPI_TYPE_OK)
    return tb_fail(fn, t, rc);
  if (large)
    return tb_publish_large(fn, t, MPI_COMBINER_CONTIGUOUS, 0, NULL, 1, &count,
                            1, &o, newtype);
  int n = (int)count;
  return tb_publish(fn, t, MPI_COMBINER_CONTIGUOUS, 1, &n, 0, NULL, 1, &o,
                    newtype);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype,
                         MPI_Datatype *newtype) {
  return tb_contiguous("MPI_Type_contiguous", count, oldtype, newtype, 0);
}
HC_WEAK_ALIAS(MPI_Type_contiguous, PMPI_Type_contiguous);

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype,
                           MPI_Datatype *newtype) {
  return tb_contiguous("MPI_Type_contiguous_c", count, oldtype, newtype, 1);
}
HC_WEAK_ALIAS(MPI_Type_contiguous_c, PMPI_Type_contiguous_c);

/* The shape of a vector: count blocks of blocklength, stride apart (in
 * old extents, or bytes). */
typedef struct tb_vector_args {
  MPI_Count count, blocklength;
  MPI_Aint stride;
  int in_extents;
} tb_vector_args_t;

static int tb_vector_publish(const char *fn, hc_mpi_type_t *t,
                             const tb_vector_args_t *v, const hc_mpi_type_t *o,
                             int large, MPI_Datatype *newtype) {
  int combiner = v->in_extents ? MPI_COMBINER_VECTOR : MPI_COMBINER_HVECTOR;
  if (large) {
    MPI_Count counts[3] = {v->count, v->blocklength, v->stride};
    return tb_publish_large(fn, t, combiner, 0, NULL, 3, counts, 1, &o,
                            newtype);
  }
  int ints[3] = {(int)v->count, (int)v->blocklength, (int)v->stride};
  if (v->in_extents)
    return tb_publish(fn, t, combiner, 3, ints, 0, NULL, 1, &o, newtype);
  return tb_publish(fn, t, combiner, 2, ints, 1, &v->stride, 1, &o, newtype);
}

static int tb_hvector(const char *fn, const tb_vector_args_t *v,
                      MPI_Datatype oldtype, MPI_Datatype *newtype, int large) {
  const hc_mpi_type_t *o = NULL;
  hc_mpi_type_t *t = NULL;
  int rc = tb_blocklen(fn, v->blocklength);
  if (rc == MPI_SUCCESS)
    rc = tb_begin(fn, v->count, oldtype, newtype, &o, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  MPI_Aint step = v->stride;
  tb_acc_t a;
  tb_acc_init(&a);
  if (v->in_extents && __builtin_mul_overflow(v->stride, o->extent, &step))
    rc = HC_MPI_TYPE_OVERFLOW;
  else
    rc = tb_add_blocks(t, &a, o, 0, v->count, v->blocklength, step);
  if (rc == HC_MPI_TYPE_OK)
    rc = tb_close(t, &a, 0);
  if (rc != HC_MPI_TYPE_OK)
    return tb_fail(fn, t, rc);
  return tb_vector_publish(fn, t, v, o, large, newtype);
}

int PMPI_Type_vector(int count, int blocklength, int stride,
                     MPI_Datatype oldtype, MPI_Datatype *newtype) {
  tb_vector_args_t v = {count, blocklength, stride, 1};
  return tb_hvector("MPI_Type_vector", &v, oldtype, newtype, 0);
}
HC_WEAK_ALIAS(MPI_Type_vector, PMPI_Type_vector);

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype) {
  tb_vector_args_t v = {count, blocklength, stride, 1};
  return tb_hvector("MPI_Type_vector_c", &v, oldtype, newtype, 1);
}
HC_WEAK_ALIAS(MPI_Type_vector_c, PMPI_Type_vector_c);

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                             MPI_Datatype oldtype, MPI_Datatype *newtype) {
  tb_vector_args_t v = {count, blocklength, stride, 0};
  return tb_hvector("MPI_Type_create_hvector", &v, oldtype, newtype, 0);
}
HC_WEAK_ALIAS(MPI_Type_create_hvector, PMPI_Type_create_hvector);

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength,
                               MPI_Count stride, MPI_Datatype oldtype,
                               MPI_Datatype *newtype) {
  tb_vector_args_t v = {count, blocklength, stride, 0};
  return tb_hvector("MPI_Type_create_hvector_c", &v, oldtype, newtype, 1);
}
HC_WEAK_ALIAS(MPI_Type_create_hvector_c, PMPI_Type_create_hvector_c);

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride,
                      MPI_Datatype oldtype, MPI_Datatype *newtype) {
  tb_vector_args_t v = {count, blocklength, stride, 0};
  return tb_hvector("MPI_Type_hvector", &v, oldtype, newtype, 0);
}
HC_WEAK_ALIAS(MPI_Type_hvector, PMPI_Type_hvector);

/* ---- indexed family ----------------------------------------------------- */

/* One description for indexed, hindexed and their _block forms: block
 * lengths come from lens[] (or are all len), displacements from idisp[]
 * (counted in old extents) or adisp[] (bytes).  large: a _c form. */
typedef struct tb_index_args {
  hc_mpi_vec_t lens;
  MPI_Count len;
  hc_mpi_vec_t idisp;
  const MPI_Aint *adisp;
  int large;
} tb_index_args_t;

static int tb_index_check(const char *fn, MPI_Count count,
                          const tb_index_args_t *x) {
  const void *d = x->adisp ? (const void *)x->adisp : hc_mpi_vec_ptr(x->idisp);
  const void *lens = hc_mpi_vec_ptr(x->lens);
  int rc = tb_arrays(fn, count, lens ? lens : "", d);
  if (rc != MPI_SUCCESS || !lens)
    return rc != MPI_SUCCESS ? rc : tb_blocklen(fn, x->len);
  for (MPI_Count i = 0; i < count && rc == MPI_SUCCESS; i++)
    rc = tb_blocklen(fn, hc_mpi_vec_at(x->lens, (int)i));
  return rc;
}

static int tb_index_build(const char *fn, MPI_Count count,
                          const tb_index_args_t *x, MPI_Datatype oldtype,
                          MPI_Datatype *newtype, const hc_mpi_type_t **old,
                          hc_mpi_type_t **out) {
  const hc_mpi_type_t *o = NULL;
  hc_mpi_type_t *t = NULL;
  int rc = tb_begin(fn, count, oldtype, newtype, &o, &t);
  if (rc == MPI_SUCCESS)
    rc = tb_index_check(fn, count, x);
  if (rc != MPI_SUCCESS) {
    hc_mpi_type_release(t);
    return rc;
  }
  tb_acc_t a;
  tb_acc_init(&a);
  int per_block = hc_mpi_vec_ptr(x->lens) != NULL, in_extents = !x->adisp;
  for (int i = 0; i < count && rc == HC_MPI_TYPE_OK; i++) {
    MPI_Aint d = x->adisp ? x->adisp[i] : 0;
    MPI_Count n = per_block ? hc_mpi_vec_at(x->lens, i) : x->len;
    if (in_extents &&
        __builtin_mul_overflow(hc_mpi_vec_at(x->idisp, i), o->extent, &d))
      rc = HC_MPI_TYPE_OVERFLOW;
    else
      rc = tb_add(t, &a, o, d, n);
  }
  if (rc == HC_MPI_TYPE_OK)
    rc = tb_close(t, &a, 0);
  if (rc != HC_MPI_TYPE_OK)
    return tb_fail(fn, t, rc);
  *old = o;
  *out = t;
  return MPI_SUCCESS;
}

/* The envelope of an indexed type: count, the block lengths (the one
 * length of the _block forms), then the displacements; the int forms keep
 * byte displacements as addresses, the _c forms keep all as large counts. */
static int tb_index_publish(const char *fn, int combiner, MPI_Count count,
                            const tb_index_args_t *x, hc_mpi_type_t *t,
                            const hc_mpi_type_t *o, MPI_Datatype *newtype) {
  int per_block = hc_mpi_vec_ptr(x->lens) != NULL;
  size_t nlens = per_block ? (size_t)count : 1;
  size_t ndisps = x->large || !x->adisp ? (size_t)count : 0;
  size_t n = 1 + nlens + ndisps;
  MPI_Count *all = malloc(n * sizeof *all);
  int *ints = x->large ? NULL : malloc(n * sizeof *ints);
  if (!all || (!x->large && !ints)) {
    free(all);
    return tb_oom(fn, t);
  }
  all[0] = count;
  for (size_t i = 0; i < nlens; i++)
    all[1 + i] = per_block ? hc_mpi_vec_at(x->lens, (int)i) : x->len;
  for (size_t i = 0; i < ndisps; i++)
    all[1 + nlens + i] =
        x->adisp ? x->adisp[i] : hc_mpi_vec_at(x->idisp, (int)i);
  int rc;
  if (x->large) {
    rc = tb_publish_large(fn, t, combiner, 0, NULL, (MPI_Count)n, all, 1, &o,
                          newtype);
  } else {
    for (size_t i = 0; i < n; i++)
      ints[i] = (int)all[i];
    rc = tb_publish(fn, t, combiner, (int)n, ints, x->adisp ? (int)count : 0,
                    x->adisp, 1, &o, newtype);
  }
  free(ints);
  free(all);
  return rc;
}

/* Every indexed constructor. */
static int tb_indexed(const char *fn, int combiner, MPI_Count count,
                      const tb_index_args_t *x, MPI_Datatype oldtype,
                      MPI_Datatype *newtype) {
  const hc_mpi_type_t *o = NULL;
  hc_mpi_type_t *t = NULL;
  int rc = tb_index_build(fn, count, x, oldtype, newtype, &o, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  return tb_index_publish(fn, combiner, count, x, t, o, newtype);
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype) {
  tb_index_args_t x = {hc_mpi_vec_int(array_of_blocklengths), 0,
                       hc_mpi_vec_int(array_of_displacements), NULL, 0};
  return tb_indexed("MPI_Type_indexed", MPI_COMBINER_INDEXED, count, &x,
                    oldtype, newtype);
}
HC_WEAK_ALIAS(MPI_Type_indexed, PMPI_Type_indexed);

int PMPI_Type_indexed_c(MPI_Count count,
                        const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[],
                        MPI_Datatype oldtype, MPI_Datatype *newtype) {
  tb_index_args_t x = {hc_mpi_vec_wide(array_of_blocklengths), 0,
                       hc_mpi_vec_wide(array_of_displacements), NULL, 1};
  return tb_indexed("MPI_Type_indexed_c", MPI_COMBINER_INDEXED, count, &x,
                    oldtype, newtype);
}
HC_WEAK_ALIAS(MPI_Type_indexed_c, PMPI_Type_indexed_c);

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[],
                              MPI_Datatype oldtype, MPI_Datatype *newtype) {
  tb_index_args_t x = {hc_mpi_vec_int(array_of_blocklengths), 0,
                       hc_mpi_vec_int(NULL), array_of_displacements, 0};
  return tb_indexed("MPI_Type_create_hindexed", MPI_COMBINER_HINDEXED, count,
                    &x, oldtype, newtype);
}
HC_WEAK_ALIAS(MPI_Type_create_hindexed, PMPI_Type_create_hindexed);

int PMPI_Type_create_hindexed_c(MPI_Count count,
                                const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[],
                                MPI_Datatype oldtype, MPI_Datatype *newtype) {
  tb_index_args_t x = {hc_mpi_vec_wide(array_of_blocklengths), 0,
                       hc_mpi_vec_int(NULL), array_of_displacements, 1};
  return tb_indexed("MPI_Type_create_hindexed_c", MPI_COMBINER_HINDEXED, count,
                    &x, oldtype, newtype);
}
HC_WEAK_ALIAS(MPI_Type_create_hindexed_c, PMPI_Type_create_hindexed_c);

int PMPI_Type_hindexed(int count, int array_of_blocklengths[],
                       MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                       MPI_Datatype *newtype) {
  tb_index_args_t x = {hc_mpi_vec_int(array_of_blocklengths), 0,
                       hc_mpi_vec_int(NULL), array_of_displacements, 0};
  return tb_indexed("MPI_Type_hindexed", MPI_COMBINER_HINDEXED, count, &x,
                    oldtype, newtype);
}
HC_WEAK_ALIAS(MPI_Type_hindexed, PMPI_Type_hindexed);

int PMPI_Type_create_indexed_block(int count, int blocklength,
                                   const int array_of_displacements[],
                                   MPI_Datatype oldtype,
                                   MPI_Datatype *newtype) {
  tb_index_args_t x = {hc_mpi_vec_int(NULL), blocklength,
                       hc_mpi_vec_int(array_of_displacements), NULL, 0};
  return tb_indexed("MPI_Type_create_indexed_block", MPI_COMBINER_INDEXED_BLOCK,
                    count, &x, oldtype, newtype);
}
HC_WEAK_ALIAS(MPI_Type_create_indexed_block, PMPI_Type_create_indexed_block);

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype,
                                     MPI_Datatype *newtype) {
  tb_index_args_t x = {hc_mpi_vec_int(NULL), blocklength,
                       hc_mpi_vec_wide(array_of_displacements), NULL, 1};
  return tb_indexed("MPI_Type_create_indexed_block_c",
                    MPI_COMBINER_INDEXED_BLOCK, count, &x, oldtype, newtype);
}
HC_WEAK_ALIAS(MPI_Type_create_indexed_block_c,
              PMPI_Type_create_indexed_block_c);

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype,
                                    MPI_Datatype *newtype) {
  tb_index_args_t x = {hc_mpi_vec_int(NULL), blocklength, hc_mpi_vec_int(NULL),
                       array_of_displacements, 0};
  return tb_indexed("MPI_Type_create_hindexed_block",
                    MPI_COMBINER_HINDEXED_BLOCK, count, &x, oldtype, newtype);
}
HC_WEAK_ALIAS(MPI_Type_create_hindexed_block, PMPI_Type_create_hindexed_block);

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype,
                                      MPI_Datatype *newtype) {
  tb_index_args_t x = {hc_mpi_vec_int(NULL), blocklength, hc_mpi_vec_int(NULL),
                       array_of_displacements, 1};
  return tb_indexed("MPI_Type_create_hindexed_block_c",
                    MPI_COMBINER_HINDEXED_BLOCK, count, &x, oldtype, newtype);
}
HC_WEAK_ALIAS(MPI_Type_create_hindexed_block_c,
              PMPI_Type_create_hindexed_block_c);

/* ---- struct ------------------------------------------------------------- */

static int tb_struct_types(const char *fn, MPI_Count count, hc_mpi_vec_t lens,
                           const MPI_Datatype *types,
                           const hc_mpi_type_t **objs) {
  for (int i = 0; i < count; i++) {
    int rc = tb_blocklen(fn, hc_mpi_vec_at(lens, i));
    if (rc == MPI_SUCCESS)
      rc = tb_type(fn, types[i], &objs[i]);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  return MPI_SUCCESS;
}

/* The envelope: count, the block lengths, then (the int forms) the
 * displacements as addresses, or (large) everything as large counts. */
static int tb_struct_publish(const char *fn, hc_mpi_type_t *t, MPI_Count count,
                             hc_mpi_vec_t lens, const MPI_Aint *disps,
                             const hc_mpi_type_t **objs, int large,
                             MPI_Datatype *newtype) {
  size_t n = 1 + (size_t)count * (large ? 2 : 1);
  MPI_Count *all = large ? malloc(n * sizeof *all) : NULL;
  int *ints = large ? NULL : malloc(n * sizeof *ints);
  if (!all && !ints)
    return tb_oom(fn, t);
  for (size_t i = 0; i < n; i++) {
    MPI_Count v = i == 0               ? count
                  : i <= (size_t)count ? hc_mpi_vec_at(lens, (int)(i - 1))
                                       : disps[i - 1 - (size_t)count];
    if (large)
      all[i] = v;
    else
      ints[i] = (int)v;
  }
  int rc = large
               ? tb_publish_large(fn, t, MPI_COMBINER_STRUCT, 0, NULL,
                                  (MPI_Count)n, all, (int)count, objs, newtype)
               : tb_publish(fn, t, MPI_COMBINER_STRUCT, (int)n, ints,
                            (int)count, disps, (int)count, objs, newtype);
  free(all);
  free(ints);
  return rc;
}

static int tb_struct(const char *fn, MPI_Count count, hc_mpi_vec_t lens,
                     const MPI_Aint *disps, const MPI_Datatype *types,
                     MPI_Datatype *newtype, int large) {
  int rc = tb_count(fn, count);
  if (rc == MPI_SUCCESS)
    rc = tb_arrays(fn, count, hc_mpi_vec_ptr(lens), disps);
  if (rc == MPI_SUCCESS)
    rc = tb_arrays(fn, count, types, types);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, newtype, "newtype");
  if (rc != MPI_SUCCESS)
    return rc;
  const hc_mpi_type_t **objs = calloc((size_t)count + 1, sizeof(*objs));
  hc_mpi_type_t *t = objs ? hc_mpi_type_new() : NULL;
  if (!t) {
    free(objs);
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  rc = tb_struct_types(fn, count, lens, types, objs);
  if (rc != MPI_SUCCESS) {
    free(objs);
    hc_mpi_type_release(t);
    return rc;
  }
  tb_acc_t a;
  tb_acc_init(&a);
  for (int i = 0; i < count && rc == HC_MPI_TYPE_OK; i++)
    rc = tb_add(t, &a, objs[i], disps[i], hc_mpi_vec_at(lens, i));
  if (rc == HC_MPI_TYPE_OK)
    rc = tb_close(t, &a, 1);
  if (rc != HC_MPI_TYPE_OK) {
    free(objs);
    return tb_fail(fn, t, rc);
  }
  rc = tb_struct_publish(fn, t, count, lens, disps, objs, large, newtype);
  free(objs);
  return rc;
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[],
                            MPI_Datatype *newtype) {
  return tb_struct("MPI_Type_create_struct", count,
                   hc_mpi_vec_int(array_of_blocklengths),
                   array_of_displacements, array_of_types, newtype, 0);
}
HC_WEAK_ALIAS(MPI_Type_create_struct, PMPI_Type_create_struct);

int PMPI_Type_create_struct_c(MPI_Count count,
                              const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[],
                              MPI_Datatype *newtype) {
  return tb_struct("MPI_Type_create_struct_c", count,
                   hc_mpi_vec_wide(array_of_blocklengths),
                   array_of_displacements, array_of_types, newtype, 1);
}
HC_WEAK_ALIAS(MPI_Type_create_struct_c, PMPI_Type_create_struct_c);

int PMPI_Type_struct(int count, int array_of_blocklengths[],
                     MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype *newtype) {
  return tb_struct("MPI_Type_struct", count,
                   hc_mpi_vec_int(array_of_blocklengths),
                   array_of_displacements, array_of_types, newtype, 0);
}
HC_WEAK_ALIAS(MPI_Type_struct, PMPI_Type_struct);

/* ---- resized ------------------------------------------------------------ */

static int tb_resized(const char *fn, MPI_Datatype oldtype, MPI_Aint lb,
                      MPI_Aint extent, MPI_Datatype *newtype, int large) {
  const hc_mpi_type_t *o = NULL;
  hc_mpi_type_t *t = NULL;
  int rc = tb_begin(fn, 0, oldtype, newtype, &o, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  MPI_Aint ub;
  t->lb = lb;
  t->extent = extent;
  t->align = o->align;
  rc = __builtin_add_overflow(lb, extent, &ub) ? HC_MPI_TYPE_OVERFLOW
                                               : HC_MPI_TYPE_OK;
  if (rc == HC_MPI_TYPE_OK)
    rc = hc_mpi_type_append(t, o, 0, 1, o->extent);
  if (rc == HC_MPI_TYPE_OK)
    rc = hc_mpi_type_finish(t);
  if (rc != HC_MPI_TYPE_OK)
    return tb_fail(fn, t, rc);
  MPI_Aint bounds[2] = {lb, extent};
  if (large)
    return tb_publish_large(fn, t, MPI_COMBINER_RESIZED, 0, NULL, 2, bounds, 1,
                            &o, newtype);
  return tb_publish(fn, t, MPI_COMBINER_RESIZED, 0, NULL, 2, bounds, 1, &o,
                    newtype);
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype) {
  return tb_resized("MPI_Type_create_resized", oldtype, lb, extent, newtype, 0);
}
HC_WEAK_ALIAS(MPI_Type_create_resized, PMPI_Type_create_resized);

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb,
                               MPI_Count extent, MPI_Datatype *newtype) {
  return tb_resized("MPI_Type_create_resized_c", oldtype, lb, extent, newtype,
                    1);
}
HC_WEAK_ALIAS(MPI_Type_create_resized_c, PMPI_Type_create_resized_c);

/* ---- subarray and darray ------------------------------------------------ */

/* The owned indices of each dimension as ranges [lo, hi). */
typedef struct tb_dim {
  MPI_Aint *lo, *hi;
  int n;
} tb_dim_t;

typedef struct tb_grid {
  int ndims;
  hc_mpi_vec_t gsizes;
  int order;
  tb_dim_t *dims;
  MPI_Aint *stride; /* bytes between neighbours in each dimension */
  MPI_Aint total;   /* bytes of the whole global array */
} tb_grid_t;

static void tb_grid_free(tb_grid_t *g) {
  for (int d = 0; g->dims && d < g->ndims; d++) {
    free(g->dims[d].lo);
    free(g->dims[d].hi);
  }
  free(g->dims);
  free(g->stride);
}

static int tb_grid_init(tb_grid_t *g, int ndims, hc_mpi_vec_t gsizes, int order,
                        MPI_Aint ext) {
  g->ndims = ndims;
  g->gsizes = gsizes;
  g->order = order;
  g->dims = calloc((size_t)ndims, sizeof(*g->dims));
  g->stride = calloc((size_t)ndims, sizeof(*g->stride));
  if (!g->dims || !g->stride)
    return HC_MPI_TYPE_NOMEM;
  MPI_Aint s = ext;
  for (int k = 0; k < ndims; k++) {
    int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
    g->stride[d] = s;
    if (__builtin_mul_overflow(s, hc_mpi_vec_at(gsizes, d), &s))
      return HC_MPI_TYPE_OVERFLOW;
  }
  g->total = s;
  return HC_MPI_TYPE_OK;
}

static int tb_dim_add(tb_dim_t *dim, MPI_Aint lo, MPI_Aint hi) {
  if (hi <= lo)
    return 0;
  MPI_Aint *l = realloc(dim->lo, ((size_t)dim->n + 1) * sizeof(*l));
  if (l)
    dim->lo = l;
  MPI_Aint *h = l ? realloc(dim->hi, ((size_t)dim->n + 1) * sizeof(*h)) : NULL;
  if (!h)
    return -1;
  dim->hi = h;
  dim->lo[dim->n] = lo;
  dim->hi[dim->n] = hi;
  dim->n++;
  return 0;
}

/* The data of dimension level k (k counts from the outermost dimension):
 * for each owned range, its length of copies of the next level inward
 * (of the old type at the innermost), one dimension stride apart. */
static int tb_grid_level(hc_mpi_type_t *level, const tb_grid_t *g, int k,
                         const hc_mpi_type_t *inner) {
  int d = g->order == MPI_ORDER_C ? k : g->ndims - 1 - k;
  const tb_dim_t *dim = &g->dims[d];
  int rc = HC_MPI_TYPE_OK;
  for (int r = 0; r < dim->n && rc == HC_MPI_TYPE_OK; r++) {
    MPI_Aint off;
    if (__builtin_mul_overflow(dim->lo[r], g->stride[d], &off))
      return HC_MPI_TYPE_OVERFLOW;
    rc = hc_mpi_type_append(level, inner, off, dim->hi[r] - dim->lo[r],
                            g->stride[d]);
  }
  return rc == HC_MPI_TYPE_OK ? hc_mpi_type_finish(level) : rc;
}

/* Builds the type of a grid, lb 0 and extent the whole global array, one
 * level per dimension from the innermost out: its cost follows the number
 * of owned ranges, not of elements. */
static int tb_grid_build(hc_mpi_type_t *t, const tb_grid_t *g,
                         const hc_mpi_type_t *o) {
  const hc_mpi_type_t *inner = hc_mpi_type_retain(o);
  int rc = HC_MPI_TYPE_OK;
  for (int k = g->ndims - 1; k >= 0 && rc == HC_MPI_TYPE_OK; k--) {
    hc_mpi_type_t *level = hc_mpi_type_new();
    rc = level ? tb_grid_level(level, g, k, inner) : HC_MPI_TYPE_NOMEM;
    hc_mpi_type_release(inner);
    inner = level;
  }
  t->lb = 0;
  t->extent = g->total;
  t->align = o->align;
  if (rc == HC_MPI_TYPE_OK)
    rc = hc_mpi_type_append(t, inner, 0, 1, 0);
  hc_mpi_type_release(inner);
  return rc == HC_MPI_TYPE_OK ? hc_mpi_type_finish(t) : rc;
}

static int tb_order(const char *fn, int order) {
  if (order == MPI_ORDER_C || order == MPI_ORDER_FORTRAN)
    return MPI_SUCCESS;
  return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "invalid order %d", order);
}

/* A subarray's shape: sizes, subsizes and starts per dimension. */
typedef struct tb_sub_args {
  int ndims;
  hc_mpi_vec_t sizes, subsizes, starts;
  int order;
} tb_sub_args_t;

static int tb_subarray_check(const char *fn, const tb_sub_args_t *x) {
  if (x->ndims <= 0)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "invalid ndims %d", x->ndims);
  int rc = tb_arrays(fn, x->ndims, hc_mpi_vec_ptr(x->sizes),
                     hc_mpi_vec_ptr(x->subsizes));
  if (rc == MPI_SUCCESS)
    rc = tb_arrays(fn, x->ndims, hc_mpi_vec_ptr(x->starts),
                   hc_mpi_vec_ptr(x->starts));
  if (rc == MPI_SUCCESS)
    rc = tb_order(fn, x->order);
  for (int d = 0; d < x->ndims && rc == MPI_SUCCESS; d++) {
    MPI_Count size = hc_mpi_vec_at(x->sizes, d);
    MPI_Count sub = hc_mpi_vec_at(x->subsizes, d);
    MPI_Count start = hc_mpi_vec_at(x->starts, d);
    if (size <= 0 || sub < 0 || start < 0 || sub > size - start)
      rc = hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "dimension %d: size %lld, subsize %lld, start %lld", d,
                        (long long)size, (long long)sub, (long long)start);
  }
  return rc;
}

/* The envelope: ndims, the three arrays, order (large: the arrays as large
 * counts, ndims and order as ints). */
static int tb_subarray_publish(const char *fn, hc_mpi_type_t *t,
                               const tb_sub_args_t *x, const hc_mpi_type_t *o,
                               int large, MPI_Datatype *newtype) {
  int n = x->ndims;
  MPI_Count *all = malloc((size_t)n * 3 * sizeof *all);
  int *ints = malloc(((size_t)n * 3 + 2) * sizeof(int));
  int rc = MPI_SUCCESS;
  if (!all || !ints) {
    rc = tb_oom(fn, t);
  } else {
    for (int d = 0; d < n; d++) {
      all[d] = hc_mpi_vec_at(x->sizes, d);
      all[n + d] = hc_mpi_vec_at(x->subsizes, d);
      all[2 * n + d] = hc_mpi_vec_at(x->starts, d);
    }
    ints[0] = n;
    for (int i = 0; i < 3 * n; i++)
      ints[1 + i] = (int)all[i];
    ints[1 + 3 * n] = x->order;
    int large_ints[2] = {n, x->order};
    rc = large ? tb_publish_large(fn, t, MPI_COMBINER_SUBARRAY, 2, large_ints,
                                  3 * n, all, 1, &o, newtype)
               : tb_publish(fn, t, MPI_COMBINER_SUBARRAY, 3 * n + 2, ints, 0,
                            NULL, 1, &o, newtype);
  }
  free(all);
  free(ints);
  return rc;
}

static int tb_subarray(const char *fn, const tb_sub_args_t *x,
                       MPI_Datatype oldtype, MPI_Datatype *newtype, int large) {
  int rc = tb_subarray_check(fn, x);
  const hc_mpi_type_t *o = NULL;
  hc_mpi_type_t *t = NULL;
  if (rc == MPI_SUCCESS)
    rc = tb_begin(fn, 0, oldtype, newtype, &o, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  tb_grid_t g = {0};
  rc = tb_grid_init(&g, x->ndims, x->sizes, x->order, o->extent);
  for (int d = 0; d < x->ndims && rc == HC_MPI_TYPE_OK; d++) {
    MPI_Count start = hc_mpi_vec_at(x->starts, d);
    rc = tb_dim_add(&g.dims[d], start, start + hc_mpi_vec_at(x->subsizes, d));
  }
  if (rc == HC_MPI_TYPE_OK)
    rc = tb_grid_build(t, &g, o);
  tb_grid_free(&g);
  if (rc != HC_MPI_TYPE_OK)
    return tb_fail(fn, t, rc);
  return tb_subarray_publish(fn, t, x, o, large, newtype);
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                              const int array_of_subsizes[],
                              const int array_of_starts[], int order,
                              MPI_Datatype oldtype, MPI_Datatype *newtype) {
  tb_sub_args_t x = {ndims, hc_mpi_vec_int(array_of_sizes),
                     hc_mpi_vec_int(array_of_subsizes),
                     hc_mpi_vec_int(array_of_starts), order};
  return tb_subarray("MPI_Type_create_subarray", &x, oldtype, newtype, 0);
}
HC_WEAK_ALIAS(MPI_Type_create_subarray, PMPI_Type_create_subarray);

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order,
                                MPI_Datatype oldtype, MPI_Datatype *newtype) {
  tb_sub_args_t x = {ndims, hc_mpi_vec_wide(array_of_sizes),
                     hc_mpi_vec_wide(array_of_subsizes),
                     hc_mpi_vec_wide(array_of_starts), order};
  return tb_subarray("MPI_Type_create_subarray_c", &x, oldtype, newtype, 1);
}
HC_WEAK_ALIAS(MPI_Type_create_subarray_c, PMPI_Type_create_subarray_c);

/* The index ranges process coordinate c owns in one darray dimension;
 * -1 for an invalid distribution argument. */
static int tb_darray_dim(tb_dim_t *dim, MPI_Count g, int distrib, int darg,
                         int p, int c) {
  if (distrib == MPI_DISTRIBUTE_NONE)
    return p == 1 ? tb_dim_add(dim, 0, g) : -1;
  if (distrib == MPI_DISTRIBUTE_BLOCK) {
    MPI_Aint b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
    if (b <= 0 || b * p < g)
      return -1;
    MPI_Aint lo = c * b, hi = lo + b < g ? lo + b : g;
    return tb_dim_add(dim, lo, hi);
  }
  if (distrib != MPI_DISTRIBUTE_CYCLIC)
    return -1;
  MPI_Aint b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
  if (b <= 0)
    return -1;
  for (MPI_Aint lo = c * b; lo < g; lo += b * p)
    if (tb_dim_add(dim, lo, lo + b < g ? lo + b : g) != 0)
      return -2;
  return 0;
}

typedef struct tb_darray_args {
  int size, rank, ndims;
  hc_mpi_vec_t gsizes;
  const int *distribs, *dargs, *psizes;
  int order;
} tb_darray_args_t;

static int tb_darray_check(const char *fn, const tb_darray_args_t *x) {
  if (x->ndims <= 0 || x->size <= 0 || x->rank < 0 || x->rank >= x->size)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "invalid ndims %d, size %d or rank %d", x->ndims,
                        x->size, x->rank);
  int rc = tb_arrays(fn, x->ndims, hc_mpi_vec_ptr(x->gsizes), x->distribs);
  if (rc == MPI_SUCCESS)
    rc = tb_arrays(fn, x->ndims, x->dargs, x->psizes);
  if (rc == MPI_SUCCESS)
    rc = tb_order(fn, x->order);
  long prod = 1;
  for (int d = 0; d < x->ndims && rc == MPI_SUCCESS; d++) {
    if (hc_mpi_vec_at(x->gsizes, d) <= 0 || x->psizes[d] <= 0)
      rc = hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "dimension %d: gsize %lld, psize %d", d,
                        (long long)hc_mpi_vec_at(x->gsizes, d), x->psizes[d]);
    prod *= x->psizes[d];
  }
  if (rc == MPI_SUCCESS && prod != x->size)
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                      "the process grid has %ld processes, not %d", prod,
                      x->size);
  return rc;
}

/* Fills the grid's owned ranges; the process grid is row-major whatever
 * the array order. */
static int tb_darray_grid(const char *fn, tb_grid_t *g,
                          const tb_darray_args_t *x) {
  int rest = x->rank;
  for (int d = x->ndims - 1; d >= 0; d--) {
    int c = rest % x->psizes[d];
    rest /= x->psizes[d];
    int r = tb_darray_dim(&g->dims[d], hc_mpi_vec_at(x->gsizes, d),
                          x->distribs[d], x->dargs[d], x->psizes[d], c);
    if (r == -1)
      return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                          "dimension %d: invalid distribution %d, argument "
                          "%d over %d processes",
                          d, x->distribs[d], x->dargs[d], x->psizes[d]);
    if (r != 0)
      return MPI_ERR_NO_MEM;
  }
  return MPI_SUCCESS;
}

/* The envelope: size, rank, ndims, gsizes, distribs, dargs, psizes, order;
 * large: gsizes alone are large counts, the rest ints in that order. */
static int tb_darray_publish(const char *fn, hc_mpi_type_t *t,
                             const tb_darray_args_t *x, const hc_mpi_type_t *o,
                             int large, MPI_Datatype *newtype) {
  int n = x->ndims, ng = large ? 0 : n;
  int *ints = malloc(((size_t)n * 4 + 4) * sizeof(int));
  MPI_Count *gs = malloc((size_t)n * sizeof *gs);
  if (!ints || !gs) {
    free(ints);
    free(gs);
    return tb_oom(fn, t);
  }
  ints[0] = x->size;
  ints[1] = x->rank;
  ints[2] = n;
  for (int d = 0; d < n; d++) {
    gs[d] = hc_mpi_vec_at(x->gsizes, d);
    if (!large)
      ints[3 + d] = (int)gs[d];
    ints[3 + ng + d] = x->distribs[d];
    ints[3 + ng + n + d] = x->dargs[d];
    ints[3 + ng + 2 * n + d] = x->psizes[d];
  }
  ints[3 + ng + 3 * n] = x->order;
  int rc = large ? tb_publish_large(fn, t, MPI_COMBINER_DARRAY, 3 * n + 4, ints,
                                    n, gs, 1, &o, newtype)
                 : tb_publish(fn, t, MPI_COMBINER_DARRAY, 4 * n + 4, ints, 0,
                              NULL, 1, &o, newtype);
  free(ints);
  free(gs);
  return rc;
}

static int tb_darray(const char *fn, const tb_darray_args_t *x,
                     MPI_Datatype oldtype, MPI_Datatype *newtype, int large) {
  int rc = tb_darray_check(fn, x);
  const hc_mpi_type_t *o = NULL;
  hc_mpi_type_t *t = NULL;
  if (rc == MPI_SUCCESS)
    rc = tb_begin(fn, 0, oldtype, newtype, &o, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  tb_grid_t g = {0};
  int built = tb_grid_init(&g, x->ndims, x->gsizes, x->order, o->extent);
  if (built == HC_MPI_TYPE_OK) {
    rc = tb_darray_grid(fn, &g, x);
    built = rc == MPI_ERR_NO_MEM ? HC_MPI_TYPE_NOMEM : HC_MPI_TYPE_OK;
  }
  if (built == HC_MPI_TYPE_OK && rc == MPI_SUCCESS)
    built = tb_grid_build(t, &g, o);
  tb_grid_free(&g);
  if (built != HC_MPI_TYPE_OK)
    return tb_fail(fn, t, built);
  if (rc != MPI_SUCCESS) {
    hc_mpi_type_release(t);
    return rc;
  }
  return tb_darray_publish(fn, t, x, o, large, newtype);
}

int PMPI_Type_create_darray(int size, int rank, int ndims,
                            const int array_of_gsizes[],
                            const int array_of_distribs[],
                            const int array_of_dargs[],
                            const int array_of_psizes[], int order,
                            MPI_Datatype oldtype, MPI_Datatype *newtype) {
  tb_darray_args_t x = {size,
                        rank,
                        ndims,
                        hc_mpi_vec_int(array_of_gsizes),
                        array_of_distribs,
                        array_of_dargs,
                        array_of_psizes,
                        order};
  return tb_darray("MPI_Type_create_darray", &x, oldtype, newtype, 0);
}
HC_WEAK_ALIAS(MPI_Type_create_darray, PMPI_Type_create_darray);

int PMPI_Type_create_darray_c(int size, int rank, int ndims,
                              const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[],
                              const int array_of_dargs[],
                              const int array_of_psizes[], int order,
                              MPI_Datatype oldtype, MPI_Datatype *newtype) {
  tb_darray_args_t x = {size,
                        rank,
                        ndims,
                        hc_mpi_vec_wide(array_of_gsizes),
                        array_of_distribs,
                        array_of_dargs,
                        array_of_psizes,
                        order};
  return tb_darray("MPI_Type_create_darray_c", &x, oldtype, newtype, 1);
}
HC_WEAK_ALIAS(MPI_Type_create_darray_c, PMPI_Type_create_darray_c);
