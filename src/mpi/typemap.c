/*
 * The compact type map (see datatype.h): items "count copies, stride
 * apart, of a run or of a child type".  Appending n copies of a child
 * costs the same for n = 2 and n = 10^9: one run child becomes one run
 * item, a child whose single item the copies continue becomes that item
 * with a larger count, a small flat child is expanded (a few items, so
 * the common small structs and vectors pack as fast as a flat list), and
 * anything else becomes one item referencing the child.  Each new item
 * is merged into the previous one when it continues it (adjacent runs;
 * copies continuing the previous item's progression), so a regular
 * indexed or struct layout collapses too.  All arithmetic on offsets,
 * sizes and bounds is checked: a type whose numbers do not fit is
 * HC_MPI_TYPE_OVERFLOW, refused by the constructors.
 */
#include <stdlib.h>

#include "mpi/mpi_impl.h"

/* A child with at most this many items after expansion is copied
 * inline rather than referenced. */
#define TM_EXPAND_MAX 64

static int tm_add(MPI_Aint a, MPI_Aint b, MPI_Aint *out) {
  return __builtin_add_overflow(a, b, out) ? HC_MPI_TYPE_OVERFLOW
                                           : HC_MPI_TYPE_OK;
}

static int tm_mul(MPI_Aint a, MPI_Aint b, MPI_Aint *out) {
  return __builtin_mul_overflow(a, b, out) ? HC_MPI_TYPE_OVERFLOW
                                           : HC_MPI_TYPE_OK;
}

static int tm_reserve(hc_mpi_type_t *t) {
  if (t->nitems < t->item_cap)
    return HC_MPI_TYPE_OK;
  size_t want = t->item_cap ? t->item_cap * 2 : 4;
  hc_mpi_titem_t *items = realloc(t->items, want * sizeof(*items));
  if (!items)
    return HC_MPI_TYPE_NOMEM;
  t->items = items;
  t->item_cap = want;
  return HC_MPI_TYPE_OK;
}

static int tm_same_piece(const hc_mpi_titem_t *a, const hc_mpi_titem_t *b) {
  return a->child == b->child && a->len == b->len && a->esz == b->esz &&
         a->unit == b->unit;
}

/* Folds q into p when q's copies continue p's; 1 when folded. */
static int tm_merge(hc_mpi_titem_t *p, const hc_mpi_titem_t *q) {
  MPI_Aint end, sum;
  if (!p->child && !q->child && p->count == 1 && q->count == 1 &&
      p->esz == q->esz && p->unit == q->unit &&
      tm_add(p->off, p->len, &end) == HC_MPI_TYPE_OK && end == q->off &&
      tm_add(p->len, q->len, &sum) == HC_MPI_TYPE_OK) {
    p->len = sum; /* adjacent runs */
    return 1;
  }
  if (!tm_same_piece(p, q))
    return 0;
  MPI_Aint step = p->stride, span, next;
  MPI_Count total;
  if (p->count == 1 && __builtin_sub_overflow(q->off, p->off, &step))
    return 0;
  if ((q->count > 1 && q->stride != step) ||
      tm_mul(p->count, step, &span) != HC_MPI_TYPE_OK ||
      tm_add(p->off, span, &next) != HC_MPI_TYPE_OK || next != q->off ||
      __builtin_add_overflow(p->count, q->count, &total))
    return 0;
  p->count = total;
  p->stride = step;
  return 1;
}

/* Appends one item (taking a reference to its child), merged with the
 * last one where it continues it. */
static int tm_push(hc_mpi_type_t *t, hc_mpi_titem_t it) {
  MPI_Aint whole;
  if (!it.child && it.count > 1 && it.stride == it.len &&
      tm_mul(it.len, it.count, &whole) == HC_MPI_TYPE_OK) {
    it.len = whole; /* back-to-back copies of a run are one run */
    it.count = 1;
  }
  if (t->nitems && tm_merge(&t->items[t->nitems - 1], &it))
    return HC_MPI_TYPE_OK;
  int rc = tm_reserve(t);
  if (rc != HC_MPI_TYPE_OK)
    return rc;
  if (it.child)
    hc_mpi_type_retain(it.child);
  t->items[t->nitems++] = it;
  return HC_MPI_TYPE_OK;
}

/* it moved by delta bytes, repeated n times stride apart (n > 1 only when
 * it is a single copy, or its copies run on with that stride). */
static int tm_push_moved(hc_mpi_type_t *t, hc_mpi_titem_t it, MPI_Aint delta,
                         MPI_Count n, MPI_Aint stride) {
  int rc = tm_add(it.off, delta, &it.off);
  if (rc == HC_MPI_TYPE_OK && n > 1) {
    if (it.count == 1)
      it.stride = stride;
    rc = tm_mul(it.count, n, &it.count);
  }
  return rc == HC_MPI_TYPE_OK ? tm_push(t, it) : rc;
}

static int tm_flat(const hc_mpi_type_t *c) {
  for (size_t i = 0; i < c->nitems; i++)
    if (c->items[i].child)
      return 0;
  return 1;
}

/* Every copy of every item of child, moved: for small flat children. */
static int tm_expand(hc_mpi_type_t *t, const hc_mpi_type_t *child,
                     MPI_Aint disp, MPI_Count n, MPI_Aint stride) {
  for (MPI_Count j = 0; j < n; j++) {
    MPI_Aint base;
    int rc = tm_mul(j, stride, &base);
    if (rc == HC_MPI_TYPE_OK)
      rc = tm_add(base, disp, &base);
    for (size_t i = 0; i < child->nitems && rc == HC_MPI_TYPE_OK; i++)
      rc = tm_push_moved(t, child->items[i], base, 1, 0);
    if (rc != HC_MPI_TYPE_OK)
      return rc;
  }
  return HC_MPI_TYPE_OK;
}

int hc_mpi_type_append(hc_mpi_type_t *t, const hc_mpi_type_t *child,
                       MPI_Aint disp, MPI_Count n, MPI_Aint stride) {
  if (n <= 0 || child->nitems == 0)
    return HC_MPI_TYPE_OK;
  if (n == 1)
    return tm_expand(t, child, disp, 1, 0);
  if (child->nitems == 1) {
    const hc_mpi_titem_t *it = &child->items[0];
    MPI_Aint span;
    if (it->count == 1 ||
        (tm_mul(it->count, it->stride, &span) == HC_MPI_TYPE_OK &&
         span == stride))
      return tm_push_moved(t, *it, disp, n, stride);
  }
  if (tm_flat(child) && (MPI_Count)child->nitems * n <= TM_EXPAND_MAX)
    return tm_expand(t, child, disp, n, stride);
  hc_mpi_titem_t it = {disp, stride, n, (MPI_Aint)child->size, 0, child, 0, 0};
  return tm_push(t, it);
}

/* The true bounds [*lo, *hi) of one item's data. */
static int tm_item_bounds(const hc_mpi_titem_t *it, MPI_Aint *lo,
                          MPI_Aint *hi) {
  MPI_Aint first = it->child ? it->child->true_lb : 0;
  MPI_Aint width = it->child ? it->child->true_extent : it->len;
  MPI_Aint span;
  int rc = tm_mul(it->count - 1, it->stride, &span);
  if (rc == HC_MPI_TYPE_OK)
    rc = tm_add(it->off, first, lo);
  if (rc == HC_MPI_TYPE_OK)
    rc = tm_add(*lo, width, hi);
  if (rc == HC_MPI_TYPE_OK)
    rc = tm_add(span < 0 ? *lo : *hi, span, span < 0 ? lo : hi);
  return rc;
}

/* Packed bytes and basic elements of every item. */
static int tm_measure(hc_mpi_type_t *t) {
  MPI_Count size = 0, elems = 0;
  for (size_t i = 0; i < t->nitems; i++) {
    hc_mpi_titem_t *it = &t->items[i];
    MPI_Count bytes, per = it->child ? it->child->elements : it->len / it->esz;
    it->before = size;
    if (__builtin_mul_overflow(it->count, it->len, &bytes) ||
        __builtin_add_overflow(size, bytes, &size) ||
        __builtin_mul_overflow(it->count, per, &per) ||
        __builtin_add_overflow(elems, per, &elems))
      return HC_MPI_TYPE_OVERFLOW;
  }
  t->size = size;
  t->elements = elems;
  return HC_MPI_TYPE_OK;
}

/* The size shared by the basic elements of an item: 0 when it holds
 * none, -1 when they differ.  A child's element_mask tells its size when
 * above 1; a child without one whose bytes are as many as its basic
 * elements has 1-byte elements, any other differs within itself. */
static MPI_Aint tm_item_basic_size(const hc_mpi_titem_t *it) {
  const hc_mpi_type_t *c = it->child;
  if (c == NULL)
    return it->esz;
  if (c->size == 0)
    return 0;
  if (c->element_mask != 0)
    return (MPI_Aint)c->element_mask + 1;
  return c->size == c->elements ? 1 : -1;
}

void hc_mpi_type_set_element_mask(hc_mpi_type_t *t) {
  MPI_Aint common = 0;
  for (size_t i = 0; i < t->nitems && common >= 0; i++) {
    MPI_Aint s = tm_item_basic_size(&t->items[i]);
    if (s != 0)
      common = common == 0 || common == s ? s : -1;
  }
  int power_of_two = common > 1 && (common & (common - 1)) == 0;
  t->element_mask = power_of_two ? (unsigned)(common - 1) : 0;
}

int hc_mpi_type_finish(hc_mpi_type_t *t) {
  MPI_Aint lo = 0, hi = 0;
  int rc = tm_measure(t);
  for (size_t i = 0; i < t->nitems && rc == HC_MPI_TYPE_OK; i++) {
    MPI_Aint l = 0, h = 0;
    rc = tm_item_bounds(&t->items[i], &l, &h);
    lo = i == 0 || l < lo ? l : lo;
    hi = i == 0 || h > hi ? h : hi;
  }
  if (rc == HC_MPI_TYPE_OK && __builtin_sub_overflow(hi, lo, &t->true_extent))
    rc = HC_MPI_TYPE_OVERFLOW;
  if (rc != HC_MPI_TYPE_OK)
    return rc;
  t->true_lb = lo;
  hc_mpi_type_set_element_mask(t);
  t->flat = tm_flat(t);
  t->contiguous = hc_mpi_type_dense(t);
  t->wire_size = t->contiguous ? (size_t)t->extent : (size_t)t->size;
  if (t->contiguous && t->nitems == 0)
    t->wire_size = 0;
  return HC_MPI_TYPE_OK;
}

void hc_mpi_type_clear_items(hc_mpi_type_t *t) {
  for (size_t i = 0; i < t->nitems; i++)
    hc_mpi_type_release(t->items[i].child);
  free(t->items);
  t->items = NULL;
  t->nitems = 0;
  t->item_cap = 0;
}
