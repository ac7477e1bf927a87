/*
 * What a program built with MPICH's own `use mpi_f08` (or `use mpi`) module
 * links against besides the mpi_x_f08_ entry points (fort_bind.c): those
 * modules' procedures and data under gfortran's names for them (__M_MOD_x
 * for procedure or variable x of module M): handle comparisons, MPI_Sizeof,
 * the status conversions, the predefined callbacks and the derived types'
 * vtabs.  Handles are one INTEGER in both
 * libraries (the MPICH ABI), so comparisons and conversions are on that.
 * The sentinels' addresses are recognised by the bindings (fort_util.c).
 */
#include "fortran/fort_impl.h"

#include <stdint.h>
#include <string.h>

/* mpi_f08_link_constants: the sentinels MPICH's module passes. */
MPI_Fint __mpi_f08_link_constants_MOD_mpi_unweighted[1];
MPI_Fint __mpi_f08_link_constants_MOD_mpi_weights_empty[1];
MPI_Fint __mpi_f08_link_constants_MOD_mpi_errcodes_ignore[1];
char __mpi_f08_link_constants_MOD_mpi_argv_null[1];
char __mpi_f08_link_constants_MOD_mpi_argvs_null[1];
MPI_Fint __mpi_f08_link_constants_MOD_mpi_buffer_automatic[1];

/* mpi_f08_types: ==, /= between handles of a type, and between one and
 * its INTEGER (either order); LOGICAL results, arguments by reference. */
#define FH_HANDLE_COMPARE(t)                                                   \
  int __mpi_f08_types_MOD_mpi_##t##_eq(const MPI_Fint *x, const MPI_Fint *y);  \
  int __mpi_f08_types_MOD_mpi_##t##_neq(const MPI_Fint *x, const MPI_Fint *y); \
  int __mpi_f08_types_MOD_mpi_##t##_f08_eq_f(const MPI_Fint *x,                \
                                             const MPI_Fint *y);               \
  int __mpi_f08_types_MOD_mpi_##t##_f08_neq_f(const MPI_Fint *x,               \
                                              const MPI_Fint *y);              \
  int __mpi_f08_types_MOD_mpi_##t##_f_eq_f08(const MPI_Fint *x,                \
                                             const MPI_Fint *y);               \
  int __mpi_f08_types_MOD_mpi_##t##_f_neq_f08(const MPI_Fint *x,               \
                                              const MPI_Fint *y);              \
  int __mpi_f08_types_MOD_mpi_##t##_eq(const MPI_Fint *x, const MPI_Fint *y) { \
    return *x == *y;                                                           \
  }                                                                            \
  int __mpi_f08_types_MOD_mpi_##t##_neq(const MPI_Fint *x,                     \
                                        const MPI_Fint *y) {                   \
    return *x != *y;                                                           \
  }                                                                            \
  int __mpi_f08_types_MOD_mpi_##t##_f08_eq_f(const MPI_Fint *x,                \
                                             const MPI_Fint *y) {              \
    return *x == *y;                                                           \
  }                                                                            \
  int __mpi_f08_types_MOD_mpi_##t##_f08_neq_f(const MPI_Fint *x,               \
                                              const MPI_Fint *y) {             \
    return *x != *y;                                                           \
  }                                                                            \
  int __mpi_f08_types_MOD_mpi_##t##_f_eq_f08(const MPI_Fint *x,                \
                                             const MPI_Fint *y) {              \
    return *x == *y;                                                           \
  }                                                                            \
  int __mpi_f08_types_MOD_mpi_##t##_f_neq_f08(const MPI_Fint *x,               \
                                              const MPI_Fint *y) {             \
    return *x != *y;                                                           \
  }

/* MPI_x_c2f / MPI_x_f2c of the module: the same integer (VALUE argument). */
#define FH_HANDLE_CONVERT(t)                                                   \
  int __mpi_f08_types_MOD_mpi_##t##_c2f(int x);                                \
  int __mpi_f08_types_MOD_mpi_##t##_f2c(int x);                                \
  int __mpi_f08_types_MOD_mpi_##t##_c2f(int x) { return x; }                   \
  int __mpi_f08_types_MOD_mpi_##t##_f2c(int x) { return x; }

FH_HANDLE_COMPARE(comm)
FH_HANDLE_COMPARE(datatype)
FH_HANDLE_COMPARE(errhandler)
FH_HANDLE_COMPARE(file)
FH_HANDLE_COMPARE(group)
FH_HANDLE_COMPARE(info)
FH_HANDLE_COMPARE(message)
FH_HANDLE_COMPARE(op)
FH_HANDLE_COMPARE(request)
FH_HANDLE_COMPARE(session)
FH_HANDLE_COMPARE(win)
FH_HANDLE_CONVERT(comm)
FH_HANDLE_CONVERT(datatype)
FH_HANDLE_CONVERT(errhandler)
FH_HANDLE_CONVERT(group)
FH_HANDLE_CONVERT(info)
FH_HANDLE_CONVERT(message)
FH_HANDLE_CONVERT(op)
FH_HANDLE_CONVERT(request)
FH_HANDLE_CONVERT(session)
FH_HANDLE_CONVERT(win)

/* MPI_Sizeof of MPICH's modules: the bytes of one element of the argument's
 * type, fixed per specific procedure (the argument itself is unread).  The
 * mpi_f08 ones (mpi_f08_types) take an optional ierror, the `use mpi` ones
 * (mpi_sizeofs, with a v form for arrays) a required one; both get the
 * null check. */
static void fm_sizeof_set(MPI_Fint *size, MPI_Fint *ierror, MPI_Fint bytes) {
  *size = bytes;
  if (ierror != NULL)
    *ierror = MPI_SUCCESS;
}

#define FM_SIZEOF(module_name, bytes)                                          \
  void module_name(const void *x, MPI_Fint *size, MPI_Fint *ierror);           \
  void module_name(const void *x, MPI_Fint *size, MPI_Fint *ierror) {          \
    (void)x;                                                                   \
    fm_sizeof_set(size, ierror, bytes);                                        \
  }
FM_SIZEOF(__mpi_f08_types_MOD_mpi_sizeof_character, 1)
FM_SIZEOF(__mpi_f08_types_MOD_mpi_sizeof_logical, 4)
FM_SIZEOF(__mpi_f08_types_MOD_mpi_sizeof_xint8, 1)
FM_SIZEOF(__mpi_f08_types_MOD_mpi_sizeof_xint16, 2)
FM_SIZEOF(__mpi_f08_types_MOD_mpi_sizeof_xint32, 4)
FM_SIZEOF(__mpi_f08_types_MOD_mpi_sizeof_xint64, 8)
FM_SIZEOF(__mpi_f08_types_MOD_mpi_sizeof_xreal32, 4)
FM_SIZEOF(__mpi_f08_types_MOD_mpi_sizeof_xreal64, 8)
FM_SIZEOF(__mpi_f08_types_MOD_mpi_sizeof_xreal128, 16)
FM_SIZEOF(__mpi_f08_types_MOD_mpi_sizeof_xcomplex32, 8)
FM_SIZEOF(__mpi_f08_types_MOD_mpi_sizeof_xcomplex64, 16)
FM_SIZEOF(__mpi_f08_types_MOD_mpi_sizeof_xcomplex128, 32)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_ch, 1)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_chv, 1)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_l, 4)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_lv, 4)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_i, 4)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_iv, 4)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_i1, 1)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_i1v, 1)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_i2, 2)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_i2v, 2)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_i8, 8)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_i8v, 8)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_r, 4)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_rv, 4)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_d, 8)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_dv, 8)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_cx, 8)
FM_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_cxv, 8)

/* MPI_Status_f2f08 / MPI_Status_f082f of mpi_f08: an INTEGER
 * status(MPI_STATUS_SIZE) and a TYPE(MPI_Status) have the same five
 * words (the MPICH ABI's MPI_Status), so both copy; ierror is optional. */
static void fm_status_copy(const MPI_Fint *from, MPI_Fint *to,
                           MPI_Fint *ierror) {
  memcpy(to, from, sizeof(MPI_Status));
  if (ierror != NULL)
    *ierror = MPI_SUCCESS;
}

void __mpi_f08_types_MOD_mpi_status_f2f08(const MPI_Fint *f_status,
                                          MPI_Fint *f08_status,
                                          MPI_Fint *ierror);
void __mpi_f08_types_MOD_mpi_status_f2f08(const MPI_Fint *f_status,
                                          MPI_Fint *f08_status,
                                          MPI_Fint *ierror) {
  fm_status_copy(f_status, f08_status, ierror);
}

void __mpi_f08_types_MOD_mpi_status_f082f(const MPI_Fint *f08_status,
                                          MPI_Fint *f_status, MPI_Fint *ierror);
void __mpi_f08_types_MOD_mpi_status_f082f(const MPI_Fint *f08_status,
                                          MPI_Fint *f_status,
                                          MPI_Fint *ierror) {
  fm_status_copy(f08_status, f_status, ierror);
}

/* The module's assignments between its C-interop status and TYPE(MPI_Status)
 * (left side first). */
void __mpi_f08_types_MOD_mpi_status_f08_assign_c(MPI_Fint *f08_status,
                                                 const MPI_Fint *c_status);
void __mpi_f08_types_MOD_mpi_status_f08_assign_c(MPI_Fint *f08_status,
                                                 const MPI_Fint *c_status) {
  fm_status_copy(c_status, f08_status, NULL);
}

void __mpi_f08_types_MOD_mpi_status_c_assign_f08(MPI_Fint *c_status,
                                                 const MPI_Fint *f08_status);
void __mpi_f08_types_MOD_mpi_status_c_assign_f08(MPI_Fint *c_status,
                                                 const MPI_Fint *f08_status) {
  fm_status_copy(f08_status, c_status, NULL);
}

/* mpi_constants (MPICH's `use mpi`): == and /= between its handle types. */
#define FM_CONSTANTS_COMPARE(eq_name, neq_name)                                \
  int eq_name(const MPI_Fint *x, const MPI_Fint *y);                           \
  int neq_name(const MPI_Fint *x, const MPI_Fint *y);                          \
  int eq_name(const MPI_Fint *x, const MPI_Fint *y) { return *x == *y; }       \
  int neq_name(const MPI_Fint *x, const MPI_Fint *y) { return *x != *y; }
FM_CONSTANTS_COMPARE(__mpi_constants_MOD_commeq, __mpi_constants_MOD_commneq)
FM_CONSTANTS_COMPARE(__mpi_constants_MOD_datatypeeq,
                     __mpi_constants_MOD_datatypeneq)
FM_CONSTANTS_COMPARE(__mpi_constants_MOD_errhandlereq,
                     __mpi_constants_MOD_errhandlerneq)
FM_CONSTANTS_COMPARE(__mpi_constants_MOD_fileeq, __mpi_constants_MOD_fileneq)
FM_CONSTANTS_COMPARE(__mpi_constants_MOD_groupeq, __mpi_constants_MOD_groupneq)
FM_CONSTANTS_COMPARE(__mpi_constants_MOD_infoeq, __mpi_constants_MOD_infoneq)
FM_CONSTANTS_COMPARE(__mpi_constants_MOD_messageeq,
                     __mpi_constants_MOD_messageneq)
FM_CONSTANTS_COMPARE(__mpi_constants_MOD_opeq, __mpi_constants_MOD_opneq)
FM_CONSTANTS_COMPARE(__mpi_constants_MOD_requesteq,
                     __mpi_constants_MOD_requestneq)
FM_CONSTANTS_COMPARE(__mpi_constants_MOD_wineq, __mpi_constants_MOD_winneq)

/* gfortran's type-bound data of the modules' derived types.  A program that
 * passes a TYPE(MPI_Comm) or TYPE(MPI_Status) to a CLASS(*) argument copies
 * the type's vtab into itself at load time (a copy relocation), so the
 * vtab must be here, with its default-initialisation value and copy
 * procedure.  The layout is gfortran's (fm_vtab_t); each _hash is the value
 * gfortran gives that module:type name, as in MPICH's library, so
 * SAME_TYPE_AS agrees with objects made there. */
typedef struct {
  int32_t hash;
  int64_t size;
  const void *extends;
  const void *def_init;
  void (*copy)(const void *from, void *to);
  const void *final;
  const void *deallocate;
} fm_vtab_t;

static void fm_copy_handle(const void *from, void *to) {
  memcpy(to, from, sizeof(MPI_Fint));
}

static void fm_copy_status(const void *from, void *to) {
  memcpy(to, from, sizeof(MPI_Status));
}

/* One type: its default value (zero, as gfortran leaves it), copy
 * procedure and vtab, under the module's names. */
#define FM_TYPE_DATA(def_init_name, copy_name, vtab_name, hash_value, c_type,  \
                     copier)                                                   \
  c_type def_init_name;                                                        \
  void copy_name(const void *from, void *to);                                  \
  void copy_name(const void *from, void *to) { copier(from, to); }             \
  const fm_vtab_t vtab_name = {.hash = hash_value,                             \
                               .size = sizeof(c_type),                         \
                               .def_init = &def_init_name,                     \
                               .copy = copy_name};
FM_TYPE_DATA(__mpi_f08_types_MOD___def_init_mpi_f08_types_Mpi_comm,
             __mpi_f08_types_MOD___copy_mpi_f08_types_Mpi_comm,
             __mpi_f08_types_MOD___vtab_mpi_f08_types_Mpi_comm, 0x04630fb5,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_constants_MOD___def_init_mpi_constants_Mpi_comm,
             __mpi_constants_MOD___copy_mpi_constants_Mpi_comm,
             __mpi_constants_MOD___vtab_mpi_constants_Mpi_comm, 0x02766e8e,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_constants_MOD___def_init_mpi_constants_Mpi_datatype,
             __mpi_constants_MOD___copy_mpi_constants_Mpi_datatype,
             __mpi_constants_MOD___vtab_mpi_constants_Mpi_datatype, 0x02e3d366,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_constants_MOD___def_init_mpi_constants_Mpi_errhandler,
             __mpi_constants_MOD___copy_mpi_constants_Mpi_errhandler,
             __mpi_constants_MOD___vtab_mpi_constants_Mpi_errhandler,
             0x025febe7, MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_constants_MOD___def_init_mpi_constants_Mpi_file,
             __mpi_constants_MOD___copy_mpi_constants_Mpi_file,
             __mpi_constants_MOD___vtab_mpi_constants_Mpi_file, 0x01fe4c7e,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_constants_MOD___def_init_mpi_constants_Mpi_group,
             __mpi_constants_MOD___copy_mpi_constants_Mpi_group,
             __mpi_constants_MOD___vtab_mpi_constants_Mpi_group, 0x046a0d9d,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_constants_MOD___def_init_mpi_constants_Mpi_info,
             __mpi_constants_MOD___copy_mpi_constants_Mpi_info,
             __mpi_constants_MOD___vtab_mpi_constants_Mpi_info, 0x0142bdd0,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_constants_MOD___def_init_mpi_constants_Mpi_message,
             __mpi_constants_MOD___copy_mpi_constants_Mpi_message,
             __mpi_constants_MOD___vtab_mpi_constants_Mpi_message, 0x00cf67a5,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_constants_MOD___def_init_mpi_constants_Mpi_op,
             __mpi_constants_MOD___copy_mpi_constants_Mpi_op,
             __mpi_constants_MOD___vtab_mpi_constants_Mpi_op, 0x02f5db43,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_constants_MOD___def_init_mpi_constants_Mpi_request,
             __mpi_constants_MOD___copy_mpi_constants_Mpi_request,
             __mpi_constants_MOD___vtab_mpi_constants_Mpi_request, 0x00e953ad,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_constants_MOD___def_init_mpi_constants_Mpi_status,
             __mpi_constants_MOD___copy_mpi_constants_Mpi_status,
             __mpi_constants_MOD___vtab_mpi_constants_Mpi_status, 0x0058ce54,
             MPI_Status, fm_copy_status)
FM_TYPE_DATA(__mpi_constants_MOD___def_init_mpi_constants_Mpi_win,
             __mpi_constants_MOD___copy_mpi_constants_Mpi_win,
             __mpi_constants_MOD___vtab_mpi_constants_Mpi_win, 0x023a5b3a,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_f08_types_MOD___def_init_mpi_f08_types_Mpi_datatype,
             __mpi_f08_types_MOD___copy_mpi_f08_types_Mpi_datatype,
             __mpi_f08_types_MOD___vtab_mpi_f08_types_Mpi_datatype, 0x052dee8d,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_f08_types_MOD___def_init_mpi_f08_types_Mpi_errhandler,
             __mpi_f08_types_MOD___copy_mpi_f08_types_Mpi_errhandler,
             __mpi_f08_types_MOD___vtab_mpi_f08_types_Mpi_errhandler,
             0x00e6b08e, MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_f08_types_MOD___def_init_mpi_f08_types_Mpi_file,
             __mpi_f08_types_MOD___copy_mpi_f08_types_Mpi_file,
             __mpi_f08_types_MOD___vtab_mpi_f08_types_Mpi_file, 0x0437b8a5,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_f08_types_MOD___def_init_mpi_f08_types_Mpi_group,
             __mpi_f08_types_MOD___copy_mpi_f08_types_Mpi_group,
             __mpi_f08_types_MOD___vtab_mpi_f08_types_Mpi_group, 0x013aa136,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_f08_types_MOD___def_init_mpi_f08_types_Mpi_info,
             __mpi_f08_types_MOD___copy_mpi_f08_types_Mpi_info,
             __mpi_f08_types_MOD___vtab_mpi_f08_types_Mpi_info, 0x032f5ef7,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_f08_types_MOD___def_init_mpi_f08_types_Mpi_message,
             __mpi_f08_types_MOD___copy_mpi_f08_types_Mpi_message,
             __mpi_f08_types_MOD___vtab_mpi_f08_types_Mpi_message, 0x056a5ebe,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_f08_types_MOD___def_init_mpi_f08_types_Mpi_op,
             __mpi_f08_types_MOD___copy_mpi_f08_types_Mpi_op,
             __mpi_f08_types_MOD___vtab_mpi_f08_types_Mpi_op, 0x040e29ea,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_f08_types_MOD___def_init_mpi_f08_types_Mpi_request,
             __mpi_f08_types_MOD___copy_mpi_f08_types_Mpi_request,
             __mpi_f08_types_MOD___vtab_mpi_f08_types_Mpi_request, 0x05844ac6,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_f08_types_MOD___def_init_mpi_f08_types_Mpi_session,
             __mpi_f08_types_MOD___copy_mpi_f08_types_Mpi_session,
             __mpi_f08_types_MOD___vtab_mpi_f08_types_Mpi_session, 0x0278b1cd,
             MPI_Fint, fm_copy_handle)
FM_TYPE_DATA(__mpi_f08_types_MOD___def_init_mpi_f08_types_Mpi_status,
             __mpi_f08_types_MOD___copy_mpi_f08_types_Mpi_status,
             __mpi_f08_types_MOD___vtab_mpi_f08_types_Mpi_status, 0x003b16fb,
             MPI_Status, fm_copy_status)
FM_TYPE_DATA(__mpi_f08_types_MOD___def_init_mpi_f08_types_Mpi_win,
             __mpi_f08_types_MOD___copy_mpi_f08_types_Mpi_win,
             __mpi_f08_types_MOD___vtab_mpi_f08_types_Mpi_win, 0x037fb653,
             MPI_Fint, fm_copy_handle)
