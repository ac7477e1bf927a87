/*
 * What a program built with MPICH's own `use mpi_f08` module links against
 * besides the mpi_x_f08_ entry points (fort_bind.c): that module's
 * procedures and data under gfortran's names for them (__M_MOD_x for
 * procedure or variable x of module M).  Handles are one INTEGER in both
 * libraries (the MPICH ABI), so comparisons and conversions are on that.
 * The sentinels' addresses are recognised by the bindings (fort_util.c).
 */
#include "fortran/fort_impl.h"

/* mpi_f08_link_constants: the sentinels MPICH's module passes. */
MPI_Fint __mpi_f08_link_constants_MOD_mpi_unweighted[1];
MPI_Fint __mpi_f08_link_constants_MOD_mpi_weights_empty[1];
MPI_Fint __mpi_f08_link_constants_MOD_mpi_errcodes_ignore[1];
char __mpi_f08_link_constants_MOD_mpi_argv_null[1];
char __mpi_f08_link_constants_MOD_mpi_argvs_null[1];

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
