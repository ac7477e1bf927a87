/* Every one-sided operation (MPI_Put, Get, Accumulate, Get_accumulate,
 * Fetch_and_op, Compare_and_swap and the request forms Rput, Rget,
 * Raccumulate, Rget_accumulate) under every synchronisation mode (fence,
 * post/start/complete/wait, lock/unlock with flush, lock_all/unlock_all
 * with flush_all), with contiguous and derived datatypes at both ends, on
 * this rank's own window and on a neighbour's.  Each round every rank is
 * the origin of one operation and the target of one, and checks the bytes
 * its window ended with and the bytes its operation brought back against
 * a model of the operation.  Then every predefined op (MPI_REPLACE and
 * MPI_NO_OP included) accumulates once, and MPI_MAXLOC on MPI_2INT.
 * Last, 2048 gets of 128 KiB in one epoch land without the target's peak
 * memory growing by their sum; and the large-count (_c) forms. */
#include "mpitest.h"

#include <sys/resource.h>

#define WIN_INTS 32
enum { M_FENCE, M_PSCW, M_LOCK, M_LOCK_ALL, NMODES };
enum { O_PUT, O_GET, O_ACC, O_GACC, O_FOP, O_CAS,
       O_RPUT, O_RGET, O_RACC, O_RGACC, NOPS };
static const char *mode_name[] = {"fence", "pscw", "lock", "lock_all"};
static const char *op_name[] = {"put", "get", "acc", "get_acc", "fetch_and_op",
                                "cas", "rput", "rget", "racc", "rget_acc"};

static int rank, size;
static int *winbuf;
static MPI_Datatype tvec, ovec; /* target: every 2nd int; origin: every 3rd */

static int initial(int owner, int i) { return 1000 * owner + i; }
static int origin_val(int owner, int i) { return 100000 * (owner + 1) + i; }

/* Index lists of an operation: n elements, at target tidx, at origin oidx. */
typedef struct shape {
    int n;
    int tidx[8], oidx[8];
} shape_t;

static shape_t shape_of(int op, int derived)
{
    shape_t s;
    int single = op == O_FOP || op == O_CAS;
    s.n = single ? 1 : derived ? 4 : 8;
    for (int k = 0; k < s.n; k++) {
        s.tidx[k] = single ? 5 : derived ? 4 + 2 * k : 4 + k;
        s.oidx[k] = single ? 0 : derived ? 3 * k : k;
    }
    return s;
}

/* The model: what target's window (T, from initial()) and the origin's
 * result buffer (R, from -1) become under op from origin o. */
static void model(int op, int derived, int o, int t, int *T, int *R)
{
    shape_t s = shape_of(op, derived);
    for (int i = 0; i < WIN_INTS; i++) {
        T[i] = initial(t, i);
        R[i] = -1;
    }
    int base = op >= O_RPUT ? op - O_RPUT + O_PUT : op;
    for (int k = 0; k < s.n; k++) {
        int *tv = &T[s.tidx[k]], ov = origin_val(o, s.oidx[k]);
        switch (base) {
        case O_PUT: *tv = ov; break;
        case O_GET: R[s.oidx[k]] = *tv; break;
        case O_ACC: *tv += ov; break;
        case O_GACC: R[s.oidx[k]] = *tv; *tv += ov; break;
        case O_FOP: R[0] = *tv; if (!derived) *tv += ov; break;
        case O_CAS:
            R[0] = *tv;
            if (!derived) /* the compare value matches only then */
                *tv = ov;
            break;
        }
    }
}

static MPI_Win win;

static void run_op(int op, int derived, int t, const int *obuf, int *rbuf)
{
    shape_t s = shape_of(op, derived);
    MPI_Datatype ot = derived ? ovec : MPI_INT, tt = derived ? tvec : MPI_INT;
    int count = derived ? 1 : s.n, rc = MPI_SUCCESS;
    MPI_Request req = MPI_REQUEST_NULL;
    int compare = derived ? -7 : initial(t, 5);
    switch (op) {
    case O_PUT: rc = MPI_Put(obuf, count, ot, t, 4, count, tt, win); break;
    case O_GET: rc = MPI_Get(rbuf, count, ot, t, 4, count, tt, win); break;
    case O_ACC:
        rc = MPI_Accumulate(obuf, count, ot, t, 4, count, tt, MPI_SUM, win);
        break;
    case O_GACC:
        rc = MPI_Get_accumulate(obuf, count, ot, rbuf, count, ot, t, 4, count,
                                tt, MPI_SUM, win);
        break;
    case O_FOP:
        rc = MPI_Fetch_and_op(obuf, rbuf, MPI_INT, t, 5,
                              derived ? MPI_NO_OP : MPI_SUM, win);
        break;
    case O_CAS:
        rc = MPI_Compare_and_swap(obuf, &compare, rbuf, MPI_INT, t, 5, win);
        break;
    case O_RPUT: rc = MPI_Rput(obuf, count, ot, t, 4, count, tt, win, &req); break;
    case O_RGET: rc = MPI_Rget(rbuf, count, ot, t, 4, count, tt, win, &req); break;
    case O_RACC:
        rc = MPI_Raccumulate(obuf, count, ot, t, 4, count, tt, MPI_SUM, win, &req);
        break;
    case O_RGACC:
        rc = MPI_Rget_accumulate(obuf, count, ot, rbuf, count, ot, t, 4, count,
                                 tt, MPI_SUM, win, &req);
        break;
    }
    CHECK(rc == MPI_SUCCESS, "%s returned %d", op_name[op], rc);
    if (req != MPI_REQUEST_NULL) {
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait");
        CHECK(req == MPI_REQUEST_NULL, "request not freed");
    }
}

static void group_of(int r, MPI_Group *g)
{
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &r, g);
    MPI_Group_free(&world);
}

static void round_once(int mode, int op, int derived, int shift)
{
    int t = (rank + shift) % size, o = (rank - shift + size) % size;
    int obuf[WIN_INTS], rbuf[WIN_INTS], T[WIN_INTS], R[WIN_INTS];
    for (int i = 0; i < WIN_INTS; i++) {
        winbuf[i] = initial(rank, i);
        obuf[i] = origin_val(rank, i);
        rbuf[i] = -1;
    }
    MPI_Group tg = MPI_GROUP_NULL, og = MPI_GROUP_NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    switch (mode) {
    case M_FENCE: MPI_Win_fence(MPI_MODE_NOPRECEDE, win); break;
    case M_PSCW:
        group_of(t, &tg);
        group_of(o, &og);
        MPI_Win_post(og, 0, win);
        MPI_Win_start(tg, 0, win);
        break;
    case M_LOCK: MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win); break;
    case M_LOCK_ALL: MPI_Win_lock_all(0, win); break;
    }
    run_op(op, derived, t, obuf, rbuf);
    switch (mode) {
    case M_FENCE: MPI_Win_fence(MPI_MODE_NOSUCCEED, win); break;
    case M_PSCW:
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        MPI_Group_free(&tg);
        MPI_Group_free(&og);
        break;
    case M_LOCK:
        MPI_Win_flush(t, win);
        MPI_Win_unlock(t, win);
        break;
    case M_LOCK_ALL:
        MPI_Win_flush_all(win);
        MPI_Win_unlock_all(win);
        break;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    model(op, derived, o, rank, T, R);
    for (int i = 0; i < WIN_INTS; i++)
        CHECK(winbuf[i] == T[i], "%s %s %s %s: my window[%d] = %d, want %d (origin %d)",
              mode_name[mode], op_name[op], derived ? "derived" : "contig",
              shift ? "remote" : "self", i, winbuf[i], T[i], o);
    model(op, derived, rank, t, T, R);
    for (int i = 0; i < WIN_INTS; i++)
        CHECK(rbuf[i] == R[i], "%s %s %s %s: result[%d] = %d, want %d (target %d)",
              mode_name[mode], op_name[op], derived ? "derived" : "contig",
              shift ? "remote" : "self", i, rbuf[i], R[i], t);
}

/* Every predefined op once, on a remote int, under fence. */
static void every_op(void)
{
    static const MPI_Op ops[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,
                                 MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR,
                                 MPI_REPLACE, MPI_NO_OP};
    const int a = 12, b = 10; /* target holds a, origin brings b */
    const int want[] = {12, 10, 22, 120, 1, 1, 0, 12 & 10, 12 | 10, 12 ^ 10, 10, 12};
    int t = (rank + 1) % size;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        winbuf[0] = a;
        int got = -1;
        MPI_Win_fence(0, win);
        MPI_Get_accumulate(&b, 1, MPI_INT, &got, 1, MPI_INT, t, 0, 1, MPI_INT, ops[k], win);
        MPI_Win_fence(0, win);
        CHECK(got == a, "op #%zu: fetched %d, want %d", k, got, a);
        CHECK(winbuf[0] == want[k], "op #%zu: window holds %d, want %d", k, winbuf[0], want[k]);
    }
    /* MPI_MAXLOC on (value, index) pairs. */
    int pair_origin[2] = {50, rank}, *pair = winbuf;
    pair[0] = 40;
    pair[1] = 99;
    MPI_Win_fence(0, win);
    MPI_Accumulate(pair_origin, 1, MPI_2INT, t, 0, 1, MPI_2INT, MPI_MAXLOC, win);
    MPI_Win_fence(0, win);
    int from = (rank - 1 + size) % size;
    CHECK(pair[0] == 50 && pair[1] == from, "maxloc gave (%d, %d), want (50, %d)",
          pair[0], pair[1], from);
}

/* Many large gets in one epoch (MPICH rma/manyget): all land, and the
 * target never holds the replies of all of them at once (issuing waits
 * once enough are in flight), so its peak memory stays far below their
 * sum (GETS x GET_BYTES = 256 MiB). */
#define GETS 2048
#define GET_BYTES (128 * 1024)
static void many_gets(void)
{
    char *mem = malloc(GET_BYTES), *into = malloc(GET_BYTES);
    for (int i = 0; i < GET_BYTES; i++)
        mem[i] = (char)(i * 7 + rank);
    MPI_Win w;
    MPI_Win_create(mem, GET_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    MPI_Win_fence(0, w);
    int from = (rank + 1) % size;
    for (int i = 0; i < GETS; i++)
        MPI_Get(into, GET_BYTES, MPI_BYTE, from, 0, GET_BYTES, MPI_BYTE, w);
    MPI_Win_fence(0, w);
    getrusage(RUSAGE_SELF, &after);
    for (int i = 0; i < GET_BYTES; i++)
        CHECK(into[i] == (char)(i * 7 + from), "get byte %d", i);
    long grew_kib = after.ru_maxrss - before.ru_maxrss;
#if !defined(__SANITIZE_ADDRESS__) /* ASan's quarantine keeps freed memory */
    CHECK(grew_kib < 128 * 1024, "peak memory grew by %ld KiB during %d gets of %d bytes",
          grew_kib, GETS, GET_BYTES);
#else
    (void)grew_kib;
#endif
    MPI_Win_free(&w);
    free(mem);
    free(into);
}

/* The large-count forms: each operation once on a window of
 * MPI_Win_allocate_c (and the shared one of MPI_Win_allocate_shared_c
 * through MPI_Win_shared_query_c), values checked. */
static void large_count_forms(void)
{
    int *mem = NULL, t = (rank + 1) % size, from = (rank - 1 + size) % size;
    MPI_Win w;
    CHECK(MPI_Win_allocate_c(8 * sizeof(int), (MPI_Aint)sizeof(int), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &mem, &w) == MPI_SUCCESS, "Win_allocate_c");
    for (int i = 0; i < 8; i++)
        mem[i] = 10 * rank + i;
    int two[2] = {1000 + rank, 2000 + rank}, got[2] = {-1, -1}, old[2] = {-1, -1};
    int one = 1, fetched[2] = {-1, -1};
    MPI_Request req[3];
    MPI_Win_fence(0, w);
    MPI_Put_c(two, 2, MPI_INT, t, 0, 2, MPI_INT, w);
    MPI_Get_c(got, 2, MPI_INT, t, 4, 2, MPI_INT, w);
    MPI_Accumulate_c(&one, 1, MPI_INT, t, 6, 1, MPI_INT, MPI_SUM, w);
    MPI_Get_accumulate_c(&one, 1, MPI_INT, &old[0], 1, MPI_INT, t, 7, 1, MPI_INT,
                         MPI_SUM, w);
    MPI_Rget_c(&fetched[0], 1, MPI_INT, t, 5, 1, MPI_INT, w, &req[0]);
    MPI_Raccumulate_c(&one, 1, MPI_INT, t, 6, 1, MPI_INT, MPI_SUM, w, &req[1]);
    MPI_Rget_accumulate_c(&one, 1, MPI_INT, &old[1], 1, MPI_INT, t, 2, 1, MPI_INT,
                          MPI_NO_OP, w, &req[2]);
    MPI_Waitall(3, req, MPI_STATUSES_IGNORE);
    MPI_Win_fence(0, w);
    MPI_Rput_c(&one, 1, MPI_INT, t, 3, 1, MPI_INT, w, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    MPI_Win_fence(0, w);
    CHECK(mem[0] == 1000 + from && mem[1] == 2000 + from, "Put_c");
    CHECK(got[0] == 10 * t + 4 && got[1] == 10 * t + 5, "Get_c");
    CHECK(mem[6] == 10 * rank + 6 + 2, "Accumulate_c and Raccumulate_c: %d", mem[6]);
    CHECK(old[0] == 10 * t + 7 && mem[7] == 10 * rank + 8, "Get_accumulate_c");
    CHECK(fetched[0] == 10 * t + 5 && old[1] == 10 * t + 2, "Rget_c, Rget_accumulate_c");
    CHECK(mem[3] == 1, "Rput_c");
    MPI_Win_free(&w);

    int *piece = NULL;
    CHECK(MPI_Win_allocate_shared_c(4 * sizeof(int), (MPI_Aint)sizeof(int), MPI_INFO_NULL,
                                    MPI_COMM_WORLD, &piece, &w) == MPI_SUCCESS,
          "Win_allocate_shared_c");
    MPI_Aint bytes, unit;
    int *theirs = NULL;
    MPI_Win_shared_query_c(w, t, &bytes, &unit, &theirs);
    CHECK(bytes == 4 * (MPI_Aint)sizeof(int) && unit == (MPI_Aint)sizeof(int) && theirs,
          "Win_shared_query_c: %ld bytes, unit %ld", (long)bytes, (long)unit);
    MPI_Win_free(&w);
    int plain[2];
    CHECK(MPI_Win_create_c(plain, sizeof plain, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w) ==
              MPI_SUCCESS, "Win_create_c");
    MPI_Win_free(&w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_vector(4, 1, 2, MPI_INT, &tvec);
    MPI_Type_vector(4, 1, 3, MPI_INT, &ovec);
    MPI_Type_commit(&tvec);
    MPI_Type_commit(&ovec);
    winbuf = calloc(WIN_INTS, sizeof(int));
    CHECK(MPI_Win_create(winbuf, WIN_INTS * sizeof(int), sizeof(int), MPI_INFO_NULL,
                         MPI_COMM_WORLD, &win) == MPI_SUCCESS, "Win_create");
    for (int mode = 0; mode < NMODES; mode++)
        for (int op = 0; op < NOPS; op++)
            for (int derived = 0; derived < 2; derived++)
                for (int shift = 0; shift < (size > 1 ? 2 : 1); shift++)
                    round_once(mode, op, derived, shift);
    every_op();
    MPI_Win_free(&win);
    many_gets();
    large_count_forms();
    CHECK(win == MPI_WIN_NULL, "Win_free left the handle");
    free(winbuf);
    MPI_Type_free(&tvec);
    MPI_Type_free(&ovec);
    if (rank == 0)
        printf("rma_ops: %d modes x %d operations x 2 types x %s passed\n", NMODES, NOPS,
               size > 1 ? "self and remote" : "self");
    MPI_Finalize();
    return 0;
}
