/* The launcher's per-job secret leaves a rank's environment once MPI_Init
 * took it: getenv no longer finds it, a child started with system() does
 * not inherit it, and /proc/self/environ (the block the kernel shows to
 * anyone who may read it) no longer holds its value.  Run with tcp only
 * (job_secret.sh), so the ranks still authenticate with the copy the
 * transport kept: a message both ways proves it.
 *   job_secret SECRET_HEX */
#include "mpitest.h"
#include <fcntl.h>
#include <unistd.h>

/* 1 when the bytes of /proc/self/environ contain needle. */
static int environ_block_holds(const char *needle)
{
    static char block[1 << 16];
    int fd = open("/proc/self/environ", O_RDONLY);
    CHECK(fd >= 0, "open /proc/self/environ");
    ssize_t n = read(fd, block, sizeof block);
    close(fd);
    CHECK(n > 0, "read /proc/self/environ");
    size_t len = strlen(needle);
    for (ssize_t i = 0; i + (ssize_t)len <= n; i++)
        if (memcmp(block + i, needle, len) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    CHECK(argc == 2 && strlen(argv[1]) == 64, "usage: job_secret SECRET_HEX");
    const char *want = getenv("HCMPI_JOB_SECRET");
    /* Under another MPI the variable means nothing: only check hcmpi's. */
    int launched_with_it = want != NULL && strcmp(want, argv[1]) == 0;
    CHECK(!launched_with_it || environ_block_holds(argv[1]),
          "the secret is not in the environment block before MPI_Init");
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks");
    CHECK(getenv("HCMPI_JOB_SECRET") == NULL, "HCMPI_JOB_SECRET still set after MPI_Init");
    CHECK(!environ_block_holds(argv[1]), "/proc/self/environ still holds the secret");
    int rc = system("test -z \"${HCMPI_JOB_SECRET+set}\"");
    CHECK(rc == 0, "a child of the rank inherited HCMPI_JOB_SECRET (system: %d)", rc);
    int out = 1000 + rank, in = -1;
    rc = MPI_Sendrecv(&out, 1, MPI_INT, 1 - rank, 3, &in, 1, MPI_INT, 1 - rank, 3,
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && in == 1000 + (1 - rank), "Sendrecv: rc %d in %d", rc, in);
    printf("rank %d: PASS job_secret (secret %s before MPI_Init)\n", rank,
           launched_with_it ? "present" : "absent");
    MPI_Finalize();
    return 0;
}
