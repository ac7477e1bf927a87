/* A rank killed during a collective write fails the others instead of
 * hanging them: 4 ranks open a file with 4 aggregators (cb_nodes=4, so the
 * victim, rank 1, is one of them) and an interleaved view; rank 1 dies of
 * SIGKILL instead of calling MPI_File_write_all, and each survivor's
 * write_all must return MPIX_ERR_PROC_FAILED (under the file's default
 * MPI_ERRORS_RETURN).  Each survivor prints "PASS io_killed" (the scenario
 * counts them).  Run under hcmpirun --no-kill-on-failure. */
#include <signal.h>
#include <unistd.h>

#include "../mpi/mpitest.h"

enum { N = 4096 };

int main(int argc, char **argv)
{
    int rank, nprocs;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    CHECK(nprocs == 4 && argc == 2, "usage: 4 ranks, io_killed FILE");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "4");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    CHECK(rc == MPI_SUCCESS, "open: %s", mt_errstr(rc));
    MPI_Info_free(&info);
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(16, MPI_INT, &blk);
    MPI_Type_create_resized(blk, 0, 16 * 4 * nprocs, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, (MPI_Offset)rank * 64, MPI_INT, ft, "native", MPI_INFO_NULL);
    int *buf = mt_malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++)
        buf[i] = rank * N + i;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        raise(SIGKILL);
    rc = MPI_File_write_all(fh, buf, N, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(mt_class(rc) == MPIX_ERR_PROC_FAILED, "write_all with a dead rank gave %s",
          mt_errstr(rc));
    printf("PASS io_killed rank %d: %s\n", rank, mt_errstr(rc));
    fflush(stdout);
    MPI_File_close(&fh); /* fails too (a barrier); the object is freed */
    if (rank == 0)
        unlink(argv[1]);
    MPI_Type_free(&ft);
    MPI_Type_free(&blk);
    free(buf);
    MPI_Finalize();
    return 0;
}
