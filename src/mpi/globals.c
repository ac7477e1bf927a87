/*
 * Data objects that MPICH's mpi.h declares extern.  A program built against
 * MPICH that names one of them gets a copy relocation of the object's size
 * (8 bytes for each pointer here), so they must exist in the library with
 * MPICH's names and sizes.  Their values are only ever compared as
 * addresses: nothing reads through them.
 */
#include "mpi/mpi_impl.h"

/* Fortran 2008 sentinels in MPICH's header; declared here because our
 * mpi.h leaves Fortran-only names out. */
extern MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
extern MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
extern int MPIR_F08_MPI_IN_PLACE;
extern int MPIR_F08_MPI_BOTTOM;

MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
int MPIR_F08_MPI_IN_PLACE;
int MPIR_F08_MPI_BOTTOM;

/* MPICH leaves the two Fortran status sentinels NULL. */
MPI_Fint *MPI_F_STATUS_IGNORE = NULL;
MPI_Fint *MPI_F_STATUSES_IGNORE = NULL;
MPI_F08_status *MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status *MPI_F08_STATUSES_IGNORE = MPIR_F08_MPI_STATUSES_IGNORE_OBJ;

/* Distinct addresses that no user array can share. */
static int globals_unweighted;
static int globals_weights_empty;
int *const MPI_UNWEIGHTED = &globals_unweighted;
int *const MPI_WEIGHTS_EMPTY = &globals_weights_empty;

/* MPI_T_PVAR_ALL_HANDLES is defined beside the handles (mpit_pvar.c). */
