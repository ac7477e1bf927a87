/*
 * Internals of hcmpi's Fortran layer (libhcmpifort).
 *
 * Fortran handles, statuses and integers have the C layout in the MPICH
 * ABI (MPI_Fint is int, a handle is the same int, a status is five ints in
 * MPI_Status order), so most arguments pass straight through.  What needs
 * converting: the sentinel addresses (MPI_BOTTOM, MPI_IN_PLACE,
 * MPI_STATUS(ES)_IGNORE), which Fortran passes as the addresses of COMMON
 * blocks or of the mpi_f08 objects; LOGICALs; 1-based indices; and strings
 * with hidden lengths and blank padding.
 */
#ifndef HC_FORT_IMPL_H
#define HC_FORT_IMPL_H

#include <stddef.h>

#include "fortran/fort_bind.h"
#include "mpi.h"
#include "mpi/binding_attr.h"
#include "mpi/binding_error.h"

/* MPICH's COMMON block layouts (sizes must match: programs built by MPICH
 * get copy relocations of these exact sizes). */
typedef struct hc_f_priv1 {
  MPI_Fint bottom;
  MPI_Fint in_place;
  MPI_Fint status_ignore[MPI_F_STATUS_SIZE];
} hc_f_priv1_t;

typedef struct hc_f_priv2 {
  MPI_Fint statuses_ignore[MPI_F_STATUS_SIZE];
  MPI_Fint errcodes_ignore[1];
} hc_f_priv2_t;

typedef struct hc_f_privc {
  char argvs_null[1];
  char argv_null[1];
} hc_f_privc_t;

extern hc_f_priv1_t mpipriv1_;
extern hc_f_priv2_t mpipriv2_;
extern hc_f_privc_t mpiprivc_;
extern MPI_Fint mpifcmb5_;
extern MPI_Fint mpifcmb9_;
extern MPI_Fint mpifcmba_;

/* The mpi_f08 sentinels, defined by libhcmpi (src/mpi/globals.c). */
extern MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
extern MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
extern int MPIR_F08_MPI_IN_PLACE;
extern int MPIR_F08_MPI_BOTTOM;
/* The sentinels of MPICH's mpi_f08 module (fort_mpich_f08.c). */
extern MPI_Fint __mpi_f08_link_constants_MOD_mpi_unweighted[1];
extern MPI_Fint __mpi_f08_link_constants_MOD_mpi_weights_empty[1];
extern MPI_Fint __mpi_f08_link_constants_MOD_mpi_errcodes_ignore[1];
extern char __mpi_f08_link_constants_MOD_mpi_argv_null[1];
extern char __mpi_f08_link_constants_MOD_mpi_argvs_null[1];
extern MPI_Fint __mpi_f08_link_constants_MOD_mpi_buffer_automatic[1];
/* mpi_f08's spawn sentinels (fort_util.c). */
extern char hc_f08_argv_null[1];
extern char hc_f08_argvs_null[1];
extern MPI_Fint hc_f08_errcodes_ignore[1];

/* The buffer's first element (what the mpif.h binding would get). */
void *hc_f_f08ts_buf(const hc_f_gfc_desc_t *d);
/* 1 when the described elements are one contiguous run (so the base
 * address and the count describe them). */
int hc_f_f08ts_contiguous(const hc_f_gfc_desc_t *d);

/* A choice buffer of the mpi_f08 binding as the C call takes it
 * (fort_section.c): its address, and the count and datatype to pass. */
typedef struct hc_f_section {
  const hc_f_gfc_desc_t *desc; /* NULL: not opened */
  void *addr;
  MPI_Fint count;    /* for a call with INTEGER counts */
  MPI_Count count_c; /* for a call with MPI_Count counts */
  MPI_Fint type;
  MPI_Datatype made; /* the section's datatype, freed by the end */
  unsigned char *copy; /* a contiguous copy standing in for the section */
  int copy_out;        /* write the copy back after the call */
  int rc;              /* why the buffer cannot be passed, with why */
  char why[240];
} hc_f_section_t;

/* What a call does with a buffer, for hc_f_section_open. */
enum {
  HC_F_SECTION_COUNTED = 1 << 0,  /* the count and datatype are its own */
  HC_F_SECTION_PER_PEER = 1 << 1, /* they are one peer's block of it */
  HC_F_SECTION_COPY = 1 << 2,     /* a blocking call: a copy may serve */
  HC_F_SECTION_OUT = 1 << 3,      /* the call may write it */
  HC_F_SECTION_WHOLE = 1 << 4,    /* it must be contiguous memory */
  HC_F_SECTION_ADDRESS = 1 << 5,  /* only its address matters */
  HC_F_SECTION_UNTYPED = 1 << 6,  /* a copy, never a datatype */
  /* Counts in arrays (v-forms, partitions) index items of the datatype
   * through the buffer. */
  HC_F_SECTION_SPACED = 1 << 7,
};

/* Prepares the buffer d (argument name) of a call given count items of
 * type: 1 when s then holds what to pass, 0 (with s->rc and s->why) when
 * it cannot be passed.  Every opened section goes to hc_f_sections_end. */
int hc_f_section_open(hc_f_section_t *s, const char *name,
                      const hc_f_gfc_desc_t *d, MPI_Count count,
                      MPI_Fint type, int how);
/* The same for n buffers that share one count and datatype (Reduce's):
 * afterwards every s[i] holds the same count and type. */
int hc_f_section_open_shared(hc_f_section_t *s, int n,
                             const char *const names[],
                             hc_f_gfc_desc_t *const descs[], const int how[],
                             MPI_Count count, MPI_Fint type);
/* After the call (ran: it was made): writes copies back, frees what the
 * sections made, and raises the first failure of an open on the call's
 * object (kind, handle), as hc_f_raise does. */
void hc_f_sections_end(hc_f_section_t *s, int n, int ran, const char *fn,
                       int kind, MPI_Fint handle, MPI_Fint *ierr);
/* A choice buffer with MPI_BOTTOM / MPI_IN_PLACE mapped to C's values. */
void *hc_f_buf(void *buf);
/* MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY of mpif.h, use mpi and mpi_f08 (the
 * COMMON blocks /MPIFCMB5/ and /MPIFCMB9/) become the C sentinels. */
int *hc_f_weights(MPI_Fint *weights);
/* MPI_ERRCODES_IGNORE of mpif.h, use mpi and mpi_f08 as C's. */
int *hc_f_errcodes(MPI_Fint *errcodes);
/* A Fortran status with MPI_STATUS_IGNORE mapped to C's value. */
MPI_Status *hc_f_status(MPI_Fint *status);
/* An array of statuses with MPI_STATUSES_IGNORE mapped to C's value. */
MPI_Status *hc_f_statuses(MPI_Fint *statuses);
/* gfortran's LOGICAL: .true. is 1, .false. is 0. */
MPI_Fint hc_f_logical(int c_flag);
/* A C index (0-based or MPI_UNDEFINED) as Fortran's (1-based). */
MPI_Fint hc_f_index(int c_index);
/* Turns n C indices into Fortran ones in place (n may be MPI_UNDEFINED). */
void hc_f_indices(MPI_Fint *indices, int n);
/* Stores rc unless ierror is absent (mpi_f08 makes it OPTIONAL). */
void hc_f_err(MPI_Fint *ierr, int rc);
/* An error the wrapper of C call fn finds itself: raised through the error
 * handler of the object (kind HC_MPI_BIND_*, Fortran handle) the call
 * names, as the C call raises its own, then stored as hc_f_err does. */
void hc_f_raise(MPI_Fint *ierr, const char *fn, int kind, MPI_Fint handle,
                int errclass, const char *what);
/* A NUL-terminated malloc'd copy of a Fortran string, trailing and leading
 * blanks removed; NULL when out of memory. */
char *hc_f_str_in(const char *s, size_t len);
/* A zeroed C buffer of size + 1 bytes for a string output; NULL if no
 * memory. */
char *hc_f_str_buf(size_t size);
/* Copies C string c into Fortran string f of length len, blank-padded. */
void hc_f_str_out(char *f, size_t len, const char *c);

/* ---- hand-written calls (fort_hand.c) ---- */
/* Fortran's attribute copy and delete callbacks (all by reference). */
typedef void(hc_f_copy_fn)(MPI_Fint *oldcomm, MPI_Fint *keyval,
                           MPI_Aint *extra_state, MPI_Aint *attr_in,
                           MPI_Aint *attr_out, MPI_Fint *flag, MPI_Fint *ierr);
typedef void(hc_f_delete_fn)(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *attr,
                             MPI_Aint *extra_state, MPI_Fint *ierr);
/* MPI_KEYVAL_CREATE's callbacks: default INTEGERs throughout. */
typedef void(hc_f_copy1_fn)(MPI_Fint *oldcomm, MPI_Fint *keyval,
                            MPI_Fint *extra_state, MPI_Fint *attr_in,
                            MPI_Fint *attr_out, MPI_Fint *flag, MPI_Fint *ierr);
typedef void(hc_f_delete1_fn)(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attr,
                              MPI_Fint *extra_state, MPI_Fint *ierr);
/* A Fortran file error handler: the INTEGER file and the error code. */
typedef void(hc_f_file_errh_fn)(MPI_Fint *file, MPI_Fint *code);
typedef void(hc_f_datarep_conv_fn)(void *userbuf, MPI_Fint *datatype,
                                   MPI_Fint *count, void *filebuf,
                                   MPI_Offset *position, MPI_Aint *extra_state,
                                   MPI_Fint *ierr);
typedef void(hc_f_datarep_conv_c_fn)(void *userbuf, MPI_Fint *datatype,
                                     MPI_Count *count, void *filebuf,
                                     MPI_Offset *position,
                                     MPI_Aint *extra_state, MPI_Fint *ierr);
typedef void(hc_f_datarep_extent_fn)(MPI_Fint *datatype, MPI_Aint *extent,
                                     MPI_Aint *extra_state, MPI_Fint *ierr);
void pmpi_register_datarep_(char *datarep, hc_f_datarep_conv_fn *read_fn,
                            hc_f_datarep_conv_fn *write_fn,
                            hc_f_datarep_extent_fn *extent_fn,
                            MPI_Aint *extra_state, MPI_Fint *ierr,
                            size_t datarep_len);
void mpi_conversion_fn_null_(void *userbuf, MPI_Fint *datatype, MPI_Fint *count,
                             void *filebuf, MPI_Offset *position,
                             MPI_Aint *extra_state, MPI_Fint *ierr);
void pmpi_register_datarep_c_(char *datarep, hc_f_datarep_conv_c_fn *read_fn,
                              hc_f_datarep_conv_c_fn *write_fn,
                              hc_f_datarep_extent_fn *extent_fn,
                              MPI_Aint *extra_state, MPI_Fint *ierr,
                              size_t datarep_len);
void mpi_conversion_fn_null_c_(void *userbuf, MPI_Fint *datatype,
                               MPI_Count *count, void *filebuf,
                               MPI_Offset *position, MPI_Aint *extra_state,
                               MPI_Fint *ierr);
void pmpi_file_create_errhandler_(hc_f_file_errh_fn *file_errhandler_fn,
                                  MPI_Fint *errhandler, MPI_Fint *ierr);

/* Generalized requests' callbacks (all by reference). */
typedef void(hc_f_greq_query_fn)(MPI_Aint *extra_state, MPI_Fint *status,
                                 MPI_Fint *ierr);
typedef void(hc_f_greq_free_fn)(MPI_Aint *extra_state, MPI_Fint *ierr);
typedef void(hc_f_greq_cancel_fn)(MPI_Aint *extra_state, MPI_Fint *complete,
                                  MPI_Fint *ierr);
/* MPIX's poll_fn takes what query_fn takes. */
typedef hc_f_greq_query_fn hc_f_greq_poll_fn;
typedef void(hc_f_greq_wait_fn)(MPI_Fint *count, MPI_Aint *array_of_states,
                                double *timeout, MPI_Fint *status,
                                MPI_Fint *ierr);
void pmpi_grequest_start_(hc_f_greq_query_fn *query_fn,
                          hc_f_greq_free_fn *free_fn,
                          hc_f_greq_cancel_fn *cancel_fn,
                          MPI_Aint *extra_state, MPI_Fint *request,
                          MPI_Fint *ierr);
void pmpix_grequest_start_(hc_f_greq_query_fn *query_fn,
                           hc_f_greq_free_fn *free_fn,
                           hc_f_greq_cancel_fn *cancel_fn,
                           hc_f_greq_poll_fn *poll_fn,
                           hc_f_greq_wait_fn *wait_fn, MPI_Aint *extra_state,
                           MPI_Fint *request, MPI_Fint *ierr);
void pmpix_grequest_class_create_(hc_f_greq_query_fn *query_fn,
                                  hc_f_greq_free_fn *free_fn,
                                  hc_f_greq_cancel_fn *cancel_fn,
                                  hc_f_greq_poll_fn *poll_fn,
                                  hc_f_greq_wait_fn *wait_fn,
                                  MPI_Fint *greq_class, MPI_Fint *ierr);
void pmpix_grequest_class_allocate_(MPI_Fint *greq_class,
                                    MPI_Aint *extra_state, MPI_Fint *request,
                                    MPI_Fint *ierr);
void pmpi_comm_spawn_(char *command, char *argv, MPI_Fint *maxprocs,
                      MPI_Fint *info, MPI_Fint *root, MPI_Fint *comm,
                      MPI_Fint *intercomm, MPI_Fint *array_of_errcodes,
                      MPI_Fint *ierr, size_t command_len, size_t argv_len);
void pmpi_comm_spawn_multiple_(MPI_Fint *count, char *array_of_commands,
                               char *array_of_argv, MPI_Fint *array_of_maxprocs,
                               MPI_Fint *array_of_info, MPI_Fint *root,
                               MPI_Fint *comm, MPI_Fint *intercomm,
                               MPI_Fint *array_of_errcodes, MPI_Fint *ierr,
                               size_t commands_len, size_t argv_len);
void pmpix_query_cuda_support_(MPI_Fint *supported);
void pmpix_query_hip_support_(MPI_Fint *supported);
void pmpix_query_ze_support_(MPI_Fint *supported);
void pmpix_query_ascend_support_(MPI_Fint *supported);
void pmpi_f_sync_reg_(void *buf);

void pmpi_init_(MPI_Fint *ierr);
void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
double pmpi_wtime_(void);
double pmpi_wtick_(void);
void pmpi_pcontrol_(MPI_Fint *level, MPI_Fint *ierr);
void pmpi_buffer_detach_(void *buffer_addr, MPI_Fint *size, MPI_Fint *ierr);
void pmpi_buffer_detach_f08_(void **buffer_addr, MPI_Fint *size,
                             MPI_Fint *ierr);
void pmpi_buffer_detach_f08_large_(void **buffer_addr, MPI_Count *size,
                                   MPI_Fint *ierr);
void pmpi_buffer_detach_c_(void *buffer_addr, MPI_Count *size,
                           MPI_Fint *ierr);
void pmpi_comm_detach_buffer_(MPI_Fint *comm, void *buffer_addr,
                              MPI_Fint *size, MPI_Fint *ierr);
void pmpi_comm_detach_buffer_c_(MPI_Fint *comm, void *buffer_addr,
                                MPI_Count *size, MPI_Fint *ierr);
void pmpi_session_detach_buffer_(MPI_Fint *session, void *buffer_addr,
                                 MPI_Fint *size, MPI_Fint *ierr);
void pmpi_session_detach_buffer_c_(MPI_Fint *session, void *buffer_addr,
                                   MPI_Count *size, MPI_Fint *ierr);
void pmpi_comm_detach_buffer_f08_(MPI_Fint *comm, void **buffer_addr,
                                  MPI_Fint *size, MPI_Fint *ierr);
void pmpi_comm_detach_buffer_c_f08_(MPI_Fint *comm, void **buffer_addr,
                                    MPI_Count *size, MPI_Fint *ierr);
void pmpi_session_detach_buffer_f08_(MPI_Fint *session, void **buffer_addr,
                                     MPI_Fint *size, MPI_Fint *ierr);
void pmpi_session_detach_buffer_c_f08_(MPI_Fint *session, void **buffer_addr,
                                       MPI_Count *size, MPI_Fint *ierr);
void pmpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *val,
                         MPI_Fint *flag, MPI_Fint *ierr);
void pmpi_comm_set_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *val,
                         MPI_Fint *ierr);
void pmpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierr);
void pmpi_info_get_string_(MPI_Fint *info, char *key, MPI_Fint *buflen,
                           char *value, MPI_Fint *flag, MPI_Fint *ierr,
                           size_t key_len, size_t value_len);
void pmpi_session_get_nth_pset_(MPI_Fint *session, MPI_Fint *info, MPI_Fint *n,
                                MPI_Fint *pset_len, char *pset_name,
                                MPI_Fint *ierr, size_t name_len);
void pmpi_comm_create_keyval_(hc_f_copy_fn *copy_fn, hc_f_delete_fn *delete_fn,
                              MPI_Fint *keyval, MPI_Aint *extra_state,
                              MPI_Fint *ierr);
void mpi_comm_null_copy_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval,
                            MPI_Aint *extra_state, MPI_Aint *attr_in,
                            MPI_Aint *attr_out, MPI_Fint *flag, MPI_Fint *ierr);
void mpi_comm_dup_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval,
                      MPI_Aint *extra_state, MPI_Aint *attr_in,
                      MPI_Aint *attr_out, MPI_Fint *flag, MPI_Fint *ierr);
void mpi_comm_null_delete_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *attr,
                              MPI_Aint *extra_state, MPI_Fint *ierr);
void pmpi_type_get_attr_(MPI_Fint *datatype, MPI_Fint *keyval, MPI_Aint *val,
                         MPI_Fint *flag, MPI_Fint *ierr);
void pmpi_type_set_attr_(MPI_Fint *datatype, MPI_Fint *keyval, MPI_Aint *val,
                         MPI_Fint *ierr);
void pmpi_type_create_keyval_(hc_f_copy_fn *copy_fn, hc_f_delete_fn *delete_fn,
                              MPI_Fint *keyval, MPI_Aint *extra_state,
                              MPI_Fint *ierr);
void pmpi_win_get_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *val,
                        MPI_Fint *flag, MPI_Fint *ierr);
void pmpi_win_set_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *val,
                        MPI_Fint *ierr);
void mpi_win_null_copy_fn_(MPI_Fint *oldwin, MPI_Fint *keyval,
                           MPI_Aint *extra_state, MPI_Aint *attr_in,
                           MPI_Aint *attr_out, MPI_Fint *flag, MPI_Fint *ierr);
void mpi_win_dup_fn_(MPI_Fint *oldwin, MPI_Fint *keyval, MPI_Aint *extra_state,
                     MPI_Aint *attr_in, MPI_Aint *attr_out, MPI_Fint *flag,
                     MPI_Fint *ierr);
void mpi_win_null_delete_fn_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *attr,
                             MPI_Aint *extra_state, MPI_Fint *ierr);
void pmpi_win_create_keyval_(hc_f_copy_fn *copy_fn, hc_f_delete_fn *delete_fn,
                             MPI_Fint *keyval, MPI_Aint *extra_state,
                             MPI_Fint *ierr);
void mpi_type_null_copy_fn_(MPI_Fint *oldtype, MPI_Fint *keyval,
                            MPI_Aint *extra_state, MPI_Aint *attr_in,
                            MPI_Aint *attr_out, MPI_Fint *flag, MPI_Fint *ierr);
void mpi_type_dup_fn_(MPI_Fint *oldtype, MPI_Fint *keyval,
                      MPI_Aint *extra_state, MPI_Aint *attr_in,
                      MPI_Aint *attr_out, MPI_Fint *flag, MPI_Fint *ierr);
void mpi_type_null_delete_fn_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *attr,
                              MPI_Aint *extra_state, MPI_Fint *ierr);
void pmpi_keyval_create_(hc_f_copy1_fn *copy_fn, hc_f_delete1_fn *delete_fn,
                         MPI_Fint *keyval, MPI_Fint *extra_state,
                         MPI_Fint *ierr);
void mpi_null_copy_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval,
                       MPI_Fint *extra_state, MPI_Fint *attr_in,
                       MPI_Fint *attr_out, MPI_Fint *flag, MPI_Fint *ierr);
void mpi_dup_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Fint *extra_state,
                 MPI_Fint *attr_in, MPI_Fint *attr_out, MPI_Fint *flag,
                 MPI_Fint *ierr);
void mpi_null_delete_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attr,
                         MPI_Fint *extra_state, MPI_Fint *ierr);
void pmpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierr);
void pmpi_type_extent_(MPI_Fint *datatype, MPI_Fint *extent, MPI_Fint *ierr);
void pmpi_type_lb_(MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierr);
void pmpi_type_ub_(MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierr);
void pmpi_type_hvector_(MPI_Fint *count, MPI_Fint *blocklength,
                        MPI_Fint *stride, MPI_Fint *oldtype, MPI_Fint *newtype,
                        MPI_Fint *ierr);
void pmpi_type_hindexed_(MPI_Fint *count, MPI_Fint *blocklengths,
                         MPI_Fint *displacements, MPI_Fint *oldtype,
                         MPI_Fint *newtype, MPI_Fint *ierr);
void pmpi_type_struct_(MPI_Fint *count, MPI_Fint *blocklengths,
                       MPI_Fint *displacements, MPI_Fint *types,
                       MPI_Fint *newtype, MPI_Fint *ierr);
void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val,
                    MPI_Fint *flag, MPI_Fint *ierr);
void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val,
                    MPI_Fint *ierr);
MPI_Aint pmpi_aint_add_(MPI_Aint *base, MPI_Aint *disp);
MPI_Aint pmpi_aint_diff_(MPI_Aint *addr1, MPI_Aint *addr2);

#endif
