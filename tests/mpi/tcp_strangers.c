/* Idle strangers against every rank's tcp port while the job checks every
 * byte it moves (run over tcp alone by tcp_strangers.sh):
 *
 *   tcp_strangers N
 *   tcp_strangers nofds
 *
 * After MPI_Init, before any message, each rank finds its own listening
 * socket and forks a helper that opens N connections to it and holds them
 * without a word.  Then the ranks exchange messages all to all (eager and
 * rendezvous sizes, several rounds, each payload verified) and run an
 * Allreduce.  The strangers fill the accept queue ahead of every peer's
 * connection; run with a low descriptor limit the ranks also run out of
 * descriptors.  At the end a rank may hold no more descriptors than its
 * peers' connections, its HCMPI_TCP_HANDSHAKES and a few of its own.
 *
 * nofds: after MPI_Init each rank lowers its descriptor limit to what it
 * holds, so no connection can ever open, and exchanges a message: with
 * HCMPI_HANG_TIMEOUT the watchdog must end the job (the Sendrecv
 * returning is the failure). */
#include "mpitest.h"
#include <errno.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROUNDS 5
#define BIG (256 << 10)

static int rank, size;

/* The AF_INET listening socket hcmpi's tcp transport opened. */
static struct sockaddr_in find_listener(void)
{
    struct sockaddr_in sa;
    for (int fd = 0; fd < 4096; fd++) {
        int listening = 0;
        socklen_t len = sizeof listening;
        if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening)
            continue;
        len = sizeof sa;
        if (getsockname(fd, (struct sockaddr *)&sa, &len) == 0 && sa.sin_family == AF_INET)
            return sa;
    }
    CHECK(0, "no tcp listener in this rank (run with HCMPI_TRANSPORTS=tcp)");
    return sa;
}

/* The helper: n non-blocking connects, then reports how many completed
 * and holds them until killed.  It raises its own descriptor limit, which
 * the rank's may not allow. */
static void strangers(struct sockaddr_in to, int n, int report)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    struct pollfd *pfd = calloc((size_t)n, sizeof *pfd);
    int opened = 0;
    for (int i = 0; i < n && pfd != NULL; i++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        if (fd < 0)
            break;
        if (connect(fd, (struct sockaddr *)&to, sizeof to) != 0 && errno != EINPROGRESS) {
            close(fd);
            break;
        }
        pfd[opened].fd = fd;
        pfd[opened].events = POLLOUT;
        opened++;
    }
    /* Wait (10 s at most) until each connect finished. */
    int done = 0;
    for (int round = 0; round < 1000 && done < opened; round++) {
        done = 0;
        poll(pfd, (nfds_t)opened, 10);
        for (int i = 0; i < opened; i++)
            done += (pfd[i].revents & (POLLOUT | POLLERR | POLLHUP)) != 0;
    }
    int connected = 0;
    for (int i = 0; i < opened; i++) {
        int err = 1;
        socklen_t len = sizeof err;
        getsockopt(pfd[i].fd, SOL_SOCKET, SO_ERROR, &err, &len);
        connected += err == 0 && (pfd[i].revents & POLLOUT);
    }
    if (write(report, &connected, sizeof connected) != (ssize_t)sizeof connected)
        _exit(1);
    for (;;)
        pause();
}

static pid_t start_strangers(int n)
{
    struct sockaddr_in me = find_listener();
    int pipefd[2];
    CHECK(pipe(pipefd) == 0, "pipe");
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        close(pipefd[0]);
        strangers(me, n, pipefd[1]);
    }
    close(pipefd[1]);
    int connected = -1;
    CHECK(read(pipefd[0], &connected, sizeof connected) == (ssize_t)sizeof connected,
          "the strangers did not report");
    close(pipefd[0]);
    /* A kernel with a short accept queue (somaxconn) completes fewer. */
    CHECK(connected >= (n < 100 ? n : 100), "only %d of %d strangers connected", connected, n);
    printf("rank %d: %d idle strangers connected to port %d\n", rank, connected,
           ntohs(me.sin_port));
    return pid;
}

/* All to all, every payload checked: sizes from 1 byte to BIG. */
static void exchange(void)
{
    static const int lens[] = {1, 100, 4000, 20000, BIG};
    int nlens = (int)(sizeof lens / sizeof lens[0]);
    unsigned char *out = malloc((size_t)size * BIG), *in = malloc((size_t)size * BIG);
    MPI_Request *rq = malloc(2 * (size_t)size * sizeof *rq);
    CHECK(out != NULL && in != NULL && rq != NULL, "no memory");
    for (int round = 0; round < ROUNDS; round++) {
        int len = lens[round % nlens], n = 0;
        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            mt_fill(out + (size_t)p * BIG, (size_t)len, (unsigned)(round * 1000 + rank * 31 + p));
            memset(in + (size_t)p * BIG, 0, (size_t)len);
            MPI_Irecv(in + (size_t)p * BIG, len, MPI_BYTE, p, round, MPI_COMM_WORLD, &rq[n++]);
            MPI_Isend(out + (size_t)p * BIG, len, MPI_BYTE, p, round, MPI_COMM_WORLD, &rq[n++]);
        }
        int rc = MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
        CHECK(rc == MPI_SUCCESS, "round %d: Waitall: %s", round, mt_errstr(rc));
        for (int p = 0; p < size; p++)
            CHECK(p == rank || mt_verify(in + (size_t)p * BIG, (size_t)len,
                                         (unsigned)(round * 1000 + p * 31 + rank)) == MT_OK,
                  "round %d: %d bytes from rank %d differ", round, len, p);
    }
    /* The largest size once more, after the connections are up. */
    for (int p = 0; p < size; p++) {
        if (p == rank)
            continue;
        mt_fill(out, BIG, (unsigned)(rank * 7 + p));
        int rc = MPI_Sendrecv(out, BIG, MPI_BYTE, p, 99, in, BIG, MPI_BYTE, p, 99, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS && mt_verify(in, BIG, (unsigned)(p * 7 + rank)) == MT_OK,
              "Sendrecv of %d bytes with rank %d: %s", BIG, p, mt_errstr(rc));
    }
    free(out);
    free(in);
    free(rq);
}

/* The listing of /proc/self/fd, opened before any stranger comes: with a
 * low descriptor limit the strangers may hold every free descriptor when
 * the count is taken, and procfs lists afresh after a rewind. */
static DIR *fd_dir;

/* How many descriptors are open, and the highest. */
static int open_descriptors(int *highest)
{
    if (fd_dir == NULL)
        fd_dir = opendir("/proc/self/fd");
    DIR *d = fd_dir;
    CHECK(d != NULL, "opendir /proc/self/fd");
    rewinddir(d);
    int n = 0, top = -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] == '.' || fd == dirfd(d))
            continue;
        n++;
        top = fd > top ? fd : top;
    }
    if (highest != NULL)
        *highest = top;
    return n;
}

static void no_descriptors_left(void)
{
    int top;
    open_descriptors(&top);
    struct rlimit rl;
    CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0, "getrlimit");
    rl.rlim_cur = (rlim_t)top + 1;
    CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit");
    int out = rank, in = -1;
    int rc = MPI_Sendrecv(&out, 1, MPI_INT, 1 - rank, 1, &in, 1, MPI_INT, 1 - rank, 1,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(0, "Sendrecv without descriptors returned %s", mt_errstr(rc));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(argc == 2, "usage: tcp_strangers N|nofds");
    if (strcmp(argv[1], "nofds") == 0) {
        CHECK(size == 2, "nofds needs 2 ranks");
        no_descriptors_left();
    }
    CHECK(atoi(argv[1]) > 0, "usage: tcp_strangers N|nofds");
    CHECK(size >= 2, "needs 2 ranks");
    open_descriptors(NULL); /* opens the listing while descriptors are free */
    pid_t helper = start_strangers(atoi(argv[1]));
    exchange();
    int sum = 0, rc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS && sum == size * (size - 1) / 2, "Allreduce: %s sum %d",
          mt_errstr(rc), sum);
    const char *cap = getenv("HCMPI_TCP_HANDSHAKES");
    int held = open_descriptors(NULL), bound = (cap ? atoi(cap) : 128) + 2 * size + 16;
    CHECK(held <= bound, "%d descriptors open, more than %d: strangers are kept", held, bound);
    kill(helper, SIGKILL);
    waitpid(helper, NULL, 0);
    printf("rank %d: PASS tcp_strangers (%d descriptors open)\n", rank, held);
    MPI_Finalize();
    return 0;
}
