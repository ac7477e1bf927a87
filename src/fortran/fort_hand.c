/*
 * Fortran bindings whose arguments the generator cannot map one to one:
 * no argc/argv, functions returning DOUBLE PRECISION, attributes (address-
 * sized INTEGERs in Fortran, pointers in C) and keyval callbacks (Fortran
 * passes everything by reference).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "fortran/fort_impl.h"

void pmpi_init_(MPI_Fint *ierr) { hc_f_err(ierr, MPI_Init(NULL, NULL)); }

void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) {
  hc_f_err(ierr, MPI_Init_thread(NULL, NULL, *required, provided));
}

double pmpi_wtime_(void) { return MPI_Wtime(); }

double pmpi_wtick_(void) { return MPI_Wtick(); }

void pmpi_pcontrol_(MPI_Fint *level, MPI_Fint *ierr) {
  hc_f_err(ierr, MPI_Pcontrol(*level));
}

/* Fortran cannot hold the C buffer address; the buffer is only released. */
void pmpi_buffer_detach_(void *buffer_addr, MPI_Fint *size, MPI_Fint *ierr) {
  void *c_addr = NULL;
  int c_size = 0;
  int rc = MPI_Buffer_detach(&c_addr, &c_size);
  if (rc == MPI_SUCCESS)
    *size = c_size;
  hc_f_err(ierr, rc);
}

/* MPICH's mpi_f08 binding: buffer_addr is a TYPE(C_PTR), which gets the
 * address (mpi_buffer_detach_f08_, and _large_ with the large size). */
void pmpi_buffer_detach_f08_(void **buffer_addr, MPI_Fint *size,
                             MPI_Fint *ierr) {
  int c_size = 0;
  int rc = MPI_Buffer_detach(buffer_addr, &c_size);
  if (rc == MPI_SUCCESS)
    *size = c_size;
  hc_f_err(ierr, rc);
}

void pmpi_buffer_detach_f08_large_(void **buffer_addr, MPI_Count *size,
                                   MPI_Fint *ierr) {
  hc_f_err(ierr, MPI_Buffer_detach_c(buffer_addr, size));
}

/* The same with a large count (mpi_f08's MPI_Buffer_detach overload). */
void pmpi_buffer_detach_c_(void *buffer_addr, MPI_Count *size,
                           MPI_Fint *ierr) {
  void *c_addr = NULL;
  MPI_Count c_size = 0;
  int rc = MPI_Buffer_detach_c(&c_addr, &c_size);
  if (rc == MPI_SUCCESS)
    *size = c_size;
  hc_f_err(ierr, rc);
}

/* MPI-4.1's detach of a communicator's or a session's buffer: as
 * MPI_Buffer_detach, the buffer is only released. */
void pmpi_comm_detach_buffer_(MPI_Fint *comm, void *buffer_addr, MPI_Fint *size,
                              MPI_Fint *ierr) {
  void *c_addr = NULL;
  int c_size = 0;
  (void)buffer_addr;
  int rc = MPI_Comm_detach_buffer(MPI_Comm_f2c(*comm), &c_addr, &c_size);
  if (rc == MPI_SUCCESS)
    *size = c_size;
  hc_f_err(ierr, rc);
}

void pmpi_comm_detach_buffer_c_(MPI_Fint *comm, void *buffer_addr,
                                MPI_Count *size, MPI_Fint *ierr) {
  void *c_addr = NULL;
  MPI_Count c_size = 0;
  (void)buffer_addr;
  int rc = MPI_Comm_detach_buffer_c(MPI_Comm_f2c(*comm), &c_addr, &c_size);
  if (rc == MPI_SUCCESS)
    *size = c_size;
  hc_f_err(ierr, rc);
}

void pmpi_session_detach_buffer_(MPI_Fint *session, void *buffer_addr,
                                 MPI_Fint *size, MPI_Fint *ierr) {
  void *c_addr = NULL;
  int c_size = 0;
  (void)buffer_addr;
  int rc =
      MPI_Session_detach_buffer(MPI_Session_f2c(*session), &c_addr, &c_size);
  if (rc == MPI_SUCCESS)
    *size = c_size;
  hc_f_err(ierr, rc);
}

void pmpi_session_detach_buffer_c_(MPI_Fint *session, void *buffer_addr,
                                   MPI_Count *size, MPI_Fint *ierr) {
  void *c_addr = NULL;
  MPI_Count c_size = 0;
  (void)buffer_addr;
  int rc =
      MPI_Session_detach_buffer_c(MPI_Session_f2c(*session), &c_addr, &c_size);
  if (rc == MPI_SUCCESS)
    *size = c_size;
  hc_f_err(ierr, rc);
}

/* MPICH's mpi_f08 binding of the two (MPI-4.1, so only MPICH 4.2's
 * names): buffer_addr is a TYPE(C_PTR), which gets the address. */
void pmpi_comm_detach_buffer_f08_(MPI_Fint *comm, void **buffer_addr,
                                  MPI_Fint *size, MPI_Fint *ierr) {
  int c_size = 0;
  int rc = MPI_Comm_detach_buffer(MPI_Comm_f2c(*comm), buffer_addr, &c_size);
  if (rc == MPI_SUCCESS)
    *size = c_size;
  hc_f_err(ierr, rc);
}

void pmpi_comm_detach_buffer_c_f08_(MPI_Fint *comm, void **buffer_addr,
                                    MPI_Count *size, MPI_Fint *ierr) {
  hc_f_err(ierr,
           MPI_Comm_detach_buffer_c(MPI_Comm_f2c(*comm), buffer_addr, size));
}

void pmpi_session_detach_buffer_f08_(MPI_Fint *session, void **buffer_addr,
                                     MPI_Fint *size, MPI_Fint *ierr) {
  int c_size = 0;
  int rc = MPI_Session_detach_buffer(MPI_Session_f2c(*session), buffer_addr,
                                     &c_size);
  if (rc == MPI_SUCCESS)
    *size = c_size;
  hc_f_err(ierr, rc);
}

void pmpi_session_detach_buffer_c_f08_(MPI_Fint *session, void **buffer_addr,
                                       MPI_Count *size, MPI_Fint *ierr) {
  hc_f_err(ierr, MPI_Session_detach_buffer_c(MPI_Session_f2c(*session),
                                             buffer_addr, size));
}

/* Predefined keys are even in Fortran (one more than C's); their C values
 * point at ints.  Other attributes come through binding_attr.h, which
 * knows the language that set each (a Fortran value reads back as that
 * integer, a C one as its address).  fn and get name the C call. */
typedef int(fh_get_attr_fn)(MPI_Comm, int, void *, int *);

static int fh_get_attr(const char *fn, fh_get_attr_fn *get, int on,
                       MPI_Fint handle, MPI_Fint keyval, MPI_Aint *val,
                       MPI_Fint *flag) {
  int key = keyval;
  int predefined = ((unsigned)key >> 30) == 1;
  if (predefined && (key & 1) == 0)
    key -= 1;
  int c_flag = 0;
  int rc;
  if (predefined) {
    void *c_val = NULL;
    rc = get(handle, key, &c_val, &c_flag);
    if (rc == MPI_SUCCESS && c_flag)
      *val = *(int *)c_val;
  } else {
    rc = hc_mpi_attr_get_fortran(fn, on, handle, key, val, &c_flag);
  }
  if (rc == MPI_SUCCESS)
    *flag = hc_f_logical(c_flag);
  return rc;
}

void pmpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *val,
                         MPI_Fint *flag, MPI_Fint *ierr) {
  hc_f_err(ierr, fh_get_attr("MPI_Comm_get_attr", MPI_Comm_get_attr,
                             HC_MPI_ATTR_ON_COMM, *comm, *keyval, val, flag));
}

void pmpi_comm_set_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *val,
                         MPI_Fint *ierr) {
  hc_f_err(ierr,
           hc_mpi_attr_set_fortran("MPI_Comm_set_attr", HC_MPI_ATTR_ON_COMM,
                                   *comm, *keyval, *val, 0));
}

/* Datatype attributes: the same values; no predefined datatype keys. */
void pmpi_type_get_attr_(MPI_Fint *datatype, MPI_Fint *keyval, MPI_Aint *val,
                         MPI_Fint *flag, MPI_Fint *ierr) {
  int c_flag = 0;
  int rc = hc_mpi_attr_get_fortran("MPI_Type_get_attr", HC_MPI_ATTR_ON_TYPE,
                                   *datatype, *keyval, val, &c_flag);
  if (rc == MPI_SUCCESS)
    *flag = hc_f_logical(c_flag);
  hc_f_err(ierr, rc);
}

void pmpi_type_set_attr_(MPI_Fint *datatype, MPI_Fint *keyval, MPI_Aint *val,
                         MPI_Fint *ierr) {
  hc_f_err(ierr,
           hc_mpi_attr_set_fortran("MPI_Type_set_attr", HC_MPI_ATTR_ON_TYPE,
                                   *datatype, *keyval, *val, 0));
}

/* Window attributes.  The predefined keys hand out the base address
 * itself, a pointer to the MPI_Aint size, or pointers to ints (displacement
 * unit, flavor, model); Fortran gets the values. */
void pmpi_win_get_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *val,
                        MPI_Fint *flag, MPI_Fint *ierr) {
  int key = *keyval;
  int predefined = ((unsigned)key >> 30) == 1;
  if (predefined && (key & 1) == 0)
    key -= 1;
  void *c_val = NULL;
  int c_flag = 0;
  int rc = predefined
               ? MPI_Win_get_attr(*win, key, &c_val, &c_flag)
               : hc_mpi_attr_get_fortran("MPI_Win_get_attr", HC_MPI_ATTR_ON_WIN,
                                         *win, key, val, &c_flag);
  if (rc == MPI_SUCCESS) {
    *flag = hc_f_logical(c_flag);
    if (c_flag && predefined && key == MPI_WIN_BASE)
      *val = (MPI_Aint)c_val;
    else if (c_flag && predefined && key == MPI_WIN_SIZE)
      *val = *(MPI_Aint *)c_val;
    else if (c_flag && predefined)
      *val = *(int *)c_val;
  }
  hc_f_err(ierr, rc);
}

void pmpi_win_set_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *val,
                        MPI_Fint *ierr) {
  hc_f_err(ierr, hc_mpi_attr_set_fortran("MPI_Win_set_attr", HC_MPI_ATTR_ON_WIN,
                                         *win, *keyval, *val, 0));
}

void pmpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierr) {
  hc_f_err(ierr, MPI_Info_create_env(0, NULL, info));
}

void pmpi_info_get_string_(MPI_Fint *info, char *key, MPI_Fint *buflen,
                           char *value, MPI_Fint *flag, MPI_Fint *ierr,
                           size_t key_len, size_t value_len) {
  int n = *buflen > 0 ? *buflen : 0;
  if ((size_t)n > value_len)
    n = (int)value_len;
  char *key_c = hc_f_str_in(key, key_len);
  char *value_c = hc_f_str_buf((size_t)n);
  if (!key_c || !value_c) {
    free(key_c);
    free(value_c);
    hc_f_raise(ierr, "MPI_Info_get_string", HC_MPI_BIND_NONE, 0, MPI_ERR_NO_MEM,
               "no memory for a C copy of key or value");
    return;
  }
  int c_len = n + 1;
  int c_flag = 0;
  int rc = MPI_Info_get_string(*info, key_c, &c_len, value_c, &c_flag);
  if (rc == MPI_SUCCESS) {
    *flag = hc_f_logical(c_flag);
    if (c_flag) {
      if (n > 0)
        hc_f_str_out(value, value_len, value_c);
      *buflen = c_len - 1; /* Fortran lengths leave out the NUL */
    }
  }
  free(key_c);
  free(value_c);
  hc_f_err(ierr, rc);
}

/* As MPI_INFO_GET_STRING: PSET_LEN 0 asks for the length, which Fortran
 * counts without the NUL; a longer name is cut to the buffer. */
void pmpi_session_get_nth_pset_(MPI_Fint *session, MPI_Fint *info, MPI_Fint *n,
                                MPI_Fint *pset_len, char *pset_name,
                                MPI_Fint *ierr, size_t name_len) {
  int len = *pset_len > 0 ? *pset_len : 0;
  if ((size_t)len > name_len)
    len = (int)name_len;
  char *name_c = hc_f_str_buf((size_t)len);
  if (!name_c) {
    hc_f_raise(ierr, "MPI_Session_get_nth_pset", HC_MPI_BIND_SESSION, *session,
               MPI_ERR_NO_MEM, "no memory for a C copy of pset_name");
    return;
  }
  int c_len = len > 0 ? len + 1 : 0;
  int rc = MPI_Session_get_nth_pset(*session, *info, *n, &c_len, name_c);
  if (rc == MPI_SUCCESS) {
    if (len > 0)
      hc_f_str_out(pset_name, name_len, name_c);
    *pset_len = c_len - 1;
  }
  free(name_c);
  hc_f_err(ierr, rc);
}

/* ---- keyvals: C callbacks that call the Fortran ones ---- */

/* Owned by the keyval for the rest of the run: C gives no hook at
 * MPI_Comm_free_keyval to release it.  Exactly one pair of callbacks is
 * set: the MPI-2 form (address-sized INTEGERs) or MPI_KEYVAL_CREATE's
 * (default INTEGERs). */
typedef struct fh_keyval {
  hc_f_copy_fn *copy;
  hc_f_delete_fn *del;
  hc_f_copy1_fn *copy1;
  hc_f_delete1_fn *del1;
  MPI_Aint extra;
} fh_keyval_t;

static int fh_copy(MPI_Comm oldcomm, int keyval, void *extra, void *attr_in,
                   void *attr_out, int *flag) {
  fh_keyval_t *k = extra;
  MPI_Fint f_comm = oldcomm, f_key = keyval, f_flag = 0, f_err = 0;
  MPI_Aint out = 0;
  if (k->copy1) {
    MPI_Fint x = (MPI_Fint)k->extra, in = (MPI_Fint)(MPI_Aint)attr_in, o = 0;
    k->copy1(&f_comm, &f_key, &x, &in, &o, &f_flag, &f_err);
    out = o;
  } else {
    MPI_Aint in = (MPI_Aint)attr_in;
    k->copy(&f_comm, &f_key, &k->extra, &in, &out, &f_flag, &f_err);
  }
  *flag = f_flag != 0;
  if (*flag)
    *(void **)attr_out = (void *)out;
  return f_err;
}

static int fh_delete(MPI_Comm comm, int keyval, void *attr, void *extra) {
  fh_keyval_t *k = extra;
  MPI_Fint f_comm = comm, f_key = keyval, f_err = 0;
  if (k->del1) {
    MPI_Fint val = (MPI_Fint)(MPI_Aint)attr, x = (MPI_Fint)k->extra;
    k->del1(&f_comm, &f_key, &val, &x, &f_err);
  } else {
    MPI_Aint val = (MPI_Aint)attr;
    k->del(&f_comm, &f_key, &val, &k->extra, &f_err);
  }
  return f_err;
}

/* A datatype's callbacks take its handle where a communicator's take the
 * communicator: both are MPI_Fint in Fortran. */
static int fh_type_copy(MPI_Datatype oldtype, int keyval, void *extra,
                        void *attr_in, void *attr_out, int *flag) {
  return fh_copy((MPI_Comm)oldtype, keyval, extra, attr_in, attr_out, flag);
}

static int fh_type_delete(MPI_Datatype type, int keyval, void *attr,
                          void *extra) {
  return fh_delete((MPI_Comm)type, keyval, attr, extra);
}

/* Windows' too (never copied: MPI has no MPI_Win_dup). */
static int fh_win_copy(MPI_Win oldwin, int keyval, void *extra, void *attr_in,
                       void *attr_out, int *flag) {
  return fh_copy((MPI_Comm)oldwin, keyval, extra, attr_in, attr_out, flag);
}

static int fh_win_delete(MPI_Win win, int keyval, void *attr, void *extra) {
  return fh_delete((MPI_Comm)win, keyval, attr, extra);
}

enum { FH_KEY_COMM, FH_KEY_TYPE, FH_KEY_WIN };

/* kind: whose keyval (an FH_KEY_*). */
static void fh_create_keyval(fh_keyval_t *proto, int kind, MPI_Fint *keyval,
                             MPI_Fint *ierr) {
  static const char *const fns[] = {[FH_KEY_COMM] = "MPI_Comm_create_keyval",
                                    [FH_KEY_TYPE] = "MPI_Type_create_keyval",
                                    [FH_KEY_WIN] = "MPI_Win_create_keyval"};
  fh_keyval_t *k = malloc(sizeof(*k));
  if (!k) {
    hc_f_raise(ierr, fns[kind], HC_MPI_BIND_NONE, 0, MPI_ERR_NO_MEM,
               "no memory for the Fortran callbacks' record");
    return;
  }
  *k = *proto;
  int rc = kind == FH_KEY_TYPE
               ? MPI_Type_create_keyval(fh_type_copy, fh_type_delete, keyval, k)
           : kind == FH_KEY_WIN
               ? MPI_Win_create_keyval(fh_win_copy, fh_win_delete, keyval, k)
               : MPI_Comm_create_keyval(fh_copy, fh_delete, keyval, k);
  if (rc != MPI_SUCCESS)
    free(k);
  hc_f_err(ierr, rc);
}

void pmpi_comm_create_keyval_(hc_f_copy_fn *copy_fn, hc_f_delete_fn *delete_fn,
                              MPI_Fint *keyval, MPI_Aint *extra_state,
                              MPI_Fint *ierr) {
  fh_keyval_t k = {.copy = copy_fn, .del = delete_fn, .extra = *extra_state};
  fh_create_keyval(&k, FH_KEY_COMM, keyval, ierr);
}

void pmpi_type_create_keyval_(hc_f_copy_fn *copy_fn, hc_f_delete_fn *delete_fn,
                              MPI_Fint *keyval, MPI_Aint *extra_state,
                              MPI_Fint *ierr) {
  fh_keyval_t k = {.copy = copy_fn, .del = delete_fn, .extra = *extra_state};
  fh_create_keyval(&k, FH_KEY_TYPE, keyval, ierr);
}

void pmpi_win_create_keyval_(hc_f_copy_fn *copy_fn, hc_f_delete_fn *delete_fn,
                             MPI_Fint *keyval, MPI_Aint *extra_state,
                             MPI_Fint *ierr) {
  fh_keyval_t k = {.copy = copy_fn, .del = delete_fn, .extra = *extra_state};
  fh_create_keyval(&k, FH_KEY_WIN, keyval, ierr);
}

void pmpi_keyval_create_(hc_f_copy1_fn *copy_fn, hc_f_delete1_fn *delete_fn,
                         MPI_Fint *keyval, MPI_Fint *extra_state,
                         MPI_Fint *ierr) {
  fh_keyval_t k = {.copy1 = copy_fn, .del1 = delete_fn, .extra = *extra_state};
  fh_create_keyval(&k, FH_KEY_COMM, keyval, ierr);
}

/* File error handlers.  A C file handler gets the MPI_File, a Fortran
 * one the INTEGER file, so every Fortran handler is one C trampoline;
 * when called, it asks the file which handler it carries and calls that
 * handler's Fortran procedure (the newest registration of a handle value
 * wins, so a freed and reused handle finds its new procedure). */
typedef struct fh_file_errh {
  MPI_Errhandler errh;
  hc_f_file_errh_fn *fn;
} fh_file_errh_t;

static fh_file_errh_t *fh_file_errhs;
static size_t fh_nfile_errhs;
static pthread_mutex_t fh_file_errh_lock = PTHREAD_MUTEX_INITIALIZER;

static hc_f_file_errh_fn *fh_file_errh_find(MPI_Errhandler errh) {
  hc_f_file_errh_fn *fn = NULL;
  pthread_mutex_lock(&fh_file_errh_lock);
  for (size_t i = fh_nfile_errhs; i-- > 0 && !fn;)
    if (fh_file_errhs[i].errh == errh)
      fn = fh_file_errhs[i].fn;
  pthread_mutex_unlock(&fh_file_errh_lock);
  return fn;
}

static void fh_file_errh_call(MPI_File *file, int *code, ...) {
  MPI_Errhandler errh;
  if (MPI_File_get_errhandler(*file, &errh) != MPI_SUCCESS)
    return;
  hc_f_file_errh_fn *fn = fh_file_errh_find(errh);
  MPI_Errhandler_free(&errh); /* the reference get_errhandler gave */
  MPI_Fint f_file = MPI_File_c2f(*file), f_code = *code;
  if (fn)
    fn(&f_file, &f_code);
}

void pmpi_file_create_errhandler_(hc_f_file_errh_fn *file_errhandler_fn,
                                  MPI_Fint *errhandler, MPI_Fint *ierr) {
  MPI_Errhandler errh;
  int rc = MPI_File_create_errhandler(fh_file_errh_call, &errh);
  if (rc == MPI_SUCCESS) {
    pthread_mutex_lock(&fh_file_errh_lock);
    fh_file_errh_t *grown =
        realloc(fh_file_errhs, (fh_nfile_errhs + 1) * sizeof(*grown));
    if (grown) {
      fh_file_errhs = grown;
      fh_file_errhs[fh_nfile_errhs++] = (fh_file_errh_t){errh, file_errhandler_fn};
    }
    pthread_mutex_unlock(&fh_file_errh_lock);
    if (!grown) {
      MPI_Errhandler_free(&errh);
      rc = hc_mpi_raise_binding(HC_MPI_BIND_NONE, 0,
                                "MPI_File_create_errhandler", MPI_ERR_NO_MEM,
                                "no memory for the Fortran handler's record");
    }
  }
  if (rc == MPI_SUCCESS)
    *errhandler = errh;
  hc_f_err(ierr, rc);
}

/* ---- MPI_Register_datarep ------------------------------------------------
 * The library calls a representation's functions with C arguments; each
 * registration keeps the Fortran procedures and extra state in a record
 * (kept for the life of the process, as the representation is: MPI has no
 * way to unregister one) that reaches the C trampolines as extra_state.
 * MPI_CONVERSION_FN_NULL is a procedure of ours, recognised by address. */
typedef struct fh_datarep {
  hc_f_datarep_conv_fn *read_fn, *write_fn;
  /* MPI_Register_datarep_c's: the count an INTEGER(KIND=MPI_COUNT_KIND). */
  hc_f_datarep_conv_c_fn *read_c_fn, *write_c_fn;
  hc_f_datarep_extent_fn *extent_fn;
  MPI_Aint extra_state;
} fh_datarep_t;

void mpi_conversion_fn_null_c_(void *userbuf, MPI_Fint *datatype,
                               MPI_Count *count, void *filebuf,
                               MPI_Offset *position, MPI_Aint *extra_state,
                               MPI_Fint *ierr) {
  (void)userbuf;
  (void)datatype;
  (void)count;
  (void)filebuf;
  (void)position;
  (void)extra_state;
  *ierr = MPI_SUCCESS;
}

void mpi_conversion_fn_null_(void *userbuf, MPI_Fint *datatype, MPI_Fint *count,
                             void *filebuf, MPI_Offset *position,
                             MPI_Aint *extra_state, MPI_Fint *ierr) {
  (void)userbuf;
  (void)datatype;
  (void)count;
  (void)filebuf;
  (void)position;
  (void)extra_state;
  *ierr = MPI_SUCCESS;
}

static int fh_datarep_convert(hc_f_datarep_conv_fn *fn, void *userbuf,
                              MPI_Datatype datatype, int count, void *filebuf,
                              MPI_Offset position, void *extra_state) {
  const fh_datarep_t *d = extra_state;
  MPI_Fint f_type = MPI_Type_c2f(datatype), f_count = count;
  MPI_Fint ierr = MPI_SUCCESS;
  MPI_Aint extra = d->extra_state;
  fn(userbuf, &f_type, &f_count, filebuf, &position, &extra, &ierr);
  return ierr;
}

static int fh_datarep_read(void *userbuf, MPI_Datatype datatype, int count,
                           void *filebuf, MPI_Offset position,
                           void *extra_state) {
  const fh_datarep_t *d = extra_state;
  return fh_datarep_convert(d->read_fn, userbuf, datatype, count, filebuf,
                            position, extra_state);
}

static int fh_datarep_write(void *userbuf, MPI_Datatype datatype, int count,
                            void *filebuf, MPI_Offset position,
                            void *extra_state) {
  const fh_datarep_t *d = extra_state;
  return fh_datarep_convert(d->write_fn, userbuf, datatype, count, filebuf,
                            position, extra_state);
}

static int fh_datarep_extent(MPI_Datatype datatype, MPI_Aint *extent,
                             void *extra_state) {
  const fh_datarep_t *d = extra_state;
  MPI_Fint f_type = MPI_Type_c2f(datatype), ierr = MPI_SUCCESS;
  MPI_Aint extra = d->extra_state;
  d->extent_fn(&f_type, extent, &extra, &ierr);
  return ierr;
}

static int fh_datarep_convert_c(hc_f_datarep_conv_c_fn *fn, void *userbuf,
                                MPI_Datatype datatype, MPI_Count count,
                                void *filebuf, MPI_Offset position,
                                void *extra_state) {
  const fh_datarep_t *d = extra_state;
  MPI_Fint f_type = MPI_Type_c2f(datatype), ierr = MPI_SUCCESS;
  MPI_Aint extra = d->extra_state;
  fn(userbuf, &f_type, &count, filebuf, &position, &extra, &ierr);
  return ierr;
}

static int fh_datarep_read_c(void *userbuf, MPI_Datatype datatype,
                             MPI_Count count, void *filebuf,
                             MPI_Offset position, void *extra_state) {
  const fh_datarep_t *d = extra_state;
  return fh_datarep_convert_c(d->read_c_fn, userbuf, datatype, count, filebuf,
                              position, extra_state);
}

static int fh_datarep_write_c(void *userbuf, MPI_Datatype datatype,
                              MPI_Count count, void *filebuf,
                              MPI_Offset position, void *extra_state) {
  const fh_datarep_t *d = extra_state;
  return fh_datarep_convert_c(d->write_c_fn, userbuf, datatype, count, filebuf,
                              position, extra_state);
}

/* Registers the record proto describes under the Fortran name datarep:
 * large picks MPI_Register_datarep_c and its trampolines.  The record
 * lives as long as the representation (for good) once registered. */
static void fh_register_datarep(const char *fn, int large, char *datarep,
                                size_t datarep_len, const fh_datarep_t *proto,
                                MPI_Fint *ierr) {
  char *name = hc_f_str_in(datarep, datarep_len);
  fh_datarep_t *d = malloc(sizeof(*d));
  if (!name || !d) {
    free(name);
    free(d);
    hc_f_raise(ierr, fn, HC_MPI_BIND_NONE, 0, MPI_ERR_NO_MEM,
               "no memory for a C copy of datarep");
    return;
  }
  *d = *proto;
  int rc;
  if (large)
    rc = MPI_Register_datarep_c(
        name,
        d->read_c_fn == mpi_conversion_fn_null_c_ ? NULL : fh_datarep_read_c,
        d->write_c_fn == mpi_conversion_fn_null_c_ ? NULL : fh_datarep_write_c,
        fh_datarep_extent, d);
  else
    rc = MPI_Register_datarep(
        name, d->read_fn == mpi_conversion_fn_null_ ? NULL : fh_datarep_read,
        d->write_fn == mpi_conversion_fn_null_ ? NULL : fh_datarep_write,
        fh_datarep_extent, d);
  free(name);
  if (rc != MPI_SUCCESS)
    free(d); /* not registered: nothing will call through it */
  hc_f_err(ierr, rc);
}

/* As MPI_REGISTER_DATAREP, with conversion procedures whose count is an
 * INTEGER(KIND=MPI_COUNT_KIND) (MPI_Datarep_conversion_function_c). */
void pmpi_register_datarep_c_(char *datarep, hc_f_datarep_conv_c_fn *read_fn,
                              hc_f_datarep_conv_c_fn *write_fn,
                              hc_f_datarep_extent_fn *extent_fn,
                              MPI_Aint *extra_state, MPI_Fint *ierr,
                              size_t datarep_len) {
  fh_datarep_t proto = {.read_c_fn = read_fn,
                        .write_c_fn = write_fn,
                        .extent_fn = extent_fn,
                        .extra_state = *extra_state};
  fh_register_datarep("MPI_Register_datarep_c", 1, datarep, datarep_len, &proto,
                      ierr);
}

void pmpi_register_datarep_(char *datarep, hc_f_datarep_conv_fn *read_fn,
                            hc_f_datarep_conv_fn *write_fn,
                            hc_f_datarep_extent_fn *extent_fn,
                            MPI_Aint *extra_state, MPI_Fint *ierr,
                            size_t datarep_len) {
  fh_datarep_t proto = {.read_fn = read_fn,
                        .write_fn = write_fn,
                        .extent_fn = extent_fn,
                        .extra_state = *extra_state};
  fh_register_datarep("MPI_Register_datarep", 0, datarep, datarep_len, &proto,
                      ierr);
}

void mpi_comm_null_copy_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval,
                            MPI_Aint *extra_state, MPI_Aint *attr_in,
                            MPI_Aint *attr_out, MPI_Fint *flag,
                            MPI_Fint *ierr) {
  *flag = 0;
  *ierr = MPI_SUCCESS;
}

void mpi_comm_dup_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval,
                      MPI_Aint *extra_state, MPI_Aint *attr_in,
                      MPI_Aint *attr_out, MPI_Fint *flag, MPI_Fint *ierr) {
  *attr_out = *attr_in;
  *flag = 1;
  *ierr = MPI_SUCCESS;
}

void mpi_comm_null_delete_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *attr,
                              MPI_Aint *extra_state, MPI_Fint *ierr) {
  *ierr = MPI_SUCCESS;
}

/* MPI_TYPE_NULL_COPY_FN, MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN: the
 * communicator ones, whose arguments have the same Fortran types. */
void mpi_type_null_copy_fn_(MPI_Fint *oldtype, MPI_Fint *keyval,
                            MPI_Aint *extra_state, MPI_Aint *attr_in,
                            MPI_Aint *attr_out, MPI_Fint *flag,
                            MPI_Fint *ierr) {
  mpi_comm_null_copy_fn_(oldtype, keyval, extra_state, attr_in, attr_out, flag,
                         ierr);
}

void mpi_type_dup_fn_(MPI_Fint *oldtype, MPI_Fint *keyval,
                      MPI_Aint *extra_state, MPI_Aint *attr_in,
                      MPI_Aint *attr_out, MPI_Fint *flag, MPI_Fint *ierr) {
  mpi_comm_dup_fn_(oldtype, keyval, extra_state, attr_in, attr_out, flag, ierr);
}

void mpi_type_null_delete_fn_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *attr,
                              MPI_Aint *extra_state, MPI_Fint *ierr) {
  mpi_comm_null_delete_fn_(type, keyval, attr, extra_state, ierr);
}

/* MPI_WIN_NULL_COPY_FN, MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN: the same
 * again for windows. */
void mpi_win_null_copy_fn_(MPI_Fint *oldwin, MPI_Fint *keyval,
                           MPI_Aint *extra_state, MPI_Aint *attr_in,
                           MPI_Aint *attr_out, MPI_Fint *flag, MPI_Fint *ierr) {
  mpi_comm_null_copy_fn_(oldwin, keyval, extra_state, attr_in, attr_out, flag,
                         ierr);
}

void mpi_win_dup_fn_(MPI_Fint *oldwin, MPI_Fint *keyval, MPI_Aint *extra_state,
                     MPI_Aint *attr_in, MPI_Aint *attr_out, MPI_Fint *flag,
                     MPI_Fint *ierr) {
  mpi_comm_dup_fn_(oldwin, keyval, extra_state, attr_in, attr_out, flag, ierr);
}

void mpi_win_null_delete_fn_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *attr,
                             MPI_Aint *extra_state, MPI_Fint *ierr) {
  mpi_comm_null_delete_fn_(win, keyval, attr, extra_state, ierr);
}

/* MPI-1's predefined callbacks: the same behaviour on default INTEGERs. */
void mpi_null_copy_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval,
                       MPI_Fint *extra_state, MPI_Fint *attr_in,
                       MPI_Fint *attr_out, MPI_Fint *flag, MPI_Fint *ierr) {
  *flag = 0;
  *ierr = MPI_SUCCESS;
}

void mpi_dup_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Fint *extra_state,
                 MPI_Fint *attr_in, MPI_Fint *attr_out, MPI_Fint *flag,
                 MPI_Fint *ierr) {
  *attr_out = *attr_in;
  *flag = 1;
  *ierr = MPI_SUCCESS;
}

void mpi_null_delete_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attr,
                         MPI_Fint *extra_state, MPI_Fint *ierr) {
  *ierr = MPI_SUCCESS;
}

/* ---- MPI-1 calls with default INTEGERs where C has MPI_Aint ---- */

/* An address-sized result stored in a default INTEGER; one that does not
 * fit is an error rather than a silently wrong value. */
static int fh_aint_to_fint(int rc, MPI_Aint v, MPI_Fint *out) {
  if (rc != MPI_SUCCESS)
    return rc;
  if (v != (MPI_Aint)(MPI_Fint)v)
    return MPI_ERR_ARG;
  *out = (MPI_Fint)v;
  return MPI_SUCCESS;
}

/* Keeps the low 32 bits, as MPICH does: on 64-bit hosts only differences
 * of addresses (displacements within one object) are meaningful, which
 * is how MPI-1 Fortran programs use MPI_ADDRESS. */
void pmpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierr) {
  MPI_Aint a = 0;
  int rc = MPI_Get_address(hc_f_buf(location), &a);
  if (rc == MPI_SUCCESS)
    *address = (MPI_Fint)(uint32_t)(uint64_t)a;
  hc_f_err(ierr, rc);
}

void pmpi_type_extent_(MPI_Fint *datatype, MPI_Fint *extent, MPI_Fint *ierr) {
  MPI_Aint v = 0;
  int rc = MPI_Type_extent(*datatype, &v);
  hc_f_err(ierr, fh_aint_to_fint(rc, v, extent));
}

void pmpi_type_lb_(MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierr) {
  MPI_Aint v = 0;
  int rc = MPI_Type_lb(*datatype, &v);
  hc_f_err(ierr, fh_aint_to_fint(rc, v, displacement));
}

void pmpi_type_ub_(MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierr) {
  MPI_Aint v = 0;
  int rc = MPI_Type_ub(*datatype, &v);
  hc_f_err(ierr, fh_aint_to_fint(rc, v, displacement));
}

void pmpi_type_hvector_(MPI_Fint *count, MPI_Fint *blocklength,
                        MPI_Fint *stride, MPI_Fint *oldtype, MPI_Fint *newtype,
                        MPI_Fint *ierr) {
  hc_f_err(ierr, MPI_Type_hvector(*count, *blocklength, (MPI_Aint)*stride,
                                  *oldtype, newtype));
}

/* Widened copies of count INTEGER displacements (NULL for count <= 0 or
 * out of memory; *rc tells which). */
static MPI_Aint *fh_widen(const char *fn, const MPI_Fint *v, MPI_Fint count,
                          int *rc) {
  *rc = MPI_SUCCESS;
  if (count <= 0)
    return NULL;
  MPI_Aint *w = malloc((size_t)count * sizeof(*w));
  if (!w) {
    *rc = hc_mpi_raise_binding(HC_MPI_BIND_NONE, 0, fn, MPI_ERR_NO_MEM,
                               "no memory for widened displacements");
    return NULL;
  }
  for (MPI_Fint i = 0; i < count; i++)
    w[i] = v[i];
  return w;
}

void pmpi_type_hindexed_(MPI_Fint *count, MPI_Fint *blocklengths,
                         MPI_Fint *displacements, MPI_Fint *oldtype,
                         MPI_Fint *newtype, MPI_Fint *ierr) {
  int rc;
  MPI_Aint *d = fh_widen("MPI_Type_hindexed", displacements, *count, &rc);
  if (rc == MPI_SUCCESS)
    rc = MPI_Type_hindexed(*count, blocklengths, d, *oldtype, newtype);
  free(d);
  hc_f_err(ierr, rc);
}

void pmpi_type_struct_(MPI_Fint *count, MPI_Fint *blocklengths,
                       MPI_Fint *displacements, MPI_Fint *types,
                       MPI_Fint *newtype, MPI_Fint *ierr) {
  int rc;
  MPI_Aint *d = fh_widen("MPI_Type_struct", displacements, *count, &rc);
  if (rc == MPI_SUCCESS)
    rc = MPI_Type_struct(*count, blocklengths, d, types, newtype);
  free(d);
  hc_f_err(ierr, rc);
}

/* As MPI_COMM_GET_ATTR, with the value a default INTEGER (truncated, as
 * MPI_ATTR_PUT stored it). */
void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val,
                    MPI_Fint *flag, MPI_Fint *ierr) {
  MPI_Aint v = 0;
  MPI_Fint c_flag = 0;
  int rc = fh_get_attr("MPI_Attr_get", MPI_Attr_get, HC_MPI_ATTR_ON_COMM, *comm,
                       *keyval, &v, &c_flag);
  if (rc == MPI_SUCCESS) {
    *flag = c_flag;
    if (c_flag)
      *val = (MPI_Fint)v;
  }
  hc_f_err(ierr, rc);
}

void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val,
                    MPI_Fint *ierr) {
  hc_f_err(ierr, hc_mpi_attr_set_fortran("MPI_Attr_put", HC_MPI_ATTR_ON_COMM,
                                         *comm, *keyval, *val, 1));
}

MPI_Aint pmpi_aint_add_(MPI_Aint *base, MPI_Aint *disp) {
  return MPI_Aint_add(*base, *disp);
}

MPI_Aint pmpi_aint_diff_(MPI_Aint *addr1, MPI_Aint *addr2) {
  return MPI_Aint_diff(*addr1, *addr2);
}

/* ---- generalized requests: C callbacks that call the Fortran ones ---- */

/* A request's Fortran procedures, and (for MPIX's classes) the poll and
 * wait ones; a class's set lives for the rest of the run, as the class. */
typedef struct fh_greq_fns {
  hc_f_greq_query_fn *query;
  hc_f_greq_free_fn *free;
  hc_f_greq_cancel_fn *cancel;
  hc_f_greq_poll_fn *poll;
  hc_f_greq_wait_fn *wait;
} fh_greq_fns_t;

/* The C extra_state of a request started from Fortran: its procedures and
 * the caller's EXTRA_STATE variable, which they take by reference, so what
 * a callback stores there the caller sees (as MPICH's and Open MPI's
 * bindings do; MPICH's suite checks it); freed after the free callback. */
typedef struct fh_greq {
  const fh_greq_fns_t *fns;
  fh_greq_fns_t own; /* fns points here unless the request has a class */
  MPI_Aint *extra;
} fh_greq_t;

/* query_fn and poll_fn: the Fortran status in, as the C one, and out. */
static int fh_greq_status_call(hc_f_greq_query_fn *fn, fh_greq_t *g,
                               MPI_Status *status) {
  MPI_Fint f_status[MPI_F_STATUS_SIZE], f_err = MPI_SUCCESS;
  MPI_Status_c2f(status, f_status);
  fn(g->extra, f_status, &f_err);
  MPI_Status_f2c(f_status, status);
  return f_err;
}

static int fh_greq_query(void *state, MPI_Status *status) {
  fh_greq_t *g = state;
  return fh_greq_status_call(g->fns->query, g, status);
}

static int fh_greq_free(void *state) {
  fh_greq_t *g = state;
  MPI_Fint f_err = MPI_SUCCESS;
  g->fns->free(g->extra, &f_err);
  free(g);
  return f_err;
}

static int fh_greq_cancel(void *state, int complete) {
  fh_greq_t *g = state;
  MPI_Fint f_complete = hc_f_logical(complete), f_err = MPI_SUCCESS;
  g->fns->cancel(g->extra, &f_complete, &f_err);
  return f_err;
}

static int fh_greq_poll(void *state, MPI_Status *status) {
  fh_greq_t *g = state;
  return fh_greq_status_call(g->fns->poll, g, status);
}

/* The states of one class's requests, each its Fortran extra_state. */
static int fh_greq_wait(int count, void **states, double timeout,
                        MPI_Status *status) {
  if (count <= 0)
    return MPI_SUCCESS;
  MPI_Aint *extras = malloc((size_t)count * sizeof(*extras));
  if (!extras)
    return MPI_ERR_NO_MEM;
  for (int i = 0; i < count; i++)
    extras[i] = *((fh_greq_t *)states[i])->extra;
  MPI_Fint f_count = count, f_status[MPI_F_STATUS_SIZE], f_err = MPI_SUCCESS;
  MPI_Status_c2f(status, f_status);
  ((fh_greq_t *)states[0])->fns->wait(&f_count, extras, &timeout, f_status,
                                      &f_err);
  MPI_Status_f2c(f_status, status);
  free(extras);
  return f_err;
}

static fh_greq_t *fh_greq_new(const fh_greq_fns_t *fns, MPI_Aint *extra) {
  fh_greq_t *g = malloc(sizeof(*g));
  if (g)
    *g = (fh_greq_t){.fns = fns, .extra = extra};
  return g;
}

void pmpi_grequest_start_(hc_f_greq_query_fn *query_fn,
                          hc_f_greq_free_fn *free_fn,
                          hc_f_greq_cancel_fn *cancel_fn,
                          MPI_Aint *extra_state, MPI_Fint *request,
                          MPI_Fint *ierr) {
  pmpix_grequest_start_(query_fn, free_fn, cancel_fn, NULL, NULL, extra_state,
                        request, ierr);
}

/* NULL poll_fn and wait_fn (from MPI_GREQUEST_START): a standard request. */
void pmpix_grequest_start_(hc_f_greq_query_fn *query_fn,
                           hc_f_greq_free_fn *free_fn,
                           hc_f_greq_cancel_fn *cancel_fn,
                           hc_f_greq_poll_fn *poll_fn,
                           hc_f_greq_wait_fn *wait_fn, MPI_Aint *extra_state,
                           MPI_Fint *request, MPI_Fint *ierr) {
  fh_greq_t *g = fh_greq_new(NULL, extra_state);
  if (!g) {
    hc_f_raise(
        ierr, poll_fn || wait_fn ? "MPIX_Grequest_start" : "MPI_Grequest_start",
        HC_MPI_BIND_NONE, 0, MPI_ERR_NO_MEM,
        "no memory for the Fortran callbacks' record");
    return;
  }
  g->own = (fh_greq_fns_t){query_fn, free_fn, cancel_fn, poll_fn, wait_fn};
  g->fns = &g->own;
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPIX_Grequest_start(fh_greq_query, fh_greq_free, fh_greq_cancel,
                               poll_fn ? fh_greq_poll : NULL,
                               wait_fn ? fh_greq_wait : NULL, g, &req);
  if (rc == MPI_SUCCESS)
    *request = req;
  else
    free(g); /* no request: its free callback never runs */
  hc_f_err(ierr, rc);
}

/* Classes made from Fortran, by handle (never freed: MPIX has no call to
 * free a class). */
typedef struct fh_greq_class {
  MPIX_Grequest_class handle;
  fh_greq_fns_t fns;
  struct fh_greq_class *next;
} fh_greq_class_t;

static pthread_mutex_t fh_greq_classes_lock = PTHREAD_MUTEX_INITIALIZER;
static fh_greq_class_t *fh_greq_classes;

void pmpix_grequest_class_create_(hc_f_greq_query_fn *query_fn,
                                  hc_f_greq_free_fn *free_fn,
                                  hc_f_greq_cancel_fn *cancel_fn,
                                  hc_f_greq_poll_fn *poll_fn,
                                  hc_f_greq_wait_fn *wait_fn,
                                  MPI_Fint *greq_class, MPI_Fint *ierr) {
  fh_greq_class_t *c = malloc(sizeof(*c));
  if (!c) {
    hc_f_raise(ierr, "MPIX_Grequest_class_create", HC_MPI_BIND_NONE, 0,
               MPI_ERR_NO_MEM, "no memory for the Fortran callbacks' record");
    return;
  }
  c->fns = (fh_greq_fns_t){query_fn, free_fn, cancel_fn, poll_fn, wait_fn};
  int rc = MPIX_Grequest_class_create(fh_greq_query, fh_greq_free,
                                      fh_greq_cancel, fh_greq_poll,
                                      fh_greq_wait, &c->handle);
  if (rc != MPI_SUCCESS) {
    free(c);
    hc_f_err(ierr, rc);
    return;
  }
  pthread_mutex_lock(&fh_greq_classes_lock);
  c->next = fh_greq_classes;
  fh_greq_classes = c;
  pthread_mutex_unlock(&fh_greq_classes_lock);
  *greq_class = c->handle;
  hc_f_err(ierr, MPI_SUCCESS);
}

/* A class made in C has C callbacks: they get the Fortran extra_state as
 * their pointer-sized state, and the C call judges the handle. */
void pmpix_grequest_class_allocate_(MPI_Fint *greq_class,
                                    MPI_Aint *extra_state, MPI_Fint *request,
                                    MPI_Fint *ierr) {
  const fh_greq_fns_t *fns = NULL;
  pthread_mutex_lock(&fh_greq_classes_lock);
  for (fh_greq_class_t *c = fh_greq_classes; c && !fns; c = c->next)
    if (c->handle == *greq_class)
      fns = &c->fns;
  pthread_mutex_unlock(&fh_greq_classes_lock);
  fh_greq_t *g = NULL;
  if (fns && !(g = fh_greq_new(fns, extra_state))) {
    hc_f_raise(ierr, "MPIX_Grequest_class_allocate", HC_MPI_BIND_NONE, 0,
               MPI_ERR_NO_MEM, "no memory for the request's Fortran record");
    return;
  }
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPIX_Grequest_class_allocate(*greq_class,
                                        g ? (void *)g : (void *)*extra_state,
                                        &req);
  if (rc == MPI_SUCCESS)
    *request = req;
  else
    free(g);
  hc_f_err(ierr, rc);
}

/* ---- spawn: arrays of blank-padded strings ---- */

static void fh_argv_free(char **argv) {
  if (argv == MPI_ARGV_NULL)
    return;
  for (char **a = argv; *a; a++)
    free(*a);
  free(argv);
}

/* A C argv (NULL-ended, malloc'd) from Fortran strings of length len, the
 * first at f and each next stride strings further on, up to the first
 * blank one; NULL when out of memory. */
static char **fh_argv_in(const char *f, size_t len, size_t stride) {
  size_t n = 0;
  for (;; n++) {
    const char *s = f + n * stride * len;
    size_t k = 0;
    while (k < len && s[k] == ' ')
      k++;
    if (k == len)
      break;
  }
  char **argv = calloc(n + 1, sizeof(*argv));
  for (size_t i = 0; argv && i < n; i++) {
    argv[i] = hc_f_str_in(f + i * stride * len, len);
    if (!argv[i]) {
      fh_argv_free(argv);
      return NULL;
    }
  }
  return argv;
}

static int fh_is_argv_null(const char *argv) {
  return argv == mpiprivc_.argv_null || argv == hc_f08_argv_null ||
         argv == __mpi_f08_link_constants_MOD_mpi_argv_null;
}

void pmpi_comm_spawn_(char *command, char *argv, MPI_Fint *maxprocs,
                      MPI_Fint *info, MPI_Fint *root, MPI_Fint *comm,
                      MPI_Fint *intercomm, MPI_Fint *array_of_errcodes,
                      MPI_Fint *ierr, size_t command_len, size_t argv_len) {
  int argv_null = fh_is_argv_null(argv);
  char *cmd = hc_f_str_in(command, command_len);
  char **c_argv = argv_null ? MPI_ARGV_NULL : fh_argv_in(argv, argv_len, 1);
  int rc;
  if (cmd && (argv_null || c_argv)) {
    MPI_Comm inter = MPI_COMM_NULL;
    rc = MPI_Comm_spawn(cmd, c_argv, *maxprocs, *info, *root, *comm, &inter,
                        hc_f_errcodes(array_of_errcodes));
    *intercomm = inter;
  } else {
    rc = hc_mpi_raise_binding(HC_MPI_BIND_COMM, *comm, "MPI_Comm_spawn",
                              MPI_ERR_NO_MEM,
                              "no memory for C copies of command and argv");
  }
  free(cmd);
  if (c_argv)
    fh_argv_free(c_argv);
  hc_f_err(ierr, rc);
}

/* array_of_argv(count, *): argument j of command i is element (i, j), so
 * one command's arguments lie count strings apart. */
void pmpi_comm_spawn_multiple_(MPI_Fint *count, char *array_of_commands,
                               char *array_of_argv, MPI_Fint *array_of_maxprocs,
                               MPI_Fint *array_of_info, MPI_Fint *root,
                               MPI_Fint *comm, MPI_Fint *intercomm,
                               MPI_Fint *array_of_errcodes, MPI_Fint *ierr,
                               size_t commands_len, size_t argv_len) {
  int n = *count > 0 ? *count : 0;
  int argvs_null = array_of_argv == mpiprivc_.argvs_null ||
                   array_of_argv == hc_f08_argvs_null ||
                   array_of_argv == __mpi_f08_link_constants_MOD_mpi_argvs_null;
  char **cmds = calloc((size_t)n + 1, sizeof(*cmds));
  char ***argvs =
      argvs_null ? MPI_ARGVS_NULL : calloc((size_t)n + 1, sizeof(*argvs));
  int rc = cmds && (argvs_null || argvs) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
  for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
    cmds[i] = hc_f_str_in(array_of_commands + (size_t)i * commands_len,
                          commands_len);
    if (!argvs_null)
      argvs[i] = fh_argv_in(array_of_argv + (size_t)i * argv_len, argv_len,
                            (size_t)n);
    if (!cmds[i] || (!argvs_null && !argvs[i]))
      rc = MPI_ERR_NO_MEM;
  }
  if (rc != MPI_SUCCESS) {
    rc = hc_mpi_raise_binding(HC_MPI_BIND_COMM, *comm,
                              "MPI_Comm_spawn_multiple", rc,
                              "no memory for C copies of the commands and "
                              "their arguments");
  } else {
    MPI_Comm inter = MPI_COMM_NULL;
    rc = MPI_Comm_spawn_multiple(*count, cmds, argvs, array_of_maxprocs,
                                 array_of_info, *root, *comm, &inter,
                                 hc_f_errcodes(array_of_errcodes));
    *intercomm = inter;
  }
  for (int i = 0; i < n; i++) {
    if (cmds)
      free(cmds[i]);
    if (!argvs_null && argvs && argvs[i])
      fh_argv_free(argvs[i]);
  }
  free(cmds);
  if (!argvs_null)
    free(argvs);
  hc_f_err(ierr, rc);
}

/* ---- MPICH's GPU queries: the C result in the one INTEGER ---- */

void pmpix_query_cuda_support_(MPI_Fint *supported) {
  *supported = MPIX_Query_cuda_support();
}

void pmpix_query_hip_support_(MPI_Fint *supported) {
  *supported = MPIX_Query_hip_support();
}

void pmpix_query_ze_support_(MPI_Fint *supported) {
  *supported = MPIX_Query_ze_support();
}

void pmpix_query_ascend_support_(MPI_Fint *supported) {
  *supported = MPIX_Query_ascend_support();
}

/* Nothing to do at run time: the call exists so that the compiler, which
 * cannot see inside it, treats buf as read and written here. */
void pmpi_f_sync_reg_(void *buf) { (void)buf; }

#pragma weak mpi_buffer_detach_f08_ = pmpi_buffer_detach_f08_
#pragma weak pmpir_buffer_detach_f08_ = pmpi_buffer_detach_f08_
#pragma weak mpi_buffer_detach_f08_large_ = pmpi_buffer_detach_f08_large_
#pragma weak pmpir_buffer_detach_f08_large_ = pmpi_buffer_detach_f08_large_
/* MPICH 4.2's name of the large form. */
#pragma weak mpi_buffer_detach_c_f08_ = pmpi_buffer_detach_f08_large_
#pragma weak pmpir_buffer_detach_c_f08_ = pmpi_buffer_detach_f08_large_
#pragma weak mpi_comm_detach_buffer_f08_ = pmpi_comm_detach_buffer_f08_
#pragma weak pmpir_comm_detach_buffer_f08_ = pmpi_comm_detach_buffer_f08_
#pragma weak mpi_comm_detach_buffer_c_f08_ = pmpi_comm_detach_buffer_c_f08_
#pragma weak pmpir_comm_detach_buffer_c_f08_ = pmpi_comm_detach_buffer_c_f08_
#pragma weak mpi_session_detach_buffer_f08_ = pmpi_session_detach_buffer_f08_
#pragma weak pmpir_session_detach_buffer_f08_ = pmpi_session_detach_buffer_f08_
#pragma weak mpi_session_detach_buffer_c_f08_ =                               \
    pmpi_session_detach_buffer_c_f08_
#pragma weak pmpir_session_detach_buffer_c_f08_ =                             \
    pmpi_session_detach_buffer_c_f08_
/* Its buffer descriptor is as unread as the mpif.h form's buffer. */
#pragma weak mpi_f_sync_reg_f08ts_ = pmpi_f_sync_reg_
#pragma weak pmpir_f_sync_reg_f08ts_ = pmpi_f_sync_reg_
/* The other name forms of the predefined callbacks (gfortran's is n_), as
 * MPICH's libmpichfort has them, PMPI ones included. */
#define FH_PRAGMA(x) _Pragma(#x)
/* N without its MPI_: mpi.h defines some of the C names as macros. */
#define FH_CALLBACK_NAMES(n, N)                                                \
  FH_PRAGMA(weak n = n##_)                                                     \
  FH_PRAGMA(weak n##__ = n##_)                                                 \
  FH_PRAGMA(weak MPI_##N = n##_)                                               \
  FH_PRAGMA(weak p##n = n##_)                                                  \
  FH_PRAGMA(weak p##n##_ = n##_)                                               \
  FH_PRAGMA(weak p##n##__ = n##_)                                              \
  FH_PRAGMA(weak PMPI_##N = n##_)
FH_CALLBACK_NAMES(mpi_conversion_fn_null, CONVERSION_FN_NULL)
FH_CALLBACK_NAMES(mpi_conversion_fn_null_c, CONVERSION_FN_NULL_C)
FH_CALLBACK_NAMES(mpi_comm_null_copy_fn, COMM_NULL_COPY_FN)
FH_CALLBACK_NAMES(mpi_comm_dup_fn, COMM_DUP_FN)
FH_CALLBACK_NAMES(mpi_comm_null_delete_fn, COMM_NULL_DELETE_FN)
FH_CALLBACK_NAMES(mpi_type_null_copy_fn, TYPE_NULL_COPY_FN)
FH_CALLBACK_NAMES(mpi_type_dup_fn, TYPE_DUP_FN)
FH_CALLBACK_NAMES(mpi_type_null_delete_fn, TYPE_NULL_DELETE_FN)
FH_CALLBACK_NAMES(mpi_win_null_copy_fn, WIN_NULL_COPY_FN)
FH_CALLBACK_NAMES(mpi_win_dup_fn, WIN_DUP_FN)
FH_CALLBACK_NAMES(mpi_win_null_delete_fn, WIN_NULL_DELETE_FN)
FH_CALLBACK_NAMES(mpi_null_copy_fn, NULL_COPY_FN)
FH_CALLBACK_NAMES(mpi_dup_fn, DUP_FN)
FH_CALLBACK_NAMES(mpi_null_delete_fn, NULL_DELETE_FN)
/* The names MPICH's mpi_f08 module (mpi_f08_callbacks) gives the predefined
 * attribute copy/delete functions and MPI_CONVERSION_FN_NULL(_C) of mpi_f08.
 * TYPE(MPI_Comm) (one INTEGER) by reference is an INTEGER by reference, so they
 * are the mpif.h ones, and the bindings recognise their addresses
 * (fort_mpich_f08.c has the rest of that module's names). */
#pragma weak __mpi_f08_callbacks_MOD_mpi_comm_dup_fn = mpi_comm_dup_fn_
#pragma weak __mpi_f08_callbacks_MOD_mpi_comm_null_copy_fn =                   \
    mpi_comm_null_copy_fn_
#pragma weak __mpi_f08_callbacks_MOD_mpi_comm_null_delete_fn =                 \
    mpi_comm_null_delete_fn_
#pragma weak __mpi_f08_callbacks_MOD_mpi_type_dup_fn = mpi_type_dup_fn_
#pragma weak __mpi_f08_callbacks_MOD_mpi_type_null_copy_fn =                   \
    mpi_type_null_copy_fn_
#pragma weak __mpi_f08_callbacks_MOD_mpi_type_null_delete_fn =                 \
    mpi_type_null_delete_fn_
#pragma weak __mpi_f08_callbacks_MOD_mpi_win_dup_fn = mpi_win_dup_fn_
#pragma weak __mpi_f08_callbacks_MOD_mpi_win_null_copy_fn =                    \
    mpi_win_null_copy_fn_
#pragma weak __mpi_f08_callbacks_MOD_mpi_win_null_delete_fn =                  \
    mpi_win_null_delete_fn_
#pragma weak __mpi_f08_callbacks_MOD_mpi_conversion_fn_null =                  \
    mpi_conversion_fn_null_
#pragma weak __mpi_f08_callbacks_MOD_mpi_conversion_fn_null_c =                \
    mpi_conversion_fn_null_c_

#include "fortran/fort_hand_alias.h"
