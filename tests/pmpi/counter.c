/*
 * A profiling-interface tool, as users write them: it defines six MPI_
 * functions that count and call the PMPI_ version.  It links against no
 * MPI library, so one build works under LD_PRELOAD (with libhcmpi or with
 * the MPICH-named libraries of --relink) and first in link order.
 *
 * MPI_Pcontrol(2) asks for a report: the counts are printed when the
 * process exits, so calls made inside MPI_Finalize would show up too.
 */
#include <mpi.h>
#include <stdio.h>

enum { CT_SEND, CT_RECV, CT_ISEND, CT_WAIT, CT_ALLREDUCE, CT_SPLIT, CT_N };

static const char *const ct_names[CT_N] = {"MPI_Send",      "MPI_Recv",
                                           "MPI_Isend",     "MPI_Wait",
                                           "MPI_Allreduce", "MPI_Comm_split"};
static long ct_count[CT_N];
static int ct_report = 0;
static int ct_rank = -1;

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
             int tag, MPI_Comm comm) {
  ct_count[CT_SEND]++;
  return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
             MPI_Comm comm, MPI_Status *status) {
  ct_count[CT_RECV]++;
  return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm, MPI_Request *request) {
  ct_count[CT_ISEND]++;
  return PMPI_Isend(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  ct_count[CT_WAIT]++;
  return PMPI_Wait(request, status);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ct_count[CT_ALLREDUCE]++;
  return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  ct_count[CT_SPLIT]++;
  return PMPI_Comm_split(comm, color, key, newcomm);
}

int MPI_Pcontrol(const int level, ...) {
  if (level == 2) {
    ct_report = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &ct_rank);
  }
  return MPI_SUCCESS;
}

__attribute__((destructor)) static void ct_print(void) {
  if (!ct_report)
    return;
  printf("counted rank %d:", ct_rank);
  for (int i = 0; i < CT_N; i++)
    printf(" %s=%ld", ct_names[i], ct_count[i]);
  printf("\n");
  fflush(stdout);
}
