/* MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) follows the hosts a launcher
 * put the ranks on: every rank learns every rank's hostname, then checks
 * that its node communicator holds exactly the ranks of its host, in world
 * order (key = world rank), and that a message ring and an Allreduce on it
 * and on the communicator of node leaders (one rank per host, so across
 * hosts) reach the right processes.  --nodes N also checks that the job
 * spans N hosts.  Rank 0 prints one OK line with the per-node sizes. */
#include <unistd.h>

#include "../mpi/mpitest.h"

#define NS_HOST_MAX 64

typedef struct ns_job {
    int rank, size;
    char *hosts; /* size entries of NS_HOST_MAX bytes */
} ns_job_t;

static const char *ns_host(const ns_job_t *job, int r)
{
    return job->hosts + (size_t)r * NS_HOST_MAX;
}

static void ns_gather_hosts(ns_job_t *job)
{
    char mine[NS_HOST_MAX] = "";
    CHECK(gethostname(mine, sizeof mine - 1) == 0, "gethostname failed");
    job->hosts = calloc((size_t)job->size, NS_HOST_MAX);
    CHECK(job->hosts != NULL, "out of memory");
    MPI_Allgather(mine, NS_HOST_MAX, MPI_CHAR, job->hosts, NS_HOST_MAX, MPI_CHAR,
                  MPI_COMM_WORLD);
}

/* Sends each rank's world rank around comm and sums them: both must match
 * the members the hostnames predict (world_of[i] = world rank of rank i). */
static void ns_exercise(MPI_Comm comm, const int *world_of, const char *what)
{
    int r, n, got = -1, sum = 0, want = 0;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    int me = world_of[r], left = (r + n - 1) % n;
    MPI_Sendrecv(&me, 1, MPI_INT, (r + 1) % n, 5, &got, 1, MPI_INT, left, 5, comm,
                 MPI_STATUS_IGNORE);
    CHECK(got == world_of[left], "%s: ring got %d from rank %d, want %d", what, got, left,
          world_of[left]);
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < n; i++)
        want += world_of[i];
    CHECK(sum == want, "%s: Allreduce sum %d, want %d", what, sum, want);
}

/* The node communicator: same host, world order. */
static int ns_check_node(const ns_job_t *job, int *world_of)
{
    MPI_Comm node;
    int n = 0, r, nr, nsize;
    const char *mine = ns_host(job, job->rank);
    for (int w = 0; w < job->size; w++)
        if (strcmp(ns_host(job, w), mine) == 0)
            world_of[n++] = w;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, job->rank, MPI_INFO_NULL,
                        &node);
    CHECK(node != MPI_COMM_NULL, "split_type(SHARED) gave MPI_COMM_NULL");
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(node, &nr);
    CHECK(nsize == n, "host %s: node communicator of %d ranks, want %d", mine, nsize, n);
    for (r = 0; r < n && world_of[r] != job->rank; r++)
        ;
    CHECK(nr == r, "host %s: node rank %d, want %d", mine, nr, r);
    ns_exercise(node, world_of, "node communicator");
    MPI_Comm_free(&node);
    return r;
}

/* One leader (node rank 0) per host, in world order; returns the count. */
static int ns_check_leaders(const ns_job_t *job, int node_rank, int *world_of)
{
    int n = 0;
    for (int w = 0; w < job->size; w++) {
        int first = 1;
        for (int v = 0; v < w && first; v++)
            first = strcmp(ns_host(job, v), ns_host(job, w)) != 0;
        if (first)
            world_of[n++] = w;
    }
    MPI_Comm leaders;
    MPI_Comm_split(MPI_COMM_WORLD, node_rank == 0 ? 0 : MPI_UNDEFINED, job->rank,
                   &leaders);
    if (node_rank == 0) {
        ns_exercise(leaders, world_of, "leaders communicator");
        MPI_Comm_free(&leaders);
    } else {
        CHECK(leaders == MPI_COMM_NULL, "non-leader got a leaders communicator");
    }
    return n;
}

static void ns_report(const ns_job_t *job, const int *leader_of, int nodes)
{
    char sizes[256] = "";
    size_t used = 0;
    for (int i = 0; i < nodes && used < sizeof sizes; i++) {
        int count = 0;
        for (int w = 0; w < job->size; w++)
            count += strcmp(ns_host(job, w), ns_host(job, leader_of[i])) == 0;
        used += (size_t)snprintf(sizes + used, sizeof sizes - used, "%s%d", i ? "," : "",
                                 count);
    }
    printf("node_split: %d ranks on %d nodes (%s): OK\n", job->size, nodes, sizes);
}

int main(int argc, char **argv)
{
    ns_job_t job;
    int want_nodes = argc == 3 && strcmp(argv[1], "--nodes") == 0 ? atoi(argv[2]) : 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &job.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &job.size);
    ns_gather_hosts(&job);
    int *world_of = malloc((size_t)job.size * sizeof(int));
    CHECK(world_of != NULL, "out of memory");
    int node_rank = ns_check_node(&job, world_of);
    int nodes = ns_check_leaders(&job, node_rank, world_of);
    CHECK(want_nodes == 0 || nodes == want_nodes, "job on %d hosts, want %d", nodes,
          want_nodes);
    MPI_Barrier(MPI_COMM_WORLD);
    if (job.rank == 0)
        ns_report(&job, world_of, nodes);
    free(world_of);
    free(job.hosts);
    MPI_Finalize();
    return 0;
}
