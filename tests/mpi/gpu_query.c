/*
 * MPIX_Query_cuda_support, MPIX_GPU_query_support and
 * MPIX_Query_ascend_support answer what the device layer loaded at run
 * time: gpu_query.sh runs this with no runtime (HCMPI_DEVICE=none), with
 * the CANN test double and with the CUDA test double, passing the answers
 * expected in EXPECT_CUDA and EXPECT_ASCEND.  Level Zero and HIP are never
 * supported; an unknown GPU type is MPI_ERR_ARG.
 */
#include "mpitest.h"

/* hcmpi's own query, absent from MPICH's mpi.h and libmpich: weak, so this
 * program also builds against MPICH (tests/relink) and finds the call in
 * hcmpi's libmpich.so.12 at run time. */
int MPIX_Query_ascend_support(void) __attribute__((weak));

static int expect(const char *name)
{
    const char *v = getenv(name);
    CHECK(v != NULL && (v[0] == '0' || v[0] == '1'), "%s not set to 0 or 1", name);
    return v[0] == '1';
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int cuda = expect("EXPECT_CUDA"), ascend = expect("EXPECT_ASCEND");
    CHECK(MPIX_Query_cuda_support() == cuda, "MPIX_Query_cuda_support %d, not %d",
          MPIX_Query_cuda_support(), cuda);
    CHECK(MPIX_Query_ascend_support != NULL, "MPIX_Query_ascend_support not exported");
    CHECK(MPIX_Query_ascend_support() == ascend, "MPIX_Query_ascend_support %d, not %d",
          MPIX_Query_ascend_support(), ascend);
    int yes = -1;
    CHECK(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes) == MPI_SUCCESS && yes == cuda,
          "GPU_query_support(CUDA) %d", yes);
    CHECK(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_ZE, &yes) == MPI_SUCCESS && yes == 0,
          "GPU_query_support(ZE) %d", yes);
    CHECK(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_HIP, &yes) == MPI_SUCCESS && yes == 0,
          "GPU_query_support(HIP) %d", yes);
    CHECK(MPIX_Query_ze_support() == 0 && MPIX_Query_hip_support() == 0, "ze or hip");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPIX_GPU_query_support(7, &yes);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "unknown type: %s", mt_errstr(rc));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("gpu_query: ok (cuda %d, ascend %d) on %d ranks\n", cuda, ascend, size);
    MPI_Finalize();
    return 0;
}
