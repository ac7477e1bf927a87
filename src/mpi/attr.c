/*
 * Communicator attributes.  Predefined keys (MPI_TAG_UB, MPI_HOST, MPI_IO,
 * MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM, MPI_LASTUSEDCODE)
 * hand out a pointer to an int the library owns, as the standard says.
 * User keyvals carry copy and delete callbacks: copies run on MPI_Comm_dup,
 * deletes on MPI_Comm_free, MPI_Comm_delete_attr and on overwrite.  A
 * keyval lives until its handle is freed and no attribute uses it, so a
 * freed keyval's callbacks still run for the attributes that remain.
 * Callbacks run without any library lock held: they may call MPI.
 */
#include <pthread.h>
#include <stdlib.h>

#include "mpi/handle.h"
#include "mpi/mpi_impl.h"

typedef struct attr_keyval {
  MPI_Comm_copy_attr_function *copy_fn;
  MPI_Comm_delete_attr_function *delete_fn;
  void *extra_state;
  int refs;   /* the handle plus each attribute using it; under attr_lock */
  int handle; /* the keyval value, kept for callbacks after a free */
} attr_keyval_t;

struct hc_mpi_attr {
  attr_keyval_t *kv;
  void *value;
  struct hc_mpi_attr *next;
};

static hc_handle_table_t keyval_table =
    HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_KEYVAL, 0);
/* Guards every communicator's attribute list and keyval reference counts. */
static pthread_mutex_t attr_lock = PTHREAD_MUTEX_INITIALIZER;

static int attr_tag_ub = HCOMM_TAG_UB;
static int attr_host = MPI_PROC_NULL; /* no distinguished host */
static int attr_io = MPI_ANY_SOURCE;  /* every rank can do I/O */
static int attr_wtime_is_global = 0;  /* clocks are per process */
static int attr_universe_size;
static int attr_appnum;
/* No user error classes exist, so the last code is the last class. */
static int attr_lastusedcode = MPI_T_ERR_NOT_SUPPORTED;

/* The value of a predefined key, or NULL when the key has none here. */
static int *attr_predefined(int keyval) {
  switch (keyval) {
  case MPI_TAG_UB:
    return &attr_tag_ub;
  case MPI_HOST:
    return &attr_host;
  case MPI_IO:
    return &attr_io;
  case MPI_WTIME_IS_GLOBAL:
    return &attr_wtime_is_global;
  case MPI_UNIVERSE_SIZE:
    attr_universe_size = hcomm_universe_size();
    return attr_universe_size > 0 ? &attr_universe_size : NULL;
  case MPI_LASTUSEDCODE:
    return &attr_lastusedcode;
  case MPI_APPNUM:
    attr_appnum = hcomm_appnum();
    return attr_appnum >= 0 ? &attr_appnum : NULL;
  default:
    return NULL;
  }
}

static int attr_is_predefined_key(int keyval) {
  return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO ||
         keyval == MPI_WTIME_IS_GLOBAL || keyval == MPI_UNIVERSE_SIZE ||
         keyval == MPI_APPNUM || keyval == MPI_LASTUSEDCODE;
}

/* MPI_COMM_DUP_FN (and the TYPE_/WIN_ variants): the copy is the value
 * itself, always kept. */
int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state,
                void *attribute_val_in, void *attribute_val_out, int *flag) {
  (void)oldcomm;
  (void)keyval;
  (void)extra_state;
  *(void **)attribute_val_out = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

static void attr_keyval_release_locked(attr_keyval_t *kv) {
  if (--kv->refs == 0)
    free(kv);
}

/* The keyval object of a user keyval handle, else raises MPI_ERR_KEYVAL. */
static int attr_keyval_get(const char *fn, hc_mpi_comm_t *c, int keyval,
                           attr_keyval_t **out) {
  *out = hc_handle_get(&keyval_table, keyval);
  if (*out)
    return MPI_SUCCESS;
  if (attr_is_predefined_key(keyval))
    return hc_mpi_raise(c, fn, MPI_ERR_KEYVAL,
                        "keyval 0x%x is predefined and read-only",
                        (unsigned)keyval);
  return hc_mpi_raise(c, fn, MPI_ERR_KEYVAL, "invalid keyval 0x%x",
                      (unsigned)keyval);
}

/* Unlinks and returns comm's attribute of kv (NULL when unset). */
static hc_mpi_attr_t *attr_unlink_locked(hc_mpi_comm_t *c, attr_keyval_t *kv) {
  for (hc_mpi_attr_t **p = &c->attrs; *p; p = &(*p)->next) {
    if ((*p)->kv != kv)
      continue;
    hc_mpi_attr_t *a = *p;
    *p = a->next;
    return a;
  }
  return NULL;
}

/* Runs a detached attribute's delete callback and frees it.  On a callback
 * error the attribute is re-attached (the standard: the call fails and the
 * attribute stays). */
static int attr_run_delete(const char *fn, hc_mpi_comm_t *c, hc_mpi_attr_t *a) {
  int rc = MPI_SUCCESS;
  if (a->kv->delete_fn)
    rc = a->kv->delete_fn(c->handle, a->kv->handle, a->value,
                          a->kv->extra_state);
  pthread_mutex_lock(&attr_lock);
  if (rc != MPI_SUCCESS) {
    a->next = c->attrs;
    c->attrs = a;
  } else {
    attr_keyval_release_locked(a->kv);
    free(a);
  }
  pthread_mutex_unlock(&attr_lock);
  if (rc != MPI_SUCCESS)
    return hc_mpi_raise(c, fn, rc, "delete callback of keyval 0x%x returned %d",
                        (unsigned)a->kv->handle, rc);
  return MPI_SUCCESS;
}

/* Attaches value under kv (a new attribute, taking a keyval reference). */
static int attr_attach(const char *fn, hc_mpi_comm_t *c, attr_keyval_t *kv,
                       void *value) {
  hc_mpi_attr_t *a = malloc(sizeof *a);
  if (!a)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  a->kv = kv;
  a->value = value;
  pthread_mutex_lock(&attr_lock);
  kv->refs++;
  /* Appended, so copies and deletes run in the order keys were set. */
  hc_mpi_attr_t **p = &c->attrs;
  while (*p)
    p = &(*p)->next;
  a->next = NULL;
  *p = a;
  pthread_mutex_unlock(&attr_lock);
  return MPI_SUCCESS;
}

int hc_mpi_attr_delete_all(const char *fn, hc_mpi_comm_t *c) {
  for (;;) {
    pthread_mutex_lock(&attr_lock);
    hc_mpi_attr_t *a = c->attrs;
    if (a)
      c->attrs = a->next;
    pthread_mutex_unlock(&attr_lock);
    if (!a)
      return MPI_SUCCESS;
    int rc = attr_run_delete(fn, c, a);
    if (rc != MPI_SUCCESS)
      return rc;
  }
}

/* A snapshot of comm's attributes, each holding a keyval reference, so the
 * copy callbacks run unlocked. */
static hc_mpi_attr_t *attr_snapshot(hc_mpi_comm_t *c, int *n) {
  pthread_mutex_lock(&attr_lock);
  *n = 0;
  for (hc_mpi_attr_t *a = c->attrs; a; a = a->next)
    (*n)++;
  hc_mpi_attr_t *snap = malloc((size_t)*n * sizeof *snap + 1);
  int i = 0;
  for (hc_mpi_attr_t *a = c->attrs; snap && a; a = a->next) {
    snap[i] = *a;
    snap[i++].kv->refs++;
  }
  pthread_mutex_unlock(&attr_lock);
  return snap;
}

int hc_mpi_attr_copy_all(const char *fn, hc_mpi_comm_t *from,
                         hc_mpi_comm_t *to) {
  int n, rc = MPI_SUCCESS;
  hc_mpi_attr_t *snap = attr_snapshot(from, &n);
  if (!snap)
    return hc_mpi_raise(from, fn, MPI_ERR_NO_MEM, "out of memory");
  for (int i = 0; i < n; i++) {
    attr_keyval_t *kv = snap[i].kv;
    void *out = NULL;
    int flag = 0;
    if (rc == MPI_SUCCESS && kv->copy_fn) {
      rc = kv->copy_fn(from->handle, kv->handle, kv->extra_state, snap[i].value,
                       &out, &flag);
      if (rc != MPI_SUCCESS)
        rc = hc_mpi_raise(from, fn, rc,
                          "copy callback of keyval 0x%x returned %d",
                          (unsigned)kv->handle, rc);
    }
    if (rc == MPI_SUCCESS && flag)
      rc = attr_attach(fn, to, kv, out);
    pthread_mutex_lock(&attr_lock);
    attr_keyval_release_locked(kv);
    pthread_mutex_unlock(&attr_lock);
  }
  free(snap);
  return rc;
}

/* ---- keyvals ------------------------------------------------------------- */

static int attr_create_keyval(const char *fn,
                              MPI_Comm_copy_attr_function *copy_fn,
                              MPI_Comm_delete_attr_function *delete_fn,
                              int *keyval, void *extra_state) {
  int rc = hc_mpi_check_ptr(fn, NULL, keyval, "keyval");
  if (rc != MPI_SUCCESS)
    return rc;
  attr_keyval_t *kv = calloc(1, sizeof *kv);
  if (!kv || hc_handle_alloc(&keyval_table, kv, &kv->handle) != 0) {
    free(kv);
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  kv->copy_fn = copy_fn;
  kv->delete_fn = delete_fn;
  kv->extra_state = extra_state;
  kv->refs = 1;
  *keyval = kv->handle;
  return MPI_SUCCESS;
}

static int attr_free_keyval(const char *fn, int *keyval) {
  attr_keyval_t *kv = NULL;
  int rc = hc_mpi_check_ptr(fn, NULL, keyval, "keyval");
  if (rc == MPI_SUCCESS)
    rc = attr_keyval_get(fn, NULL, *keyval, &kv);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_handle_free(&keyval_table, *keyval);
  pthread_mutex_lock(&attr_lock);
  attr_keyval_release_locked(kv);
  pthread_mutex_unlock(&attr_lock);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                            int *comm_keyval, void *extra_state) {
  return attr_create_keyval("MPI_Comm_create_keyval", comm_copy_attr_fn,
                            comm_delete_attr_fn, comm_keyval, extra_state);
}
HC_WEAK_ALIAS(MPI_Comm_create_keyval, PMPI_Comm_create_keyval);

int PMPI_Keyval_create(MPI_Copy_function *copy_fn,
                       MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state) {
  return attr_create_keyval("MPI_Keyval_create", copy_fn, delete_fn, keyval,
                            extra_state);
}
HC_WEAK_ALIAS(MPI_Keyval_create, PMPI_Keyval_create);

int PMPI_Comm_free_keyval(int *comm_keyval) {
  return attr_free_keyval("MPI_Comm_free_keyval", comm_keyval);
}
HC_WEAK_ALIAS(MPI_Comm_free_keyval, PMPI_Comm_free_keyval);

int PMPI_Keyval_free(int *keyval) {
  return attr_free_keyval("MPI_Keyval_free", keyval);
}
HC_WEAK_ALIAS(MPI_Keyval_free, PMPI_Keyval_free);

/* ---- set, get, delete ---------------------------------------------------- */

/* The communicator and keyval of a set or delete. */
static int attr_enter(const char *fn, MPI_Comm comm, int keyval,
                      hc_mpi_comm_t **c, attr_keyval_t **kv) {
  int rc = hc_mpi_comm_enter(fn, comm, c);
  if (rc == MPI_SUCCESS)
    rc = attr_keyval_get(fn, *c, keyval, kv);
  return rc;
}

/* Takes kv's attribute (if any) off c and runs its delete callback. */
static int attr_remove(const char *fn, hc_mpi_comm_t *c, attr_keyval_t *kv) {
  pthread_mutex_lock(&attr_lock);
  hc_mpi_attr_t *a = attr_unlink_locked(c, kv);
  pthread_mutex_unlock(&attr_lock);
  return a ? attr_run_delete(fn, c, a) : MPI_SUCCESS;
}

static int attr_set(const char *fn, MPI_Comm comm, int keyval, void *value) {
  hc_mpi_comm_t *c = NULL;
  attr_keyval_t *kv = NULL;
  int rc = attr_enter(fn, comm, keyval, &c, &kv);
  if (rc == MPI_SUCCESS)
    rc = attr_remove(fn, c, kv);
  if (rc != MPI_SUCCESS)
    return rc;
  return attr_attach(fn, c, kv, value);
}

static int attr_get(const char *fn, MPI_Comm comm, int keyval, void *value,
                    int *flag) {
  hc_mpi_comm_t *c = NULL;
  attr_keyval_t *kv = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, value, "attribute_val");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, flag, "flag");
  if (rc != MPI_SUCCESS)
    return rc;
  if (attr_is_predefined_key(keyval)) {
    int *v = attr_predefined(keyval);
    *flag = v != NULL;
    if (v)
      *(int **)value = v;
    return MPI_SUCCESS;
  }
  rc = attr_keyval_get(fn, c, keyval, &kv);
  if (rc != MPI_SUCCESS)
    return rc;
  *flag = 0;
  pthread_mutex_lock(&attr_lock);
  for (hc_mpi_attr_t *a = c->attrs; a; a = a->next) {
    if (a->kv == kv) {
      *(void **)value = a->value;
      *flag = 1;
      break;
    }
  }
  pthread_mutex_unlock(&attr_lock);
  return MPI_SUCCESS;
}

/* Deleting a key that has no attribute on comm is not an error. */
static int attr_delete(const char *fn, MPI_Comm comm, int keyval) {
  hc_mpi_comm_t *c = NULL;
  attr_keyval_t *kv = NULL;
  int rc = attr_enter(fn, comm, keyval, &c, &kv);
  return rc == MPI_SUCCESS ? attr_remove(fn, c, kv) : rc;
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val) {
  return attr_set("MPI_Comm_set_attr", comm, comm_keyval, attribute_val);
}
HC_WEAK_ALIAS(MPI_Comm_set_attr, PMPI_Comm_set_attr);

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val) {
  return attr_set("MPI_Attr_put", comm, keyval, attribute_val);
}
HC_WEAK_ALIAS(MPI_Attr_put, PMPI_Attr_put);

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val,
                       int *flag) {
  return attr_get("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag);
}
HC_WEAK_ALIAS(MPI_Comm_get_attr, PMPI_Comm_get_attr);

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag) {
  return attr_get("MPI_Attr_get", comm, keyval, attribute_val, flag);
}
HC_WEAK_ALIAS(MPI_Attr_get, PMPI_Attr_get);

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  return attr_delete("MPI_Comm_delete_attr", comm, comm_keyval);
}
HC_WEAK_ALIAS(MPI_Comm_delete_attr, PMPI_Comm_delete_attr);

int PMPI_Attr_delete(MPI_Comm comm, int keyval) {
  return attr_delete("MPI_Attr_delete", comm, keyval);
}
HC_WEAK_ALIAS(MPI_Attr_delete, PMPI_Attr_delete);
