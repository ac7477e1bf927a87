/*
 * User error classes, codes and strings (MPI_Add_error_class / _code /
 * _string, and MPI-4.1's MPI_Remove_error_* and MPICH's older
 * MPIX_Delete_error_* that undo them).
 *
 * Predefined classes are their own codes (errors.c).  Values added here
 * lie above MPI_ERR_LASTCODE, which MPI_LASTUSEDCODE must never read
 * below: a class is ERRCLASS_DYN | class index, a code ERRCLASS_DYN |
 * code index << ERRCLASS_CODE_SHIFT, and each code records its class.
 * Indices start at 1; the lowest free one is taken, so values taken back
 * by MPI_Remove_error_* are handed out again (programs that add and
 * delete in a loop do not run out).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"

#define ERRCLASS_DYN 0x40000000
#define ERRCLASS_CODE_SHIFT 12
#define ERRCLASS_CLASS_MASK ((1 << ERRCLASS_CODE_SHIFT) - 1)
#define ERRCLASS_CODE_MAX ((ERRCLASS_DYN >> ERRCLASS_CODE_SHIFT) - 1)

/* One added class or code. */
typedef struct errclass_entry {
  int value;
  int cls;    /* its class (itself for a class) */
  int codes;  /* a class: how many of its codes are live */
  char *text; /* MPI_Add_error_string; NULL: the empty string */
} errclass_entry_t;

static pthread_mutex_t errclass_lock = PTHREAD_MUTEX_INITIALIZER;
static errclass_entry_t *errclass_table;
static int errclass_count, errclass_cap;
/* Which class and code indices are live (index 0 is never used). */
static unsigned char errclass_class_used[ERRCLASS_CLASS_MASK + 1];
static unsigned char errclass_code_used[ERRCLASS_CODE_MAX + 1];
static int errclass_last_used = MPI_ERR_LASTCODE;

int hc_mpi_err_last_used(void) {
  pthread_mutex_lock(&errclass_lock);
  int v = errclass_last_used;
  pthread_mutex_unlock(&errclass_lock);
  return v;
}

/* The entry of a live added value; caller holds the lock. */
static errclass_entry_t *errclass_find_locked(int value) {
  for (int i = 0; i < errclass_count; i++)
    if (errclass_table[i].value == value)
      return &errclass_table[i];
  return NULL;
}

static int errclass_is_class(int value) {
  return (value & ~ERRCLASS_CLASS_MASK) == ERRCLASS_DYN;
}

int hc_mpi_err_user_class(int code, int *cls) {
  pthread_mutex_lock(&errclass_lock);
  errclass_entry_t *e = errclass_find_locked(code);
  int live = e != NULL;
  if (live)
    *cls = e->cls;
  pthread_mutex_unlock(&errclass_lock);
  return live;
}

int hc_mpi_err_user_text(int code, char *buf, size_t len) {
  pthread_mutex_lock(&errclass_lock);
  errclass_entry_t *e = errclass_find_locked(code);
  if (e)
    snprintf(buf, len, "%s", e->text ? e->text : "");
  pthread_mutex_unlock(&errclass_lock);
  return e != NULL;
}

/* The lowest free index of used[1..max], marked used; 0 when none is
 * left.  Caller holds the lock. */
static int errclass_take_index(unsigned char *used, int max) {
  for (int i = 1; i <= max; i++)
    if (!used[i]) {
      used[i] = 1;
      return i;
    }
  return 0;
}

/* Records value; caller holds the lock.  -1 when memory runs out. */
static int errclass_add_locked(int value, int cls) {
  if (errclass_count == errclass_cap) {
    int cap = errclass_cap ? 2 * errclass_cap : 16;
    errclass_entry_t *t = realloc(errclass_table, (size_t)cap * sizeof *t);
    if (!t)
      return -1;
    errclass_table = t;
    errclass_cap = cap;
  }
  errclass_table[errclass_count++] = (errclass_entry_t){value, cls, 0, NULL};
  if (value > errclass_last_used)
    errclass_last_used = value;
  return 0;
}

/* Drops entry e and frees its index; caller holds the lock. */
static void errclass_remove_locked(errclass_entry_t *e) {
  if (errclass_is_class(e->value))
    errclass_class_used[e->value & ERRCLASS_CLASS_MASK] = 0;
  else
    errclass_code_used[(e->value & ~ERRCLASS_DYN) >> ERRCLASS_CODE_SHIFT] = 0;
  free(e->text);
  *e = errclass_table[--errclass_count];
}

int PMPI_Add_error_class(int *errorclass) {
  static const char fn[] = "MPI_Add_error_class";
  int rc = hc_mpi_check_ptr(fn, NULL, errorclass, "errorclass");
  if (rc != MPI_SUCCESS)
    return rc;
  pthread_mutex_lock(&errclass_lock);
  int idx = errclass_take_index(errclass_class_used, ERRCLASS_CLASS_MASK);
  if (idx == 0) {
    rc = MPI_ERR_OTHER;
  } else if (errclass_add_locked(ERRCLASS_DYN | idx, ERRCLASS_DYN | idx) != 0) {
    errclass_class_used[idx] = 0;
    rc = MPI_ERR_NO_MEM;
  }
  pthread_mutex_unlock(&errclass_lock);
  if (rc != MPI_SUCCESS)
    return hc_mpi_raise(NULL, fn, rc, "cannot add another error class");
  *errorclass = ERRCLASS_DYN | idx;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Add_error_class, PMPI_Add_error_class);

/* errorclass is predefined, or added and live (caller holds the lock). */
static errclass_entry_t *errclass_parent_locked(int errorclass, int *ok) {
  errclass_entry_t *e =
      errclass_is_class(errorclass) ? errclass_find_locked(errorclass) : NULL;
  *ok = e != NULL || hc_mpi_class_name(errorclass) != NULL;
  return e;
}

int PMPI_Add_error_code(int errorclass, int *errorcode) {
  static const char fn[] = "MPI_Add_error_code";
  int rc = hc_mpi_check_ptr(fn, NULL, errorcode, "errorcode");
  if (rc != MPI_SUCCESS)
    return rc;
  int ok, code = 0;
  pthread_mutex_lock(&errclass_lock);
  errclass_entry_t *parent = errclass_parent_locked(errorclass, &ok);
  int idx = ok ? errclass_take_index(errclass_code_used, ERRCLASS_CODE_MAX) : 0;
  if (!ok)
    rc = MPI_ERR_ARG;
  else if (idx == 0)
    rc = MPI_ERR_OTHER;
  if (rc == MPI_SUCCESS) {
    code = ERRCLASS_DYN | idx << ERRCLASS_CODE_SHIFT;
    int parent_at = parent ? (int)(parent - errclass_table) : -1;
    if (errclass_add_locked(code, errorclass) != 0) {
      errclass_code_used[idx] = 0;
      rc = MPI_ERR_NO_MEM;
    } else if (parent_at >= 0) {
      errclass_table[parent_at].codes++;
    }
  }
  pthread_mutex_unlock(&errclass_lock);
  if (rc == MPI_ERR_ARG)
    return hc_mpi_raise(NULL, fn, rc, "invalid error class %d", errorclass);
  if (rc != MPI_SUCCESS)
    return hc_mpi_raise(NULL, fn, rc, "cannot add another error code");
  *errorcode = code;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Add_error_code, PMPI_Add_error_code);

int PMPI_Add_error_string(int errorcode, const char *string) {
  static const char fn[] = "MPI_Add_error_string";
  int rc = hc_mpi_check_ptr(fn, NULL, string, "string");
  if (rc != MPI_SUCCESS)
    return rc;
  if (strlen(string) >= MPI_MAX_ERROR_STRING)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "string of %zu characters (at most %d)", strlen(string),
                        MPI_MAX_ERROR_STRING - 1);
  char *copy = strdup(string);
  if (!copy)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  pthread_mutex_lock(&errclass_lock);
  errclass_entry_t *e = errclass_find_locked(errorcode);
  if (e) {
    free(e->text);
    e->text = copy;
  }
  pthread_mutex_unlock(&errclass_lock);
  if (e)
    return MPI_SUCCESS;
  free(copy);
  /* The standard forbids changing the string of a predefined value. */
  return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                      "error code %d was not added by MPI_Add_error_class "
                      "or MPI_Add_error_code",
                      errorcode);
}
HC_WEAK_ALIAS(MPI_Add_error_string, PMPI_Add_error_string);

/* ---- taking back what was added (MPI-4.1, and MPICH's older names) --- */

/* strict: MPI-4.1's rule that a code's string goes before the code (the
 * MPIX_Delete_* names, older, drop the string with the code). */
static int errclass_remove_class(const char *fn, int errorclass) {
  pthread_mutex_lock(&errclass_lock);
  errclass_entry_t *e =
      errclass_is_class(errorclass) ? errclass_find_locked(errorclass) : NULL;
  int busy = e && e->codes > 0;
  if (e && !busy)
    errclass_remove_locked(e);
  pthread_mutex_unlock(&errclass_lock);
  if (!e)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "error class %d was not added by MPI_Add_error_class",
                        errorclass);
  if (busy)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "error class %d still has error codes", errorclass);
  return MPI_SUCCESS;
}

static int errclass_remove_code(const char *fn, int errorcode, int strict) {
  pthread_mutex_lock(&errclass_lock);
  errclass_entry_t *e =
      errclass_is_class(errorcode) ? NULL : errclass_find_locked(errorcode);
  int has_text = e && e->text && strict;
  if (e && !has_text) {
    errclass_entry_t *parent = errclass_find_locked(e->cls);
    if (parent)
      parent->codes--;
    errclass_remove_locked(e);
  }
  pthread_mutex_unlock(&errclass_lock);
  if (!e)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "error code %d was not added by MPI_Add_error_code",
                        errorcode);
  if (has_text)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "error code %d still has a string; remove it first",
                        errorcode);
  return MPI_SUCCESS;
}

static int errclass_remove_string(const char *fn, int errorcode, int strict) {
  pthread_mutex_lock(&errclass_lock);
  errclass_entry_t *e = errclass_find_locked(errorcode);
  int has_text = e && e->text;
  if (has_text) {
    free(e->text);
    e->text = NULL;
  }
  pthread_mutex_unlock(&errclass_lock);
  if (!e)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "error code %d was not added by MPI_Add_error_*",
                        errorcode);
  if (!has_text && strict)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "error code %d has no string added by "
                        "MPI_Add_error_string",
                        errorcode);
  return MPI_SUCCESS;
}

/* A class goes only once no code of it is left. */
int PMPI_Remove_error_class(int errorclass) {
  return errclass_remove_class("MPI_Remove_error_class", errorclass);
}
HC_WEAK_ALIAS(MPI_Remove_error_class, PMPI_Remove_error_class);

/* A code goes only once its string is gone. */
int PMPI_Remove_error_code(int errorcode) {
  return errclass_remove_code("MPI_Remove_error_code", errorcode, 1);
}
HC_WEAK_ALIAS(MPI_Remove_error_code, PMPI_Remove_error_code);

/* Only a string that MPI_Add_error_string set. */
int PMPI_Remove_error_string(int errorcode) {
  return errclass_remove_string("MPI_Remove_error_string", errorcode, 1);
}
HC_WEAK_ALIAS(MPI_Remove_error_string, PMPI_Remove_error_string);

int PMPIX_Delete_error_class(int errorclass) {
  return errclass_remove_class("MPIX_Delete_error_class", errorclass);
}
HC_WEAK_ALIAS(MPIX_Delete_error_class, PMPIX_Delete_error_class);

int PMPIX_Delete_error_code(int errorcode) {
  return errclass_remove_code("MPIX_Delete_error_code", errorcode, 0);
}
HC_WEAK_ALIAS(MPIX_Delete_error_code, PMPIX_Delete_error_code);

int PMPIX_Delete_error_string(int errorcode) {
  return errclass_remove_string("MPIX_Delete_error_string", errorcode, 0);
}
HC_WEAK_ALIAS(MPIX_Delete_error_string, PMPIX_Delete_error_string);
