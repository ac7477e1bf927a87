/*
 * Attributes of communicators, datatypes and windows.  Predefined communicator keys
 * (MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE,
 * MPI_APPNUM, MPI_LASTUSEDCODE) hand out a pointer to an int the library
 * owns, as the standard says.  User keyvals carry copy and delete
 * callbacks: copies run on MPI_Comm_dup / MPI_Type_dup in the order the
 * attributes were set; deletes on free (communicator or datatype), on
 * MPI_*_delete_attr, on overwrite and at MPI_Finalize (MPI_COMM_SELF's,
 * then MPI_COMM_WORLD's), newest attribute first, as MPI 4.0 section
 * 11.2.4 asks for MPI_COMM_SELF.
 *
 * A keyval lives until its handle is freed and no attribute uses it.  The
 * handle stays valid meanwhile, as in MPICH: a delete callback may free
 * the keyval it is called for (MPI_*_free_keyval then does nothing more),
 * and the callbacks of a freed keyval still run for the attributes that
 * remain.  Callbacks run without any library lock held: they may call MPI.
 */
#include <pthread.h>
#include <stdlib.h>

#include "mpi/binding_attr.h"
#include "mpi/handle.h"
#include "mpi/mpi_impl.h"
#include "mpi/win.h"

/* What kind of object a keyval's attributes hang on. */
enum attr_kind { ATTR_COMM = 0, ATTR_TYPE = 1, ATTR_WIN = 2 };

typedef struct attr_keyval {
  int kind; /* an attr_kind: a keyval is used on that kind only */
  union {
    MPI_Comm_copy_attr_function *comm;
    MPI_Type_copy_attr_function *type;
    MPI_Win_copy_attr_function *win; /* windows are never copied */
  } copy_fn;
  union {
    MPI_Comm_delete_attr_function *comm;
    MPI_Type_delete_attr_function *type;
    MPI_Win_delete_attr_function *win;
  } delete_fn;
  void *extra_state;
  int refs;   /* the handle plus each attribute using it; under attr_lock */
  int freed;  /* the user freed the handle; it goes with the last ref */
  int handle; /* the keyval value */
} attr_keyval_t;

/* The language that set a value (binding_attr.h). */
enum attr_lang { ATTR_FROM_C, ATTR_FROM_FORTRAN_INT, ATTR_FROM_FORTRAN_AINT };

struct hc_mpi_attr {
  attr_keyval_t *kv;
  void *value; /* as the callbacks see it: Fortran's integer, C's pointer */
  int lang;    /* an attr_lang */
  /* What a C get of a Fortran value points at. */
  union {
    MPI_Fint fint;
    MPI_Aint aint;
  } fortran;
  struct hc_mpi_attr *next;
};

/* An object with attributes: its list, its handle for the callbacks, and
 * the communicator whose handler reports errors (NULL: MPI_COMM_WORLD's). */
typedef struct attr_owner {
  int kind;
  hc_mpi_attr_t **list;
  int handle;
  hc_mpi_comm_t *errcomm;
} attr_owner_t;

static hc_handle_table_t keyval_table =
    HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_KEYVAL, 0);
/* Guards every object's attribute list and keyval reference counts. */
static pthread_mutex_t attr_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const attr_kind_name[] = {"communicator", "datatype",
                                             "window"};

static attr_owner_t attr_comm_owner(hc_mpi_comm_t *c) {
  return (attr_owner_t){ATTR_COMM, &c->attrs, c->handle, c};
}

static attr_owner_t attr_type_owner(hc_mpi_type_t *t) {
  return (attr_owner_t){ATTR_TYPE, &t->attrs, t->handle, NULL};
}

static attr_owner_t attr_win_owner(hc_mpi_win_t *w) {
  return (attr_owner_t){ATTR_WIN, &w->attrs, w->handle, w->errcomm};
}

/* ---- predefined keys ------------------------------------------------------
 */

static int attr_tag_ub = HCOMM_TAG_UB;
static int attr_host = MPI_PROC_NULL; /* no distinguished host */
static int attr_io = MPI_ANY_SOURCE;  /* every rank can do I/O */
static int attr_wtime_is_global = 0;  /* clocks are per process */
static int attr_universe_size;
static int attr_appnum;
static int attr_lastusedcode;

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
    attr_lastusedcode = hc_mpi_err_last_used();
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

/* ---- keyval objects -------------------------------------------------------
 */

static void attr_keyval_release_locked(attr_keyval_t *kv) {
  if (--kv->refs > 0)
    return;
  hc_handle_free(&keyval_table, kv->handle);
  free(kv);
}

static void attr_keyval_release(attr_keyval_t *kv) {
  pthread_mutex_lock(&attr_lock);
  attr_keyval_release_locked(kv);
  pthread_mutex_unlock(&attr_lock);
}

/* The keyval object of a user keyval handle of this kind, else raises
 * MPI_ERR_KEYVAL. */
static int attr_keyval_get(const char *fn, const attr_owner_t *o, int keyval,
                           attr_keyval_t **out) {
  attr_keyval_t *kv = hc_handle_get(&keyval_table, keyval);
  if (kv && kv->kind == o->kind) {
    *out = kv;
    return MPI_SUCCESS;
  }
  if (kv)
    return hc_mpi_raise(o->errcomm, fn, MPI_ERR_KEYVAL,
                        "keyval 0x%x is a %s keyval, not a %s one",
                        (unsigned)keyval, attr_kind_name[kv->kind],
                        attr_kind_name[o->kind]);
  if (attr_is_predefined_key(keyval) || hc_mpi_win_is_predefined_key(keyval))
    return hc_mpi_raise(o->errcomm, fn, MPI_ERR_KEYVAL,
                        "keyval 0x%x is predefined and read-only",
                        (unsigned)keyval);
  return hc_mpi_raise(o->errcomm, fn, MPI_ERR_KEYVAL, "invalid keyval 0x%x",
                      (unsigned)keyval);
}

static int attr_call_copy(const attr_owner_t *o, attr_keyval_t *kv, void *in,
                          void *out, int *flag) {
  if (kv->kind == ATTR_TYPE)
    return kv->copy_fn.type(o->handle, kv->handle, kv->extra_state, in, out,
                            flag);
  return kv->copy_fn.comm(o->handle, kv->handle, kv->extra_state, in, out,
                          flag);
}

static int attr_call_delete(const attr_owner_t *o, attr_keyval_t *kv,
                            void *value) {
  if (kv->kind == ATTR_TYPE)
    return kv->delete_fn.type(o->handle, kv->handle, value, kv->extra_state);
  if (kv->kind == ATTR_WIN)
    return kv->delete_fn.win(o->handle, kv->handle, value, kv->extra_state);
  return kv->delete_fn.comm(o->handle, kv->handle, value, kv->extra_state);
}

/* ---- attribute lists ------------------------------------------------------
 */

/* Unlinks and returns the attribute of kv (NULL when unset). */
static hc_mpi_attr_t *attr_unlink_locked(const attr_owner_t *o,
                                         attr_keyval_t *kv) {
  for (hc_mpi_attr_t **p = o->list; *p; p = &(*p)->next) {
    if ((*p)->kv != kv)
      continue;
    hc_mpi_attr_t *a = *p;
    *p = a->next;
    return a;
  }
  return NULL;
}

/* Unlinks and returns the newest attribute (NULL when none). */
static hc_mpi_attr_t *attr_unlink_newest_locked(const attr_owner_t *o) {
  hc_mpi_attr_t **p = o->list;
  if (*p == NULL)
    return NULL;
  while ((*p)->next)
    p = &(*p)->next;
  hc_mpi_attr_t *a = *p;
  *p = NULL;
  return a;
}

/* Appended, so copies run in the order keys were set and deletes at the
 * end of an object's life in the reverse order. */
static void attr_append_locked(const attr_owner_t *o, hc_mpi_attr_t *a) {
  hc_mpi_attr_t **p = o->list;
  while (*p)
    p = &(*p)->next;
  a->next = NULL;
  *p = a;
}

/* Runs a detached attribute's delete callback and frees it.  On a callback
 * error the attribute is re-attached (the standard: the call fails and the
 * attribute stays). */
static int attr_run_delete(const char *fn, const attr_owner_t *o,
                           hc_mpi_attr_t *a) {
  attr_keyval_t *kv = a->kv;
  int keyval = kv->handle;
  int rc = MPI_SUCCESS;
  if (kv->delete_fn.comm)
    rc = attr_call_delete(o, kv, a->value);
  pthread_mutex_lock(&attr_lock);
  if (rc != MPI_SUCCESS) {
    attr_append_locked(o, a);
  } else {
    attr_keyval_release_locked(kv);
    free(a);
  }
  pthread_mutex_unlock(&attr_lock);
  if (rc != MPI_SUCCESS)
    return hc_mpi_raise(o->errcomm, fn, rc,
                        "delete callback of keyval 0x%x returned %d",
                        (unsigned)keyval, rc);
  return MPI_SUCCESS;
}

/* Attaches value under kv (a new attribute, taking a keyval reference). */
static int attr_attach(const char *fn, const attr_owner_t *o, attr_keyval_t *kv,
                       void *value, int lang) {
  hc_mpi_attr_t *a = malloc(sizeof *a);
  if (!a)
    return hc_mpi_raise(o->errcomm, fn, MPI_ERR_NO_MEM, "out of memory");
  a->kv = kv;
  a->value = value;
  a->lang = lang;
  if (lang == ATTR_FROM_FORTRAN_INT)
    a->fortran.fint = (MPI_Fint)(MPI_Aint)value;
  else
    a->fortran.aint = (MPI_Aint)value;
  pthread_mutex_lock(&attr_lock);
  kv->refs++;
  attr_append_locked(o, a);
  pthread_mutex_unlock(&attr_lock);
  return MPI_SUCCESS;
}

static int attr_delete_all(const char *fn, const attr_owner_t *o) {
  for (;;) {
    pthread_mutex_lock(&attr_lock);
    hc_mpi_attr_t *a = attr_unlink_newest_locked(o);
    pthread_mutex_unlock(&attr_lock);
    if (!a)
      return MPI_SUCCESS;
    int rc = attr_run_delete(fn, o, a);
    if (rc != MPI_SUCCESS)
      return rc;
  }
}

/* A snapshot of an object's attributes, each holding a keyval reference,
 * so the copy callbacks run unlocked. */
static hc_mpi_attr_t *attr_snapshot(const attr_owner_t *o, int *n) {
  pthread_mutex_lock(&attr_lock);
  *n = 0;
  for (hc_mpi_attr_t *a = *o->list; a; a = a->next)
    (*n)++;
  hc_mpi_attr_t *snap = malloc((size_t)*n * sizeof *snap + 1);
  int i = 0;
  for (hc_mpi_attr_t *a = *o->list; snap && a; a = a->next) {
    snap[i] = *a;
    snap[i++].kv->refs++;
  }
  pthread_mutex_unlock(&attr_lock);
  return snap;
}

static int attr_copy_all(const char *fn, const attr_owner_t *from,
                         const attr_owner_t *to) {
  int n, rc = MPI_SUCCESS;
  hc_mpi_attr_t *snap = attr_snapshot(from, &n);
  if (!snap)
    return hc_mpi_raise(from->errcomm, fn, MPI_ERR_NO_MEM, "out of memory");
  for (int i = 0; i < n; i++) {
    attr_keyval_t *kv = snap[i].kv;
    void *out = NULL;
    int flag = 0;
    if (rc == MPI_SUCCESS && kv->copy_fn.comm) {
      rc = attr_call_copy(from, kv, snap[i].value, &out, &flag);
      if (rc != MPI_SUCCESS)
        rc = hc_mpi_raise(from->errcomm, fn, rc,
                          "copy callback of keyval 0x%x returned %d",
                          (unsigned)kv->handle, rc);
    }
    if (rc == MPI_SUCCESS && flag)
      rc = attr_attach(fn, to, kv, out, snap[i].lang);
    attr_keyval_release(kv);
  }
  free(snap);
  return rc;
}

int hc_mpi_attr_copy_all(const char *fn, hc_mpi_comm_t *from,
                         hc_mpi_comm_t *to) {
  attr_owner_t f = attr_comm_owner(from), t = attr_comm_owner(to);
  return attr_copy_all(fn, &f, &t);
}

int hc_mpi_attr_delete_all(const char *fn, hc_mpi_comm_t *comm) {
  attr_owner_t o = attr_comm_owner(comm);
  return attr_delete_all(fn, &o);
}

int hc_mpi_type_attr_copy_all(const char *fn, hc_mpi_type_t *from,
                              hc_mpi_type_t *to) {
  attr_owner_t f = attr_type_owner(from), t = attr_type_owner(to);
  return attr_copy_all(fn, &f, &t);
}

int hc_mpi_type_attr_delete_all(const char *fn, hc_mpi_type_t *type) {
  attr_owner_t o = attr_type_owner(type);
  return attr_delete_all(fn, &o);
}

/* ---- keyvals --------------------------------------------------------------
 */

static int attr_create_keyval(const char *fn, int kind, void (*copy_fn)(void),
                              void (*delete_fn)(void), int *keyval,
                              void *extra_state) {
  int rc = hc_mpi_check_ptr(fn, NULL, keyval, "keyval");
  if (rc != MPI_SUCCESS)
    return rc;
  attr_keyval_t *kv = calloc(1, sizeof *kv);
  if (!kv || hc_handle_alloc(&keyval_table, kv, &kv->handle) != 0) {
    free(kv);
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  kv->kind = kind;
  if (kind == ATTR_TYPE) {
    kv->copy_fn.type = (MPI_Type_copy_attr_function *)copy_fn;
    kv->delete_fn.type = (MPI_Type_delete_attr_function *)delete_fn;
  } else if (kind == ATTR_WIN) {
    kv->copy_fn.win = (MPI_Win_copy_attr_function *)copy_fn;
    kv->delete_fn.win = (MPI_Win_delete_attr_function *)delete_fn;
  } else {
    kv->copy_fn.comm = (MPI_Comm_copy_attr_function *)copy_fn;
    kv->delete_fn.comm = (MPI_Comm_delete_attr_function *)delete_fn;
  }
  kv->extra_state = extra_state;
  kv->refs = 1;
  *keyval = kv->handle;
  return MPI_SUCCESS;
}

/* Freeing a keyval a delete callback already freed (its handle lives on
 * while attributes use it) is a no-op, as in MPICH. */
static int attr_free_keyval(const char *fn, int kind, int *keyval) {
  attr_keyval_t *kv = NULL;
  attr_owner_t o = {kind, NULL, 0, NULL};
  int rc = hc_mpi_check_ptr(fn, NULL, keyval, "keyval");
  if (rc == MPI_SUCCESS)
    rc = attr_keyval_get(fn, &o, *keyval, &kv);
  if (rc != MPI_SUCCESS)
    return rc;
  pthread_mutex_lock(&attr_lock);
  int drop = !kv->freed;
  kv->freed = 1;
  if (drop)
    attr_keyval_release_locked(kv);
  pthread_mutex_unlock(&attr_lock);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                            int *comm_keyval, void *extra_state) {
  return attr_create_keyval(
      "MPI_Comm_create_keyval", ATTR_COMM, (void (*)(void))comm_copy_attr_fn,
      (void (*)(void))comm_delete_attr_fn, comm_keyval, extra_state);
}
HC_WEAK_ALIAS(MPI_Comm_create_keyval, PMPI_Comm_create_keyval);

int PMPI_Keyval_create(MPI_Copy_function *copy_fn,
                       MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state) {
  return attr_create_keyval("MPI_Keyval_create", ATTR_COMM,
                            (void (*)(void))copy_fn, (void (*)(void))delete_fn,
                            keyval, extra_state);
}
HC_WEAK_ALIAS(MPI_Keyval_create, PMPI_Keyval_create);

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn,
                            int *type_keyval, void *extra_state) {
  return attr_create_keyval(
      "MPI_Type_create_keyval", ATTR_TYPE, (void (*)(void))type_copy_attr_fn,
      (void (*)(void))type_delete_attr_fn, type_keyval, extra_state);
}
HC_WEAK_ALIAS(MPI_Type_create_keyval, PMPI_Type_create_keyval);

int PMPI_Comm_free_keyval(int *comm_keyval) {
  return attr_free_keyval("MPI_Comm_free_keyval", ATTR_COMM, comm_keyval);
}
HC_WEAK_ALIAS(MPI_Comm_free_keyval, PMPI_Comm_free_keyval);

int PMPI_Keyval_free(int *keyval) {
  return attr_free_keyval("MPI_Keyval_free", ATTR_COMM, keyval);
}
HC_WEAK_ALIAS(MPI_Keyval_free, PMPI_Keyval_free);

int PMPI_Type_free_keyval(int *type_keyval) {
  return attr_free_keyval("MPI_Type_free_keyval", ATTR_TYPE, type_keyval);
}
HC_WEAK_ALIAS(MPI_Type_free_keyval, PMPI_Type_free_keyval);

/* ---- set, get, delete -----------------------------------------------------
 */

/* Takes kv's attribute (if any) off the object and runs its delete
 * callback. */
static int attr_remove(const char *fn, const attr_owner_t *o,
                       attr_keyval_t *kv) {
  pthread_mutex_lock(&attr_lock);
  hc_mpi_attr_t *a = attr_unlink_locked(o, kv);
  pthread_mutex_unlock(&attr_lock);
  return a ? attr_run_delete(fn, o, a) : MPI_SUCCESS;
}

static int attr_set(const char *fn, const attr_owner_t *o, int keyval,
                    void *value, int lang) {
  attr_keyval_t *kv = NULL;
  int rc = attr_keyval_get(fn, o, keyval, &kv);
  if (rc == MPI_SUCCESS && kv->freed)
    rc = hc_mpi_raise(o->errcomm, fn, MPI_ERR_KEYVAL, "keyval 0x%x was freed",
                      (unsigned)keyval);
  if (rc == MPI_SUCCESS)
    rc = attr_remove(fn, o, kv);
  if (rc != MPI_SUCCESS)
    return rc;
  return attr_attach(fn, o, kv, value, lang);
}

/* lang: the caller's (ATTR_FROM_C, or Fortran's reading raw values). */
static int attr_get(const char *fn, const attr_owner_t *o, int keyval,
                    void *value, int *flag, int lang) {
  attr_keyval_t *kv = NULL;
  int rc = hc_mpi_check_ptr(fn, o->errcomm, value, "attribute_val");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, o->errcomm, flag, "flag");
  if (rc != MPI_SUCCESS)
    return rc;
  if (o->kind == ATTR_COMM && attr_is_predefined_key(keyval)) {
    int *v = attr_predefined(keyval);
    *flag = v != NULL;
    if (v)
      *(int **)value = v;
    return MPI_SUCCESS;
  }
  if (o->kind == ATTR_WIN &&
      hc_mpi_win_predefined_attr(o->handle, keyval, (void **)value)) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  rc = attr_keyval_get(fn, o, keyval, &kv);
  if (rc != MPI_SUCCESS)
    return rc;
  *flag = 0;
  pthread_mutex_lock(&attr_lock);
  for (hc_mpi_attr_t *a = *o->list; a; a = a->next) {
    if (a->kv == kv) {
      if (lang != ATTR_FROM_C || a->lang == ATTR_FROM_C)
        *(void **)value = a->value;
      else if (a->lang == ATTR_FROM_FORTRAN_INT)
        *(void **)value = &a->fortran.fint;
      else
        *(void **)value = &a->fortran.aint;
      *flag = 1;
      break;
    }
  }
  pthread_mutex_unlock(&attr_lock);
  return MPI_SUCCESS;
}

/* Deleting a key that has no attribute on the object is not an error. */
static int attr_delete(const char *fn, const attr_owner_t *o, int keyval) {
  attr_keyval_t *kv = NULL;
  int rc = attr_keyval_get(fn, o, keyval, &kv);
  return rc == MPI_SUCCESS ? attr_remove(fn, o, kv) : rc;
}

/* The owner of a communicator's attributes; raises on a bad handle. */
static int attr_comm_enter(const char *fn, MPI_Comm comm, attr_owner_t *o) {
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    *o = attr_comm_owner(c);
  return rc;
}

static int attr_type_enter(const char *fn, MPI_Datatype type, attr_owner_t *o) {
  int rc = hc_mpi_check_ready(fn);
  if (rc != MPI_SUCCESS)
    return rc;
  /* Attributes change no property of the type: the object is writable. */
  hc_mpi_type_t *t = (hc_mpi_type_t *)hc_mpi_type_get(type);
  if (!t)
    return hc_mpi_raise(NULL, fn, MPI_ERR_TYPE, "invalid datatype 0x%x",
                        (unsigned)type);
  *o = attr_type_owner(t);
  return MPI_SUCCESS;
}

static int attr_comm_set(const char *fn, MPI_Comm comm, int keyval,
                         void *value) {
  attr_owner_t o;
  int rc = attr_comm_enter(fn, comm, &o);
  return rc == MPI_SUCCESS ? attr_set(fn, &o, keyval, value, ATTR_FROM_C) : rc;
}

static int attr_comm_get(const char *fn, MPI_Comm comm, int keyval, void *value,
                         int *flag) {
  attr_owner_t o;
  int rc = attr_comm_enter(fn, comm, &o);
  return rc == MPI_SUCCESS ? attr_get(fn, &o, keyval, value, flag, ATTR_FROM_C)
                           : rc;
}

static int attr_comm_delete(const char *fn, MPI_Comm comm, int keyval) {
  attr_owner_t o;
  int rc = attr_comm_enter(fn, comm, &o);
  return rc == MPI_SUCCESS ? attr_delete(fn, &o, keyval) : rc;
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val) {
  return attr_comm_set("MPI_Comm_set_attr", comm, comm_keyval, attribute_val);
}
HC_WEAK_ALIAS(MPI_Comm_set_attr, PMPI_Comm_set_attr);

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val) {
  return attr_comm_set("MPI_Attr_put", comm, keyval, attribute_val);
}
HC_WEAK_ALIAS(MPI_Attr_put, PMPI_Attr_put);

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val,
                       int *flag) {
  return attr_comm_get("MPI_Comm_get_attr", comm, comm_keyval, attribute_val,
                       flag);
}
HC_WEAK_ALIAS(MPI_Comm_get_attr, PMPI_Comm_get_attr);

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag) {
  return attr_comm_get("MPI_Attr_get", comm, keyval, attribute_val, flag);
}
HC_WEAK_ALIAS(MPI_Attr_get, PMPI_Attr_get);

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  return attr_comm_delete("MPI_Comm_delete_attr", comm, comm_keyval);
}
HC_WEAK_ALIAS(MPI_Comm_delete_attr, PMPI_Comm_delete_attr);

int PMPI_Attr_delete(MPI_Comm comm, int keyval) {
  return attr_comm_delete("MPI_Attr_delete", comm, keyval);
}
HC_WEAK_ALIAS(MPI_Attr_delete, PMPI_Attr_delete);

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval,
                       void *attribute_val) {
  static const char fn[] = "MPI_Type_set_attr";
  attr_owner_t o;
  int rc = attr_type_enter(fn, datatype, &o);
  return rc == MPI_SUCCESS
             ? attr_set(fn, &o, type_keyval, attribute_val, ATTR_FROM_C)
             : rc;
}
HC_WEAK_ALIAS(MPI_Type_set_attr, PMPI_Type_set_attr);

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval,
                       void *attribute_val, int *flag) {
  static const char fn[] = "MPI_Type_get_attr";
  attr_owner_t o;
  int rc = attr_type_enter(fn, datatype, &o);
  return rc == MPI_SUCCESS
             ? attr_get(fn, &o, type_keyval, attribute_val, flag, ATTR_FROM_C)
             : rc;
}
HC_WEAK_ALIAS(MPI_Type_get_attr, PMPI_Type_get_attr);

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  static const char fn[] = "MPI_Type_delete_attr";
  attr_owner_t o;
  int rc = attr_type_enter(fn, datatype, &o);
  return rc == MPI_SUCCESS ? attr_delete(fn, &o, type_keyval) : rc;
}
HC_WEAK_ALIAS(MPI_Type_delete_attr, PMPI_Type_delete_attr);

/* ---- windows --------------------------------------------------------------
 */

int hc_mpi_win_attr_delete_all(const char *fn, hc_mpi_win_t *win) {
  attr_owner_t o = attr_win_owner(win);
  return attr_delete_all(fn, &o);
}

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn,
                           int *win_keyval, void *extra_state) {
  return attr_create_keyval(
      "MPI_Win_create_keyval", ATTR_WIN, (void (*)(void))win_copy_attr_fn,
      (void (*)(void))win_delete_attr_fn, win_keyval, extra_state);
}
HC_WEAK_ALIAS(MPI_Win_create_keyval, PMPI_Win_create_keyval);

int PMPI_Win_free_keyval(int *win_keyval) {
  return attr_free_keyval("MPI_Win_free_keyval", ATTR_WIN, win_keyval);
}
HC_WEAK_ALIAS(MPI_Win_free_keyval, PMPI_Win_free_keyval);

static int attr_win_enter(const char *fn, MPI_Win win, attr_owner_t *o) {
  hc_mpi_win_t *w = NULL;
  int rc = hc_mpi_win_enter(fn, win, &w);
  if (rc == MPI_SUCCESS)
    *o = attr_win_owner(w);
  return rc;
}

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val) {
  static const char fn[] = "MPI_Win_set_attr";
  attr_owner_t o;
  int rc = attr_win_enter(fn, win, &o);
  return rc == MPI_SUCCESS
             ? attr_set(fn, &o, win_keyval, attribute_val, ATTR_FROM_C)
             : rc;
}
HC_WEAK_ALIAS(MPI_Win_set_attr, PMPI_Win_set_attr);

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val,
                      int *flag) {
  static const char fn[] = "MPI_Win_get_attr";
  attr_owner_t o;
  int rc = attr_win_enter(fn, win, &o);
  return rc == MPI_SUCCESS
             ? attr_get(fn, &o, win_keyval, attribute_val, flag, ATTR_FROM_C)
             : rc;
}
HC_WEAK_ALIAS(MPI_Win_get_attr, PMPI_Win_get_attr);

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  static const char fn[] = "MPI_Win_delete_attr";
  attr_owner_t o;
  int rc = attr_win_enter(fn, win, &o);
  return rc == MPI_SUCCESS ? attr_delete(fn, &o, win_keyval) : rc;
}
HC_WEAK_ALIAS(MPI_Win_delete_attr, PMPI_Win_delete_attr);

/* ---- the Fortran library (binding_attr.h) ------------------------------ */

/* The owner of an attribute call from Fortran; raises on a bad handle. */
static int attr_fortran_enter(const char *fn, int on, MPI_Fint handle,
                              attr_owner_t *o) {
  if (on == HC_MPI_ATTR_ON_COMM)
    return attr_comm_enter(fn, MPI_Comm_f2c(handle), o);
  if (on == HC_MPI_ATTR_ON_TYPE)
    return attr_type_enter(fn, MPI_Type_f2c(handle), o);
  return attr_win_enter(fn, MPI_Win_f2c(handle), o);
}

int hc_mpi_attr_set_fortran(const char *fn, int on, MPI_Fint handle, int keyval,
                            MPI_Aint value, int mpi1) {
  attr_owner_t o;
  int rc = attr_fortran_enter(fn, on, handle, &o);
  return rc == MPI_SUCCESS
             ? attr_set(fn, &o, keyval, (void *)value,
                        mpi1 ? ATTR_FROM_FORTRAN_INT : ATTR_FROM_FORTRAN_AINT)
             : rc;
}

int hc_mpi_attr_get_fortran(const char *fn, int on, MPI_Fint handle, int keyval,
                            MPI_Aint *value, int *flag) {
  attr_owner_t o;
  void *raw = NULL;
  int rc = attr_fortran_enter(fn, on, handle, &o);
  if (rc == MPI_SUCCESS)
    rc = attr_get(fn, &o, keyval, &raw, flag, ATTR_FROM_FORTRAN_AINT);
  if (rc == MPI_SUCCESS && *flag)
    *value = (MPI_Aint)raw;
  return rc;
}
