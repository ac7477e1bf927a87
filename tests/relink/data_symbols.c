/*
 * References every data object MPICH's mpi.h declares (hcmpi's mpi.h
 * declares the C ones; the MPICH-only Fortran 2008 and MPI_T names are
 * used when built against MPICH's header).  Built with mpicc.mpich, the
 * program gets copy relocations for them, so it only links and loads on a
 * library that exports each as a data object of MPICH's size.  The checks
 * are on the relations MPICH itself keeps, so the program also passes on
 * MPICH.
 */
#include <mpi.h>
#include <stdio.h>

static int ds_failures;

static void ds_check(int ok, const char *what) {
  if (!ok) {
    printf("FAIL: %s\n", what);
    ds_failures++;
  }
}

static void ds_sentinels(void) {
  ds_check(MPI_UNWEIGHTED != NULL, "MPI_UNWEIGHTED is not NULL");
  ds_check(MPI_WEIGHTS_EMPTY != NULL, "MPI_WEIGHTS_EMPTY is not NULL");
  ds_check(MPI_UNWEIGHTED != MPI_WEIGHTS_EMPTY,
           "MPI_UNWEIGHTED differs from MPI_WEIGHTS_EMPTY");
  ds_check(MPI_F08_STATUS_IGNORE != NULL, "MPI_F08_STATUS_IGNORE is set");
  ds_check(MPI_F08_STATUSES_IGNORE != NULL, "MPI_F08_STATUSES_IGNORE is set");
  ds_check((void *)MPI_F08_STATUS_IGNORE != (void *)MPI_F08_STATUSES_IGNORE,
           "the two F08 ignore sentinels differ");
  /* Only their addresses matter to a C program; reading them must work. */
  printf("MPI_F_STATUS_IGNORE %p MPI_F_STATUSES_IGNORE %p\n",
         (void *)MPI_F_STATUS_IGNORE, (void *)MPI_F_STATUSES_IGNORE);
#ifndef HCMPI
  ds_check(MPI_F08_STATUS_IGNORE == &MPIR_F08_MPI_STATUS_IGNORE_OBJ,
           "MPI_F08_STATUS_IGNORE points at MPIR_F08_MPI_STATUS_IGNORE_OBJ");
  ds_check(MPI_F08_STATUSES_IGNORE == MPIR_F08_MPI_STATUSES_IGNORE_OBJ,
           "MPI_F08_STATUSES_IGNORE points at its object");
  ds_check(&MPIR_F08_MPI_IN_PLACE != &MPIR_F08_MPI_BOTTOM,
           "MPIR_F08_MPI_IN_PLACE and MPIR_F08_MPI_BOTTOM are distinct");
  printf("MPI_T_PVAR_ALL_HANDLES %p\n", (void *)MPI_T_PVAR_ALL_HANDLES);
#endif
}

/* MPI_COMM_DUP_FN is the library function MPIR_Dup_fn. */
static void ds_dup_fn(void) {
  int value = 42, flag = 0;
  void *out = NULL;
  int rc = MPI_COMM_DUP_FN(MPI_COMM_WORLD, 0, NULL, &value, &out, &flag);
  ds_check(rc == MPI_SUCCESS && flag == 1 && out == &value,
           "MPI_COMM_DUP_FN copies the value and sets the flag");
}

int main(int argc, char **argv) {
  int rank, size, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ds_sentinels();
  ds_dup_fn();
  MPI_Allreduce(&ds_failures, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("data_symbols: %d ranks, %d failures\n", size, sum);
  MPI_Finalize();
  return sum == 0 ? 0 : 1;
}
