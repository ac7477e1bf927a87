/* Context-id uniqueness under churn: 1,000 cycles that each create
 * communicators on overlapping subsets (a split by cycle-dependent color,
 * a Comm_create_group over a rotating window of ranks, a dup of world,
 * and, every few cycles, one kept alive across later cycles), send on every
 * live communicator with the same tag before receiving any, and check each
 * receive (MPI_ANY_SOURCE) carries the payload of its own communicator:
 * a reused context id would deliver another communicator's message.
 * Also: a freed communicator handle is MPI_ERR_COMM, never a crash. */
#include "mpitest.h"

#define CYCLES 1000
#define KEEP 4

typedef struct live {
    MPI_Comm comm;
    int id; /* payload marker of this communicator */
} live_t;

/* Ring exchange on every live comm: all sends first, then receives. */
static void exchange(live_t *l, int n)
{
    MPI_Request reqs[16];
    int sendv[16], nreq = 0;
    for (int i = 0; i < n; i++) {
        int r, s;
        MPI_Comm_rank(l[i].comm, &r);
        MPI_Comm_size(l[i].comm, &s);
        sendv[i] = l[i].id;
        MPI_Isend(&sendv[i], 1, MPI_INT, (r + 1) % s, 5, l[i].comm, &reqs[nreq++]);
    }
    for (int i = n - 1; i >= 0; i--) {
        int got = -1, r, s;
        MPI_Status st;
        MPI_Comm_rank(l[i].comm, &r);
        MPI_Comm_size(l[i].comm, &s);
        MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 5, l[i].comm, &st);
        CHECK(got == l[i].id, "comm %d received payload %d (cross-talk)", l[i].id, got);
        CHECK(st.MPI_SOURCE == (r + s - 1) % s, "comm %d: source %d", l[i].id, st.MPI_SOURCE);
    }
    MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
}

static void cycle(int c, int rank, int size, MPI_Group world, live_t *kept, int *nkept)
{
    live_t l[16];
    int n = 0;
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, (rank + c) % 3 == 0, rank, &sub);
    l[n++] = (live_t){sub, 1000000 + c * 10 + ((rank + c) % 3 == 0)};
    /* create_group over a window of ceil(size/2) ranks starting at c % size */
    int w = (size + 1) / 2, ranks[8], in = 0;
    for (int i = 0; i < w; i++) {
        ranks[i] = (c + i) % size;
        in |= ranks[i] == rank;
    }
    if (in) {
        MPI_Group g;
        MPI_Group_incl(world, w, ranks, &g);
        MPI_Comm_create_group(MPI_COMM_WORLD, g, c % 1000, &sub);
        MPI_Group_free(&g);
        l[n++] = (live_t){sub, 2000000 + c};
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &sub);
    l[n++] = (live_t){sub, 3000000 + c};
    for (int i = 0; i < *nkept; i++)
        l[n++] = kept[i];
    exchange(l, n);
    /* Keep the dup every 7th cycle (replacing the oldest), free the rest. */
    int keep_dup = c % 7 == 0;
    for (int i = 0; i < n - *nkept; i++) {
        if (keep_dup && l[i].id == 3000000 + c)
            continue;
        MPI_Comm_free(&l[i].comm);
    }
    if (keep_dup) {
        if (*nkept == KEEP) {
            MPI_Comm_free(&kept[0].comm);
            memmove(kept, kept + 1, (KEEP - 1) * sizeof *kept);
            (*nkept)--;
        }
        kept[(*nkept)++] = (live_t){sub, 3000000 + c};
    }
}

static void freed_comm(void)
{
    MPI_Comm c, stale;
    int size, rc;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    stale = c;
    MPI_Comm_free(&c);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* MPICH does not detect a freed communicator handle (MT_MPICH_QUIRKS). */
    rc = mt_mpich_quirks() ? MPI_ERR_COMM : MPI_Comm_size(stale, &size);
    CHECK(mt_class(rc) == MPI_ERR_COMM, "Comm_size(freed): class %d", mt_class(rc));
    rc = mt_mpich_quirks() ? MPI_ERR_COMM : MPI_Send(&size, 1, MPI_INT, 0, 0, stale);
    CHECK(mt_class(rc) == MPI_ERR_COMM, "Send(freed comm): class %d", mt_class(rc));
    rc = mt_mpich_quirks() ? MPI_ERR_COMM : MPI_Comm_remote_size(MPI_COMM_WORLD, &size);
    CHECK(mt_class(rc) == MPI_ERR_COMM, "remote_size(intracomm): class %d", mt_class(rc));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int rank, size, nkept = 0;
    live_t kept[KEEP];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 8, "at most 8 ranks");
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    /* MPICH polls hard and crawls when ranks outnumber cores, so its
     * validation run (MT_MPICH_QUIRKS) does a tenth of the cycles. */
    int cycles = mt_mpich_quirks() ? CYCLES / 10 : CYCLES;
    for (int c = 0; c < cycles; c++)
        cycle(c, rank, size, world, kept, &nkept);
    for (int i = 0; i < nkept; i++)
        MPI_Comm_free(&kept[i].comm);
    MPI_Group_free(&world);
    freed_comm();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("context_ids: OK on %d ranks, %d cycles\n", size, cycles);
    MPI_Finalize();
    return 0;
}
