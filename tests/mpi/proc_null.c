/* Communication with MPI_PROC_NULL completes at once, moves no bytes, and a
 * receive's status says source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0 -
 * for Send/Recv, Isend/Irecv, Ssend, Sendrecv, Sendrecv_replace and probes. */
#include "mpitest.h"

static void pn_check(const MPI_Status *st, const char *how)
{
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL, "%s: source %d", how, st->MPI_SOURCE);
    CHECK(st->MPI_TAG == MPI_ANY_TAG, "%s: tag %d", how, st->MPI_TAG);
    CHECK(mt_status_count(st, MPI_INT) == 0, "%s: count %d", how, mt_status_count(st, MPI_INT));
}

int main(int argc, char **argv)
{
    int rank, buf[4] = {1, 2, 3, 4}, rbuf[4] = {-1, -1, -1, -1}, flag = 0;
    MPI_Status st;
    MPI_Request req[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD) == MPI_SUCCESS, "Send");
    CHECK(MPI_Ssend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD) == MPI_SUCCESS, "Ssend");
    CHECK(MPI_Rsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD) == MPI_SUCCESS, "Rsend");
    MPI_Recv(rbuf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
    pn_check(&st, "Recv");
    CHECK(rbuf[0] == -1, "Recv from PROC_NULL wrote the buffer");
    MPI_Irecv(rbuf, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(buf, 4, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Wait(&req[0], &st);
    /* MPICH 4.0.2 reports source 0, tag 0 for a nonblocking PROC_NULL receive. */
    if (!mt_mpich_quirks())
        pn_check(&st, "Irecv+Wait");
    MPI_Wait(&req[1], &st);
    MPI_Irecv(rbuf, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &req[0]);
    while (!flag)
        MPI_Test(&req[0], &flag, &st);
    if (!mt_mpich_quirks())
        pn_check(&st, "Irecv+Test");
    MPI_Sendrecv(buf, 4, MPI_INT, MPI_PROC_NULL, 4, rbuf, 4, MPI_INT, MPI_PROC_NULL, 4,
                 MPI_COMM_WORLD, &st);
    pn_check(&st, "Sendrecv");
    CHECK(rbuf[0] == -1, "Sendrecv from PROC_NULL wrote the buffer");
    MPI_Sendrecv_replace(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st);
    pn_check(&st, "Sendrecv_replace");
    CHECK(buf[0] == 1 && buf[3] == 4, "Sendrecv_replace with PROC_NULL changed the buffer");
    MPI_Probe(MPI_PROC_NULL, 6, MPI_COMM_WORLD, &st);
    pn_check(&st, "Probe");
    flag = 0;
    MPI_Iprobe(MPI_PROC_NULL, 6, MPI_COMM_WORLD, &flag, &st);
    CHECK(flag, "Iprobe(PROC_NULL) flag 0");
    pn_check(&st, "Iprobe");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("proc_null: all send/recv/probe kinds: OK\n");
    MPI_Finalize();
    return 0;
}
