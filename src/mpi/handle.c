/* Handle tables for the MPI face; see handle.h for the encoding. */
#include "mpi/handle.h"

#include <stdlib.h>

#include "util/lock.h"

#define HANDLE_MIN_CAPACITY 64

int hc_handle_null(unsigned object) {
  return (int)(object << HC_HANDLE_OBJECT_SHIFT);
}

static int handle_make(unsigned kind, unsigned object, int index) {
  return (int)((kind << HC_HANDLE_KIND_SHIFT) |
               (object << HC_HANDLE_OBJECT_SHIFT) |
               ((unsigned)index & HC_HANDLE_INDEX_MASK));
}

/* Grows slots and free_stack together so a free never needs memory. */
static int handle_grow(hc_handle_table_t *t) {
  int cap = t->capacity ? t->capacity * 2 : HANDLE_MIN_CAPACITY;
  while (cap <= t->reserved)
    cap *= 2;
  if (cap > (int)HC_HANDLE_INDEX_MASK + 1)
    return -1;
  void **slots = realloc(t->slots, (size_t)cap * sizeof(*slots));
  if (!slots)
    return -1;
  t->slots = slots;
  for (int i = t->capacity; i < cap; i++)
    slots[i] = NULL;
  int *stack = realloc(t->free_stack, (size_t)cap * sizeof(*stack));
  if (!stack)
    return -1; /* slots grew, harmless: capacity stays the old value */
  t->free_stack = stack;
  t->capacity = cap;
  return 0;
}

int hc_handle_alloc(hc_handle_table_t *t, void *obj, int *handle) {
  int index;
  hc_lock(&t->lock);
  if (t->nfree > 0) {
    index = t->free_stack[--t->nfree];
  } else {
    if (t->next_fresh >= t->capacity && handle_grow(t) != 0) {
      hc_unlock(&t->lock);
      return -1;
    }
    index = t->next_fresh++;
  }
  t->slots[index] = obj;
  t->live++;
  hc_unlock(&t->lock);
  *handle = handle_make(HC_HANDLE_KIND_DIRECT, t->object, index);
  return 0;
}

/* Index of a direct handle of this table, or -1.  Caller holds the lock. */
static int handle_direct_index(const hc_handle_table_t *t, int handle) {
  if (hc_handle_kind(handle) != HC_HANDLE_KIND_DIRECT ||
      hc_handle_object(handle) != t->object)
    return -1;
  int index = (int)((unsigned)handle & HC_HANDLE_INDEX_MASK);
  if (index < t->reserved || index >= t->capacity || !t->slots[index])
    return -1;
  return index;
}

void *hc_handle_get(hc_handle_table_t *t, int handle) {
  if (hc_handle_object(handle) != t->object)
    return NULL;
  if (hc_handle_kind(handle) == HC_HANDLE_KIND_BUILTIN) {
    unsigned index = (unsigned)handle & HC_HANDLE_INDEX_MASK;
    if (index >= HC_HANDLE_BUILTIN_MAX)
      return NULL;
    hc_lock(&t->lock);
    void *obj = t->builtin[index];
    hc_unlock(&t->lock);
    return obj;
  }
  void *obj = NULL;
  hc_lock(&t->lock);
  int index = handle_direct_index(t, handle);
  if (index >= 0)
    obj = t->slots[index];
  hc_unlock(&t->lock);
  return obj;
}

void *hc_handle_free(hc_handle_table_t *t, int handle) {
  void *obj = NULL;
  hc_lock(&t->lock);
  int index = handle_direct_index(t, handle);
  if (index >= 0) {
    obj = t->slots[index];
    t->slots[index] = NULL;
    t->free_stack[t->nfree++] = index;
    t->live--;
  }
  hc_unlock(&t->lock);
  return obj;
}

int hc_handle_set_builtin(hc_handle_table_t *t, int handle, void *obj) {
  unsigned index = (unsigned)handle & HC_HANDLE_INDEX_MASK;
  if (hc_handle_kind(handle) != HC_HANDLE_KIND_BUILTIN ||
      hc_handle_object(handle) != t->object || index >= HC_HANDLE_BUILTIN_MAX)
    return -1;
  hc_lock(&t->lock);
  t->builtin[index] = obj;
  hc_unlock(&t->lock);
  return 0;
}

int hc_handle_live(hc_handle_table_t *t) {
  hc_lock(&t->lock);
  int live = t->live;
  hc_unlock(&t->lock);
  return live;
}

void hc_handle_table_fini(hc_handle_table_t *t) {
  hc_lock(&t->lock);
  free(t->slots);
  free(t->free_stack);
  t->slots = NULL;
  t->free_stack = NULL;
  t->capacity = 0;
  t->live = 0;
  t->nfree = 0;
  t->next_fresh = t->reserved;
  hc_unlock(&t->lock);
}
