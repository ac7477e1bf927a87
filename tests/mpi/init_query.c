/* Initialisation and environment queries: Initialized/Finalized before and
 * after, Init_thread(MPI_THREAD_MULTIPLE) provides MULTIPLE and
 * Query_thread agrees, Is_thread_main, Get_version (>= 3.0),
 * Get_library_version and Get_processor_name non-empty, Wtime never goes
 * backwards, Wtick > 0. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int flag = -1, provided = -1, queried = -1, version = 0, subversion = 0, len = 0, rank;
    MPI_Initialized(&flag);
    CHECK(flag == 0, "Initialized before Init: %d", flag);
    MPI_Finalized(&flag);
    CHECK(flag == 0, "Finalized before Init: %d", flag);
    int rc = MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(rc == MPI_SUCCESS, "Init_thread rc %d", rc);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(provided == MPI_THREAD_MULTIPLE, "Init_thread(MULTIPLE) provided %d", provided);
    MPI_Query_thread(&queried);
    CHECK(queried == provided, "Query_thread %d, provided %d", queried, provided);
    flag = 0;
    MPI_Is_thread_main(&flag);
    CHECK(flag, "Is_thread_main false in the main thread");
    MPI_Initialized(&flag);
    CHECK(flag == 1, "Initialized after Init: %d", flag);
    MPI_Finalized(&flag);
    CHECK(flag == 0, "Finalized before Finalize: %d", flag);
    MPI_Get_version(&version, &subversion);
#ifdef HCMPI_VERSION
    /* hcmpi's own header: the library is at the header's level. */
    CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION && version >= 3,
          "Get_version %d.%d, header %d.%d", version, subversion, MPI_VERSION, MPI_SUBVERSION);
#else
    /* Another MPI's header (MPICH 4.0's, the program relinked onto hcmpi by
     * tests/relink/mpich_suite.sh): the library is at its level or above. */
    CHECK((version > MPI_VERSION || (version == MPI_VERSION && subversion >= MPI_SUBVERSION)) &&
              version >= 3,
          "Get_version %d.%d, header %d.%d", version, subversion, MPI_VERSION, MPI_SUBVERSION);
#endif
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    lib[0] = '\0';
    MPI_Get_library_version(lib, &len);
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING && (int)strlen(lib) == len,
          "Get_library_version len %d", len);
    char host[MPI_MAX_PROCESSOR_NAME];
    host[0] = '\0';
    MPI_Get_processor_name(host, &len);
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && (int)strlen(host) == len,
          "Get_processor_name len %d", len);
    double prev = MPI_Wtime();
    for (int i = 0; i < 100000; i++) {
        double now = MPI_Wtime();
        CHECK(now >= prev, "Wtime went back: %.9f then %.9f", prev, now);
        prev = now;
    }
    CHECK(MPI_Wtick() > 0.0, "Wtick %g", MPI_Wtick());
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("init_query: MPI %d.%d, thread level %d, %s: OK\n", version, subversion, provided,
               host);
    MPI_Finalize();
    MPI_Finalized(&flag);
    CHECK(flag == 1, "Finalized after Finalize: %d", flag);
    MPI_Initialized(&flag);
    CHECK(flag == 1, "Initialized after Finalize: %d", flag);
    return 0;
}
