/*
 * Handle tables: MPI handles (ints, MPICH encoding) <-> face objects.
 *
 * A handle is kind(2 bits) | object(4 bits) | index(26 bits).  Objects the
 * library creates at run time get "direct" handles (kind 2, e.g. a
 * communicator 0x84000000|idx); predefined objects get builtin handles
 * (kind 1, e.g. MPI_COMM_WORLD 0x44000000) registered with
 * hc_handle_set_builtin.  Lookups reject a wrong kind, a wrong object type,
 * an index out of range or a free slot, so a stale or foreign handle reads
 * as invalid instead of as some other object.
 *
 * Thread safety: every function takes the table's mutex (real once a
 * second thread may enter, util/lock.h) for a few instructions only; the
 * caller never holds it across an engine call.
 */
#ifndef HC_MPI_HANDLE_H
#define HC_MPI_HANDLE_H

#include <pthread.h>

/* MPICH object-type codes (bits 26-29). */
enum hc_handle_object {
  HC_OBJ_COMM = 0x1,
  HC_OBJ_GROUP = 0x2,
  HC_OBJ_DATATYPE = 0x3,
  HC_OBJ_ERRHANDLER = 0x5,
  HC_OBJ_OP = 0x6,
  HC_OBJ_INFO = 0x7,
  HC_OBJ_WIN = 0x8,
  HC_OBJ_KEYVAL = 0x9,
  HC_OBJ_REQUEST = 0xb,
  HC_OBJ_FILE = 0xc, /* not an MPICH handle: the Fortran value of a file */
  HC_OBJ_SESSION = 0xe,
  HC_OBJ_STREAM = 0xf /* MPIX_Stream */
};

#define HC_HANDLE_KIND_INVALID 0u
#define HC_HANDLE_KIND_BUILTIN 1u
#define HC_HANDLE_KIND_DIRECT 2u
#define HC_HANDLE_INDEX_MASK 0x03ffffffu
#define HC_HANDLE_BUILTIN_MAX 16

typedef struct hc_handle_table {
  pthread_mutex_t lock;
  unsigned object; /* an hc_handle_object */
  int reserved;    /* direct indices [0, reserved) are never handed out */
  void **slots;    /* object pointer per index, NULL when free */
  int capacity;
  int live;        /* handles handed out and not yet freed */
  int *free_stack; /* recycled indices, most recently freed on top */
  int nfree;
  int next_fresh; /* lowest index never handed out */
  void *builtin[HC_HANDLE_BUILTIN_MAX];
} hc_handle_table_t;

/* Static initialiser for a table of the given object type; reserved direct
 * indices stay unused (the datatype table keeps 0..4 for the pair types). */
#define HC_HANDLE_TABLE_INITIALIZER(obj, nreserved)                            \
  {                                                                            \
    .lock = PTHREAD_MUTEX_INITIALIZER, .object = (obj),                        \
    .reserved = (nreserved), .next_fresh = (nreserved)                         \
  }

/* The handle's kind and object type fields (inline: every lookup asks). */
#define HC_HANDLE_KIND_SHIFT 30
#define HC_HANDLE_OBJECT_SHIFT 26
static inline unsigned hc_handle_kind(int handle) {
  return ((unsigned)handle >> HC_HANDLE_KIND_SHIFT) & 0x3u;
}
static inline unsigned hc_handle_object(int handle) {
  return ((unsigned)handle >> HC_HANDLE_OBJECT_SHIFT) & 0xfu;
}
/* 1 when handle has the given kind and object type: both fields are the
 * bits above HC_HANDLE_OBJECT_SHIFT, tested in one compare. */
static inline int hc_handle_is(int handle, unsigned kind, unsigned object) {
  return ((unsigned)handle >> HC_HANDLE_OBJECT_SHIFT) ==
         ((kind << (HC_HANDLE_KIND_SHIFT - HC_HANDLE_OBJECT_SHIFT)) | object);
}
/* The null handle of an object type (kind 0), e.g. MPI_COMM_NULL. */
int hc_handle_null(unsigned object);

/* Stores obj under a fresh direct handle.  Returns 0, or -1 when memory
 * runs out (nothing changed). */
int hc_handle_alloc(hc_handle_table_t *table, void *obj, int *handle);
/* The object of a valid handle (direct or registered builtin), else NULL. */
void *hc_handle_get(hc_handle_table_t *table, int handle);
/* Releases a direct handle and returns its object; NULL (and no change) for
 * an invalid or builtin handle.  The index is reused by a later alloc. */
void *hc_handle_free(hc_handle_table_t *table, int handle);
/* Makes builtin handle (kind 1, this object type, index < 16) map to obj. */
int hc_handle_set_builtin(hc_handle_table_t *table, int handle, void *obj);
/* Number of live direct handles. */
int hc_handle_live(hc_handle_table_t *table);
/* Frees the table's memory; live objects are the caller's business. */
void hc_handle_table_fini(hc_handle_table_t *table);

#endif /* HC_MPI_HANDLE_H */
