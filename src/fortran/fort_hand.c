/*
 * Fortran bindings whose arguments the generator cannot map one to one:
 * no argc/argv, functions returning DOUBLE PRECISION, attributes (address-
 * sized INTEGERs in Fortran, pointers in C) and keyval callbacks (Fortran
 * passes everything by reference).
 */
#include <stdlib.h>

#include "fortran/fort_impl.h"

void pmpi_init_(MPI_Fint *ierr) { hc_f_err(ierr, MPI_Init(NULL, NULL)); }

void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided,
                       MPI_Fint *ierr) {
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

/* Predefined keys are even in Fortran (one more than C's); their C values
 * point at ints.  Other attributes hold the address-sized value itself. */
void pmpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *val,
                         MPI_Fint *flag, MPI_Fint *ierr) {
  int key = *keyval;
  int predefined = ((unsigned)key >> 30) == 1;
  if (predefined && (key & 1) == 0)
    key -= 1;
  void *c_val = NULL;
  int c_flag = 0;
  int rc = MPI_Comm_get_attr(*comm, key, &c_val, &c_flag);
  if (rc == MPI_SUCCESS) {
    *flag = hc_f_logical(c_flag);
    if (c_flag)
      *val = predefined ? *(int *)c_val : (MPI_Aint)c_val;
  }
  hc_f_err(ierr, rc);
}

void pmpi_comm_set_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *val,
                         MPI_Fint *ierr) {
  hc_f_err(ierr, MPI_Comm_set_attr(*comm, *keyval, (void *)*val));
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
    hc_f_err(ierr, MPI_ERR_NO_MEM);
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

/* ---- keyvals: C callbacks that call the Fortran ones ---- */

/* Owned by the keyval for the rest of the run: C gives no hook at
 * MPI_Comm_free_keyval to release it. */
typedef struct fh_keyval {
  hc_f_copy_fn *copy;
  hc_f_delete_fn *del;
  MPI_Aint extra;
} fh_keyval_t;

static int fh_copy(MPI_Comm oldcomm, int keyval, void *extra, void *attr_in,
                   void *attr_out, int *flag) {
  fh_keyval_t *k = extra;
  MPI_Fint f_comm = oldcomm, f_key = keyval, f_flag = 0, f_err = 0;
  MPI_Aint in = (MPI_Aint)attr_in, out = 0;
  k->copy(&f_comm, &f_key, &k->extra, &in, &out, &f_flag, &f_err);
  *flag = f_flag != 0;
  if (*flag)
    *(void **)attr_out = (void *)out;
  return f_err;
}

static int fh_delete(MPI_Comm comm, int keyval, void *attr, void *extra) {
  fh_keyval_t *k = extra;
  MPI_Fint f_comm = comm, f_key = keyval, f_err = 0;
  MPI_Aint val = (MPI_Aint)attr;
  k->del(&f_comm, &f_key, &val, &k->extra, &f_err);
  return f_err;
}

void pmpi_comm_create_keyval_(hc_f_copy_fn *copy_fn,
                              hc_f_delete_fn *delete_fn, MPI_Fint *keyval,
                              MPI_Aint *extra_state, MPI_Fint *ierr) {
  fh_keyval_t *k = malloc(sizeof(*k));
  if (!k) {
    hc_f_err(ierr, MPI_ERR_NO_MEM);
    return;
  }
  k->copy = copy_fn;
  k->del = delete_fn;
  k->extra = *extra_state;
  int rc = MPI_Comm_create_keyval(fh_copy, fh_delete, keyval, k);
  if (rc != MPI_SUCCESS)
    free(k);
  hc_f_err(ierr, rc);
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

void mpi_comm_null_delete_fn_(MPI_Fint *comm, MPI_Fint *keyval,
                              MPI_Aint *attr, MPI_Aint *extra_state,
                              MPI_Fint *ierr) {
  *ierr = MPI_SUCCESS;
}

#pragma weak mpi_comm_null_copy_fn = mpi_comm_null_copy_fn_
#pragma weak mpi_comm_null_copy_fn__ = mpi_comm_null_copy_fn_
#pragma weak MPI_COMM_NULL_COPY_FN = mpi_comm_null_copy_fn_
#pragma weak mpi_comm_dup_fn = mpi_comm_dup_fn_
#pragma weak mpi_comm_dup_fn__ = mpi_comm_dup_fn_
#pragma weak MPI_COMM_DUP_FN = mpi_comm_dup_fn_
#pragma weak mpi_comm_null_delete_fn = mpi_comm_null_delete_fn_
#pragma weak mpi_comm_null_delete_fn__ = mpi_comm_null_delete_fn_
#pragma weak MPI_COMM_NULL_DELETE_FN = mpi_comm_null_delete_fn_

#include "fortran/fort_hand_alias.h"
