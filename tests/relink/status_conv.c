/*
 * MPI_Status_c2f/f2c (and with mpi.h of hcmpi also c2f08, f082c, f2f08,
 * f082f) copy the five status words unchanged, in both directions: a status
 * filled by a real receive and one with a count above 2^32 and the cancel
 * bit survive every round trip, MPI_F_SOURCE/MPI_F_TAG index the Fortran
 * status, and the PMPI_ names give the same.  Converting from a status
 * sentinel is MPI_ERR_OTHER (as MPICH), writing to NULL is an error too.
 * Built against hcmpi's mpi.h and, by status_conv.sh, with mpicc.mpich.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int failures;

static void expect(int ok, const char *what) {
  if (!ok) {
    printf("FAIL: %s\n", what);
    failures++;
  }
}

/* A status from a 12-byte receive from rank 0 of MPI_COMM_SELF, tag 5. */
static void received_status(MPI_Status *st) {
  int out[3] = {1, 2, 3}, in[3];
  MPI_Sendrecv(out, 3, MPI_INT, 0, 5, in, 3, MPI_INT, 0, 5, MPI_COMM_SELF, st);
}

static void check_fortran_round_trip(const MPI_Status *c) {
  MPI_Fint f[MPI_F_STATUS_SIZE];
  MPI_Status back;
  memset(f, 0xa5, sizeof f);
  expect(MPI_Status_c2f(c, f) == MPI_SUCCESS, "MPI_Status_c2f succeeds");
  expect(memcmp(f, c, sizeof f) == 0, "c2f copies the five words");
  expect(f[MPI_F_SOURCE] == c->MPI_SOURCE && f[MPI_F_TAG] == c->MPI_TAG,
         "MPI_F_SOURCE and MPI_F_TAG index source and tag");
  memset(&back, 0x5a, sizeof back);
  expect(MPI_Status_f2c(f, &back) == MPI_SUCCESS, "MPI_Status_f2c succeeds");
  expect(memcmp(&back, c, sizeof back) == 0, "f2c gives the status back");
  MPI_Fint pf[MPI_F_STATUS_SIZE];
  expect(PMPI_Status_c2f(c, pf) == MPI_SUCCESS && memcmp(pf, f, sizeof f) == 0,
         "PMPI_Status_c2f equals MPI_Status_c2f");
  expect(PMPI_Status_f2c(pf, &back) == MPI_SUCCESS &&
             memcmp(&back, c, sizeof back) == 0,
         "PMPI_Status_f2c equals MPI_Status_f2c");
  MPI_Count big = -1;
  MPI_Get_elements_x(c, MPI_BYTE, &big);
  MPI_Count big_back = -2;
  MPI_Get_elements_x(&back, MPI_BYTE, &big_back);
  expect(big == big_back, "the byte count survives c2f and f2c");
}

#ifdef HCMPI
/* The MPI-4 F08 forms; MPICH 4.0 exports them from libmpichfort only. */
static void check_f08_round_trip(const MPI_Status *c) {
  MPI_F08_status f08, f08b;
  MPI_Fint f[MPI_F_STATUS_SIZE];
  MPI_Status back;
  expect(MPI_Status_c2f08(c, &f08) == MPI_SUCCESS, "MPI_Status_c2f08");
  expect(f08.MPI_SOURCE == c->MPI_SOURCE && f08.MPI_TAG == c->MPI_TAG &&
             f08.MPI_ERROR == c->MPI_ERROR && memcmp(&f08, c, sizeof f08) == 0,
         "c2f08 copies the five words");
  expect(MPI_Status_f082f(&f08, f) == MPI_SUCCESS &&
             memcmp(f, c, sizeof f) == 0,
         "MPI_Status_f082f copies the five words");
  expect(MPI_Status_f2f08(f, &f08b) == MPI_SUCCESS &&
             memcmp(&f08b, c, sizeof f08b) == 0,
         "MPI_Status_f2f08 copies the five words");
  expect(MPI_Status_f082c(&f08b, &back) == MPI_SUCCESS &&
             memcmp(&back, c, sizeof back) == 0,
         "MPI_Status_f082c gives the status back");
  expect(PMPI_Status_c2f08(c, &f08b) == MPI_SUCCESS &&
             PMPI_Status_f082c(&f08b, &back) == MPI_SUCCESS &&
             memcmp(&back, c, sizeof back) == 0,
         "PMPI_Status_c2f08/f082c equal the MPI_ forms");
  expect(MPI_Status_f082c(MPI_F08_STATUS_IGNORE, &back) == MPI_ERR_OTHER,
         "f082c of MPI_F08_STATUS_IGNORE is MPI_ERR_OTHER");
  expect(MPI_Status_c2f08(MPI_STATUSES_IGNORE, &f08) == MPI_ERR_OTHER,
         "c2f08 of MPI_STATUSES_IGNORE is MPI_ERR_OTHER");
  expect(MPI_Status_f082f(&f08, NULL) == MPI_ERR_ARG,
         "f082f to NULL is MPI_ERR_ARG");
}
#endif

static void check_errors(void) {
  MPI_Fint f[MPI_F_STATUS_SIZE] = {0};
  MPI_Status c;
  int cls = -1;
  MPI_Error_class(MPI_Status_c2f(MPI_STATUS_IGNORE, f), &cls);
  expect(cls == MPI_ERR_OTHER, "c2f of MPI_STATUS_IGNORE is MPI_ERR_OTHER");
  cls = -1;
  MPI_Error_class(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &c), &cls);
  expect(cls == MPI_ERR_OTHER, "f2c of MPI_F_STATUS_IGNORE is MPI_ERR_OTHER");
  expect(MPI_Status_c2f(&c, NULL) != MPI_SUCCESS, "c2f to NULL fails");
  expect(MPI_Status_f2c(f, MPI_STATUS_IGNORE) != MPI_SUCCESS,
         "f2c to MPI_STATUS_IGNORE fails");
}

int main(int argc, char **argv) {
  MPI_Status st;
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  received_status(&st);
  expect(st.MPI_SOURCE == 0 && st.MPI_TAG == 5, "the receive's status");
  check_fortran_round_trip(&st);
  /* 2^33 + 7 bytes and the cancel bit: both count words and bit 0. */
  MPI_Status_set_elements_x(&st, MPI_BYTE, ((MPI_Count)1 << 33) + 7);
  MPI_Status_set_cancelled(&st, 1);
  st.MPI_ERROR = MPI_ERR_TAG;
  check_fortran_round_trip(&st);
#ifdef HCMPI
  check_f08_round_trip(&st);
#endif
  check_errors();
  printf("status_conv: %d failures\n", failures);
  MPI_Finalize();
  return failures != 0;
}
