/* Table-driven bad input: every case calls one MPI function with exactly one
 * invalid argument under MPI_ERRORS_RETURN and checks the error class it
 * returns.  Point-to-point and collective cases are a cross product of the
 * calls with the argument faults that apply to them; groups, communicators,
 * datatypes, info, attributes, ops and requests are listed one by one.
 *
 * Invalid arguments of collectives are always the same on every rank, so a
 * call that wrongly goes ahead does so everywhere and cannot hang.  Sends
 * and receives whose fault is not the peer use MPI_PROC_NULL, so a call that
 * wrongly succeeds moves no data.  Every mismatch is printed; the test fails
 * at the end if there was one.  MT_MPICH_QUIRKS=1 accepts MPICH 4.0.2's own
 * answers for the cases marked as such (each says how MPICH differs). */
#include "mpitest.h"
#include <limits.h>

#define BT_MAXP 8

static struct {
    int rank, size, tag_ub;
    int sbuf[64], rbuf[64];
    int scounts[BT_MAXP], rcounts[BT_MAXP], displs[BT_MAXP];
    MPI_Datatype stypes[BT_MAXP], rtypes[BT_MAXP];
    int ncases, nbad, nquirk, nskip, ndefect;
} bt;

/* ---- stale and odd handles ---- */

static MPI_Comm bt_freed_comm(void)
{
    MPI_Comm c, stale;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    stale = c;
    MPI_Comm_free(&c);
    return stale;
}

static MPI_Datatype bt_freed_type(void)
{
    MPI_Datatype t, stale;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_commit(&t);
    stale = t;
    MPI_Type_free(&t);
    return stale;
}

/* Freed by the caller after use. */
static MPI_Datatype bt_uncommitted_type(void)
{
    MPI_Datatype t;
    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
    return t;
}

static MPI_Group bt_freed_group(void)
{
    MPI_Group g, stale;
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    stale = g;
    MPI_Group_free(&g);
    return stale;
}

static void bt_user_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in, (void)inout, (void)len, (void)type;
}

static MPI_Op bt_freed_op(void)
{
    MPI_Op op, stale;
    MPI_Op_create(bt_user_fn, 1, &op);
    stale = op;
    MPI_Op_free(&op);
    return stale;
}

static MPI_Info bt_freed_info(void)
{
    MPI_Info info, stale;
    MPI_Info_create(&info);
    stale = info;
    MPI_Info_free(&info);
    return stale;
}

static int bt_freed_keyval(void)
{
    int kv, stale;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL);
    stale = kv;
    MPI_Comm_free_keyval(&kv);
    return stale;
}

/* ---- the verdict ---- */

/* quirk: non-NULL when MPICH 4.0.2 answers differently; says how. */
static void bt_judge(const char *call, const char *fault, int rc, int want, const char *quirk)
{
    bt.ncases++;
    if (rc != MPI_SUCCESS && mt_class(rc) == want)
        return;
    if (quirk && mt_mpich_quirks()) {
        bt.nquirk++;
        return;
    }
    bt.nbad++;
    if (rc == MPI_SUCCESS)
        fprintf(stderr, "rank %d: %s with %s: MPI_SUCCESS, want class %d\n", bt.rank, call, fault,
                want);
    else
        fprintf(stderr, "rank %d: %s with %s: class %d (%s), want %d\n", bt.rank, call, fault,
                mt_class(rc), mt_errstr(rc), want);
}

/* A quirk text starting with '!' means MPICH crashes on the case: with
 * MT_MPICH_QUIRKS=1 it is not run at all. */
static int bt_skipped(const char *quirk)
{
    if (!quirk || quirk[0] != '!' || !mt_mpich_quirks())
        return 0;
    bt.nskip++;
    return 1;
}

/* Completes or releases a request a faulty call wrongly handed out. */
static void bt_drop(MPI_Request *req, int persistent)
{
    if (*req == MPI_REQUEST_NULL)
        return;
    if (persistent) {
        MPI_Request_free(req);
        return;
    }
    MPI_Cancel(req);
    MPI_Wait(req, MPI_STATUS_IGNORE);
}

/* ---- point-to-point: calls x faults ---- */

struct bt_p2p {
    void *buf;
    int count;
    MPI_Datatype type;
    int peer, tag;
    MPI_Comm comm;
    MPI_Datatype to_free; /* an uncommitted type to release afterwards */
};

enum bt_fault_arg { BT_A_COMM, BT_A_TYPE, BT_A_COUNT, BT_A_PEER, BT_A_TAG, BT_A_BUF };

#define BT_Q_FREED_TYPE "!MPICH does not detect a freed datatype (yaksa asserts)"
#define BT_Q_FREED_COMM "!MPICH does not detect a freed communicator"

struct bt_p2p_fault {
    const char *name;
    enum bt_fault_arg arg;
    int want;
    int for_send; /* 1: sends only, 0: both, -1: receives only */
    const char *quirk;
};

static const struct bt_p2p_fault bt_p2p_faults[] = {
    {"MPI_COMM_NULL", BT_A_COMM, MPI_ERR_COMM, 0, NULL},
    {"a datatype as communicator", BT_A_COMM, MPI_ERR_COMM, 0, NULL},
    {"a freed communicator", BT_A_COMM, MPI_ERR_COMM, 0, NULL},
    {"MPI_DATATYPE_NULL", BT_A_TYPE, MPI_ERR_TYPE, 0, NULL},
    {"a freed datatype", BT_A_TYPE, MPI_ERR_TYPE, 0, BT_Q_FREED_TYPE},
    {"an uncommitted datatype", BT_A_TYPE, MPI_ERR_TYPE, 0, NULL},
    {"a communicator as datatype", BT_A_TYPE, MPI_ERR_TYPE, 0, NULL},
    {"count -1", BT_A_COUNT, MPI_ERR_COUNT, 0, NULL},
    {"peer = size", BT_A_PEER, MPI_ERR_RANK, 0, NULL},
    {"peer -5", BT_A_PEER, MPI_ERR_RANK, 0, NULL},
    {"tag MPI_ANY_TAG", BT_A_TAG, MPI_ERR_TAG, 1, NULL},
    {"tag -5", BT_A_TAG, MPI_ERR_TAG, 0, NULL},
    {"tag TAG_UB + 1", BT_A_TAG, MPI_ERR_TAG, 0, NULL},
    {"NULL buffer, count 4", BT_A_BUF, MPI_ERR_BUFFER, 0, NULL},
    {"MPI_IN_PLACE buffer", BT_A_BUF, MPI_ERR_BUFFER, 1,
     "MPICH does not check MPI_IN_PLACE in point-to-point"},
};
#define BT_NP2P_FAULTS ((int)(sizeof bt_p2p_faults / sizeof bt_p2p_faults[0]))

/* Applies fault i to a valid argument set. */
static void bt_p2p_apply(int i, struct bt_p2p *a)
{
    switch (i) {
    case 0: a->comm = MPI_COMM_NULL; break;
    case 1: a->comm = (MPI_Comm)MPI_INT; break;
    case 2: a->comm = bt_freed_comm(); break;
    case 3: a->type = MPI_DATATYPE_NULL; break;
    case 4: a->type = bt_freed_type(); break;
    case 5: a->type = a->to_free = bt_uncommitted_type(); break;
    case 6: a->type = (MPI_Datatype)MPI_COMM_WORLD; break;
    case 7: a->count = -1; break;
    case 8: a->peer = bt.size; break;
    case 9: a->peer = -5; break;
    case 10: a->tag = MPI_ANY_TAG; break;
    case 11: a->tag = -5; break;
    case 12: a->tag = bt.tag_ub < INT_MAX ? bt.tag_ub + 1 : -7; break;
    case 13: a->buf = NULL, a->count = 4; break;
    case 14: a->buf = MPI_IN_PLACE; break;
    }
}

static const char *const bt_send_names[] = {
    "MPI_Send",      "MPI_Ssend",      "MPI_Rsend",      "MPI_Bsend",
    "MPI_Isend",     "MPI_Issend",     "MPI_Irsend",     "MPI_Ibsend",
    "MPI_Send_init", "MPI_Ssend_init", "MPI_Rsend_init", "MPI_Bsend_init",
};

static int bt_send_call(int kind, const struct bt_p2p *a)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_ERR_INTERN;
    switch (kind) {
    case 0: rc = MPI_Send(a->buf, a->count, a->type, a->peer, a->tag, a->comm); break;
    case 1: rc = MPI_Ssend(a->buf, a->count, a->type, a->peer, a->tag, a->comm); break;
    case 2: rc = MPI_Rsend(a->buf, a->count, a->type, a->peer, a->tag, a->comm); break;
    case 3: rc = MPI_Bsend(a->buf, a->count, a->type, a->peer, a->tag, a->comm); break;
    case 4: rc = MPI_Isend(a->buf, a->count, a->type, a->peer, a->tag, a->comm, &req); break;
    case 5: rc = MPI_Issend(a->buf, a->count, a->type, a->peer, a->tag, a->comm, &req); break;
    case 6: rc = MPI_Irsend(a->buf, a->count, a->type, a->peer, a->tag, a->comm, &req); break;
    case 7: rc = MPI_Ibsend(a->buf, a->count, a->type, a->peer, a->tag, a->comm, &req); break;
    case 8: rc = MPI_Send_init(a->buf, a->count, a->type, a->peer, a->tag, a->comm, &req); break;
    case 9: rc = MPI_Ssend_init(a->buf, a->count, a->type, a->peer, a->tag, a->comm, &req); break;
    case 10: rc = MPI_Rsend_init(a->buf, a->count, a->type, a->peer, a->tag, a->comm, &req); break;
    case 11: rc = MPI_Bsend_init(a->buf, a->count, a->type, a->peer, a->tag, a->comm, &req); break;
    }
    bt_drop(&req, kind >= 8);
    return rc;
}

static const char *const bt_recv_names[] = {"MPI_Recv", "MPI_Irecv", "MPI_Recv_init"};

static int bt_recv_call(int kind, const struct bt_p2p *a)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_ERR_INTERN;
    switch (kind) {
    case 0:
        rc = MPI_Recv(a->buf, a->count, a->type, a->peer, a->tag, a->comm, MPI_STATUS_IGNORE);
        break;
    case 1: rc = MPI_Irecv(a->buf, a->count, a->type, a->peer, a->tag, a->comm, &req); break;
    case 2: rc = MPI_Recv_init(a->buf, a->count, a->type, a->peer, a->tag, a->comm, &req); break;
    }
    bt_drop(&req, kind == 2);
    return rc;
}

static const char *const bt_probe_names[] = {"MPI_Probe", "MPI_Iprobe", "MPI_Mprobe",
                                             "MPI_Improbe"};

static int bt_probe_call(int kind, const struct bt_p2p *a)
{
    int flag = 0;
    MPI_Message msg = MPI_MESSAGE_NULL;
    switch (kind) {
    case 0: return MPI_Probe(a->peer, a->tag, a->comm, MPI_STATUS_IGNORE);
    case 1: return MPI_Iprobe(a->peer, a->tag, a->comm, &flag, MPI_STATUS_IGNORE);
    case 2: return MPI_Mprobe(a->peer, a->tag, a->comm, &msg, MPI_STATUS_IGNORE);
    case 3: return MPI_Improbe(a->peer, a->tag, a->comm, &flag, &msg, MPI_STATUS_IGNORE);
    }
    return MPI_ERR_INTERN;
}

/* A valid set: one int to or from MPI_PROC_NULL, unless the peer is the fault. */
static void bt_p2p_base(struct bt_p2p *a, int fault)
{
    a->buf = bt.sbuf;
    a->count = 1;
    a->type = MPI_INT;
    a->peer = MPI_PROC_NULL;
    a->tag = 3;
    a->comm = MPI_COMM_WORLD;
    a->to_free = MPI_DATATYPE_NULL;
    bt_p2p_apply(fault, a);
}

static void bt_p2p_done(struct bt_p2p *a)
{
    if (a->to_free != MPI_DATATYPE_NULL)
        MPI_Type_free(&a->to_free);
}

static void bt_run_p2p(void)
{
    static char bsend_space[4096 + MPI_BSEND_OVERHEAD];
    struct bt_p2p a;
    MPI_Buffer_attach(bsend_space, sizeof bsend_space);
    for (int f = 0; f < BT_NP2P_FAULTS; f++) {
        const struct bt_p2p_fault *ft = &bt_p2p_faults[f];
        for (int k = 0; k < 12 && ft->for_send >= 0; k++) {
            if (bt_skipped(ft->quirk))
                continue;
            bt_p2p_base(&a, f);
            bt_judge(bt_send_names[k], ft->name, bt_send_call(k, &a), ft->want, ft->quirk);
            bt_p2p_done(&a);
        }
        for (int k = 0; k < 3 && ft->for_send <= 0; k++) {
            if (bt_skipped(ft->quirk))
                continue;
            bt_p2p_base(&a, f);
            bt_judge(bt_recv_names[k], ft->name, bt_recv_call(k, &a), ft->want, ft->quirk);
            bt_p2p_done(&a);
        }
        if (ft->for_send > 0 || (ft->arg != BT_A_COMM && ft->arg != BT_A_PEER && ft->arg != BT_A_TAG))
            continue;
        for (int k = 0; k < 4; k++) {
            if (bt_skipped(ft->quirk))
                continue;
            bt_p2p_base(&a, f);
            bt_judge(bt_probe_names[k], ft->name, bt_probe_call(k, &a), ft->want, ft->quirk);
        }
    }
    void *space;
    int space_size;
    MPI_Buffer_detach(&space, &space_size);
}

/* ---- collectives: calls x faults ---- */

enum {
    BT_F_COMM = 1 << 0,
    BT_F_STYPE = 1 << 1,
    BT_F_SCOUNT = 1 << 2,
    BT_F_RTYPE = 1 << 3,
    BT_F_RCOUNT = 1 << 4,
    BT_F_ROOT = 1 << 5,
    BT_F_OP = 1 << 6,
    BT_F_SBUF = 1 << 7,
    BT_F_INPLACE = 1 << 8,
    BT_F_RCOUNTS = 1 << 9,
    BT_F_RBUF = 1 << 10
};

struct bt_coll {
    void *sbuf, *rbuf;
    int scount, rcount, root;
    MPI_Datatype stype, rtype;
    MPI_Op op;
    MPI_Comm comm;
    int bad_rcount_entry; /* 1: rcounts[size - 1] is -1 */
};

struct bt_coll_call {
    const char *name;
    int applies; /* BT_F_* */
};

/* Blocking kinds 0..16, then the same order non-blocking (17..33). */
static const struct bt_coll_call bt_colls[] = {
    {"MPI_Barrier", BT_F_COMM},
    {"MPI_Bcast", BT_F_COMM | BT_F_STYPE | BT_F_SCOUNT | BT_F_ROOT | BT_F_SBUF},
    {"MPI_Gather", BT_F_COMM | BT_F_STYPE | BT_F_SCOUNT | BT_F_ROOT | BT_F_SBUF},
    {"MPI_Gatherv", BT_F_COMM | BT_F_STYPE | BT_F_SCOUNT | BT_F_ROOT | BT_F_SBUF},
    {"MPI_Scatter", BT_F_COMM | BT_F_RTYPE | BT_F_RCOUNT | BT_F_ROOT | BT_F_RBUF},
    {"MPI_Scatterv", BT_F_COMM | BT_F_RTYPE | BT_F_RCOUNT | BT_F_ROOT | BT_F_RBUF},
    {"MPI_Allgather", BT_F_COMM | BT_F_STYPE | BT_F_SCOUNT | BT_F_RTYPE | BT_F_RCOUNT |
                          BT_F_INPLACE | BT_F_RBUF},
    {"MPI_Allgatherv", BT_F_COMM | BT_F_STYPE | BT_F_SCOUNT | BT_F_RTYPE | BT_F_RCOUNTS |
                           BT_F_INPLACE | BT_F_RBUF},
    {"MPI_Alltoall", BT_F_COMM | BT_F_STYPE | BT_F_SCOUNT | BT_F_RTYPE | BT_F_RCOUNT |
                         BT_F_INPLACE | BT_F_SBUF},
    {"MPI_Alltoallv", BT_F_COMM | BT_F_STYPE | BT_F_RTYPE | BT_F_RCOUNTS | BT_F_INPLACE},
    {"MPI_Alltoallw", BT_F_COMM | BT_F_STYPE | BT_F_RTYPE | BT_F_RCOUNTS | BT_F_INPLACE},
    {"MPI_Reduce", BT_F_COMM | BT_F_STYPE | BT_F_SCOUNT | BT_F_ROOT | BT_F_OP | BT_F_SBUF},
    {"MPI_Allreduce", BT_F_COMM | BT_F_STYPE | BT_F_SCOUNT | BT_F_OP | BT_F_INPLACE | BT_F_SBUF |
                          BT_F_RBUF},
    {"MPI_Reduce_scatter", BT_F_COMM | BT_F_STYPE | BT_F_OP | BT_F_RCOUNTS | BT_F_INPLACE},
    {"MPI_Reduce_scatter_block", BT_F_COMM | BT_F_STYPE | BT_F_SCOUNT | BT_F_OP | BT_F_INPLACE},
    {"MPI_Scan", BT_F_COMM | BT_F_STYPE | BT_F_SCOUNT | BT_F_OP | BT_F_INPLACE | BT_F_SBUF},
    {"MPI_Exscan", BT_F_COMM | BT_F_STYPE | BT_F_SCOUNT | BT_F_OP | BT_F_INPLACE},
};
#define BT_NCOLLS ((int)(sizeof bt_colls / sizeof bt_colls[0]))

static const char *const bt_icoll_names[] = {
    "MPI_Ibarrier",   "MPI_Ibcast",        "MPI_Igather",     "MPI_Igatherv",
    "MPI_Iscatter",   "MPI_Iscatterv",     "MPI_Iallgather",  "MPI_Iallgatherv",
    "MPI_Ialltoall",  "MPI_Ialltoallv",    "MPI_Ialltoallw",  "MPI_Ireduce",
    "MPI_Iallreduce", "MPI_Ireduce_scatter", "MPI_Ireduce_scatter_block",
    "MPI_Iscan",      "MPI_Iexscan",
};

static int bt_coll_rooted(int kind, const struct bt_coll *c, MPI_Request *rq)
{
    switch (kind) {
    case 1:
        return rq ? MPI_Ibcast(c->sbuf, c->scount, c->stype, c->root, c->comm, rq)
                  : MPI_Bcast(c->sbuf, c->scount, c->stype, c->root, c->comm);
    case 2:
        return rq ? MPI_Igather(c->sbuf, c->scount, c->stype, c->rbuf, 1, MPI_INT, c->root,
                                c->comm, rq)
                  : MPI_Gather(c->sbuf, c->scount, c->stype, c->rbuf, 1, MPI_INT, c->root,
                               c->comm);
    case 3:
        return rq ? MPI_Igatherv(c->sbuf, c->scount, c->stype, c->rbuf, bt.rcounts, bt.displs,
                                 MPI_INT, c->root, c->comm, rq)
                  : MPI_Gatherv(c->sbuf, c->scount, c->stype, c->rbuf, bt.rcounts, bt.displs,
                                MPI_INT, c->root, c->comm);
    case 4:
        return rq ? MPI_Iscatter(bt.sbuf, 1, MPI_INT, c->rbuf, c->rcount, c->rtype, c->root,
                                 c->comm, rq)
                  : MPI_Scatter(bt.sbuf, 1, MPI_INT, c->rbuf, c->rcount, c->rtype, c->root,
                                c->comm);
    case 5:
        return rq ? MPI_Iscatterv(bt.sbuf, bt.scounts, bt.displs, MPI_INT, c->rbuf, c->rcount,
                                  c->rtype, c->root, c->comm, rq)
                  : MPI_Scatterv(bt.sbuf, bt.scounts, bt.displs, MPI_INT, c->rbuf, c->rcount,
                                 c->rtype, c->root, c->comm);
    case 11:
        return rq ? MPI_Ireduce(c->sbuf, c->rbuf, c->scount, c->stype, c->op, c->root, c->comm,
                                rq)
                  : MPI_Reduce(c->sbuf, c->rbuf, c->scount, c->stype, c->op, c->root, c->comm);
    }
    return MPI_ERR_INTERN;
}

static int bt_coll_gathers(int kind, const struct bt_coll *c, MPI_Request *rq)
{
    switch (kind) {
    case 6:
        return rq ? MPI_Iallgather(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype,
                                   c->comm, rq)
                  : MPI_Allgather(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype,
                                  c->comm);
    case 7:
        return rq ? MPI_Iallgatherv(c->sbuf, c->scount, c->stype, c->rbuf, bt.rcounts, bt.displs,
                                    c->rtype, c->comm, rq)
                  : MPI_Allgatherv(c->sbuf, c->scount, c->stype, c->rbuf, bt.rcounts, bt.displs,
                                   c->rtype, c->comm);
    case 8:
        return rq ? MPI_Ialltoall(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype,
                                  c->comm, rq)
                  : MPI_Alltoall(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype,
                                 c->comm);
    case 9:
        return rq ? MPI_Ialltoallv(c->sbuf, bt.scounts, bt.displs, c->stype, c->rbuf, bt.rcounts,
                                   bt.displs, c->rtype, c->comm, rq)
                  : MPI_Alltoallv(c->sbuf, bt.scounts, bt.displs, c->stype, c->rbuf, bt.rcounts,
                                  bt.displs, c->rtype, c->comm);
    case 10: {
        int bdispls[BT_MAXP];
        for (int i = 0; i < bt.size; i++) {
            bt.stypes[i] = c->stype, bt.rtypes[i] = c->rtype;
            bdispls[i] = bt.displs[i] * (int)sizeof(int);
        }
        return rq ? MPI_Ialltoallw(c->sbuf, bt.scounts, bdispls, bt.stypes, c->rbuf, bt.rcounts,
                                   bdispls, bt.rtypes, c->comm, rq)
                  : MPI_Alltoallw(c->sbuf, bt.scounts, bdispls, bt.stypes, c->rbuf, bt.rcounts,
                                  bdispls, bt.rtypes, c->comm);
    }
    }
    return MPI_ERR_INTERN;
}

static int bt_coll_reductions(int kind, const struct bt_coll *c, MPI_Request *rq)
{
    switch (kind) {
    case 12:
        return rq ? MPI_Iallreduce(c->sbuf, c->rbuf, c->scount, c->stype, c->op, c->comm, rq)
                  : MPI_Allreduce(c->sbuf, c->rbuf, c->scount, c->stype, c->op, c->comm);
    case 13:
        return rq ? MPI_Ireduce_scatter(c->sbuf, c->rbuf, bt.rcounts, c->stype, c->op, c->comm,
                                        rq)
                  : MPI_Reduce_scatter(c->sbuf, c->rbuf, bt.rcounts, c->stype, c->op, c->comm);
    case 14:
        return rq ? MPI_Ireduce_scatter_block(c->sbuf, c->rbuf, c->scount, c->stype, c->op,
                                              c->comm, rq)
                  : MPI_Reduce_scatter_block(c->sbuf, c->rbuf, c->scount, c->stype, c->op,
                                             c->comm);
    case 15:
        return rq ? MPI_Iscan(c->sbuf, c->rbuf, c->scount, c->stype, c->op, c->comm, rq)
                  : MPI_Scan(c->sbuf, c->rbuf, c->scount, c->stype, c->op, c->comm);
    case 16:
        return rq ? MPI_Iexscan(c->sbuf, c->rbuf, c->scount, c->stype, c->op, c->comm, rq)
                  : MPI_Exscan(c->sbuf, c->rbuf, c->scount, c->stype, c->op, c->comm);
    }
    return MPI_ERR_INTERN;
}

static int bt_coll_call(int kind, int nonblocking, const struct bt_coll *c)
{
    MPI_Request req = MPI_REQUEST_NULL, *rq = nonblocking ? &req : NULL;
    int rc;
    for (int i = 0; i < bt.size; i++) {
        bt.scounts[i] = 1, bt.rcounts[i] = 1, bt.displs[i] = i;
        bt.stypes[i] = MPI_INT, bt.rtypes[i] = MPI_INT;
    }
    if (c->bad_rcount_entry)
        bt.rcounts[bt.size - 1] = -1;
    if (kind == 0)
        rc = nonblocking ? MPI_Ibarrier(c->comm, &req) : MPI_Barrier(c->comm);
    else if (kind <= 5 || kind == 11)
        rc = bt_coll_rooted(kind, c, rq);
    else if (kind <= 10)
        rc = bt_coll_gathers(kind, c, rq);
    else
        rc = bt_coll_reductions(kind, c, rq);
    if (req != MPI_REQUEST_NULL)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    return rc;
}

struct bt_coll_fault {
    const char *name;
    int arg; /* the BT_F_* the fault lies in */
    int want;
    const char *quirk;
};

static const struct bt_coll_fault bt_coll_faults[] = {
    {"MPI_COMM_NULL", BT_F_COMM, MPI_ERR_COMM, NULL},
    {"a group as communicator", BT_F_COMM, MPI_ERR_COMM, NULL},
    {"a freed communicator", BT_F_COMM, MPI_ERR_COMM, NULL},
    {"MPI_DATATYPE_NULL (send side)", BT_F_STYPE, MPI_ERR_TYPE, NULL},
    {"an uncommitted datatype (send side)", BT_F_STYPE, MPI_ERR_TYPE, NULL},
    {"count -1 (send side)", BT_F_SCOUNT, MPI_ERR_COUNT, NULL},
    {"MPI_DATATYPE_NULL (receive side)", BT_F_RTYPE, MPI_ERR_TYPE, NULL},
    {"count -1 (receive side)", BT_F_RCOUNT, MPI_ERR_COUNT, NULL},
    {"a receive count of -1", BT_F_RCOUNTS, MPI_ERR_COUNT, NULL},
    {"root = size", BT_F_ROOT, MPI_ERR_ROOT, NULL},
    {"root -3", BT_F_ROOT, MPI_ERR_ROOT, NULL},
    {"MPI_OP_NULL", BT_F_OP, MPI_ERR_OP, NULL},
    {"a freed op", BT_F_OP, MPI_ERR_OP, "MPICH does not detect a freed op"},
    {"a datatype as op", BT_F_OP, MPI_ERR_OP, NULL},
    {"MPI_BAND on MPI_DOUBLE", BT_F_OP, MPI_ERR_OP, NULL},
    {"NULL send buffer, count 1", BT_F_SBUF, MPI_ERR_BUFFER, NULL},
    {"NULL receive buffer, count 1", BT_F_RBUF, MPI_ERR_BUFFER, NULL},
    {"MPI_IN_PLACE as receive buffer", BT_F_INPLACE, MPI_ERR_BUFFER, NULL},
};
#define BT_NCOLL_FAULTS ((int)(sizeof bt_coll_faults / sizeof bt_coll_faults[0]))

static MPI_Datatype bt_coll_apply(int i, struct bt_coll *c)
{
    MPI_Datatype to_free = MPI_DATATYPE_NULL;
    switch (i) {
    case 0: c->comm = MPI_COMM_NULL; break;
    case 1: c->comm = (MPI_Comm)MPI_GROUP_EMPTY; break;
    case 2: c->comm = bt_freed_comm(); break;
    case 3: c->stype = MPI_DATATYPE_NULL; break;
    case 4: c->stype = to_free = bt_uncommitted_type(); break;
    case 5: c->scount = -1; break;
    case 6: c->rtype = MPI_DATATYPE_NULL; break;
    case 7: c->rcount = -1; break;
    case 8: c->bad_rcount_entry = 1; break;
    case 9: c->root = bt.size; break;
    case 10: c->root = -3; break;
    case 11: c->op = MPI_OP_NULL; break;
    case 12: c->op = bt_freed_op(); break;
    case 13: c->op = (MPI_Op)MPI_INT; break;
    case 14: c->op = MPI_BAND, c->stype = MPI_DOUBLE; break;
    case 15: c->sbuf = NULL; break;
    case 16: c->rbuf = NULL; break;
    case 17: c->rbuf = MPI_IN_PLACE; break;
    }
    return to_free;
}

static const char *bt_coll_quirk(int kind, int f)
{
    int reduction = bt_colls[kind].applies & BT_F_OP;
    if (reduction && bt_coll_faults[f].arg == BT_F_STYPE)
        return "MPICH checks the op against the datatype first (MPI_ERR_OP)";
    if (reduction && bt_coll_faults[f].arg == BT_F_SCOUNT)
        return "!MPICH does not check a reduction's count (memcpy of -4 bytes)";
    return bt_coll_faults[f].quirk;
}

/* Cases hcmpi is known to get wrong so badly (a crash) that they cannot run
 * in make check yet; they are counted and named, and BT_RUN_DEFECTS=1 runs
 * them anyway. */
static const char *bt_coll_defect(int kind, int f)
{
    (void)kind, (void)f;
    return NULL;
}

static int bt_defect_skipped(const char *call, const char *fault, const char *defect)
{
    if (!defect || mt_mpich_quirks() || getenv("BT_RUN_DEFECTS"))
        return 0;
    bt.ndefect++;
    if (bt.rank == 0)
        printf("not run (known hcmpi defect): %s with %s: %s\n", call, fault, defect);
    return 1;
}

static void bt_run_coll(void)
{
    for (int f = 0; f < BT_NCOLL_FAULTS; f++) {
        const struct bt_coll_fault *ft = &bt_coll_faults[f];
        for (int k = 0; k < 2 * BT_NCOLLS; k++) {
            int kind = k % BT_NCOLLS, nb = k >= BT_NCOLLS;
            if (!(bt_colls[kind].applies & ft->arg) || bt_skipped(bt_coll_quirk(kind, f)))
                continue;
            const char *name = nb ? bt_icoll_names[kind] : bt_colls[kind].name;
            if (getenv("BT_TRACE"))
                fprintf(stderr, "trace: %s with %s\n", name, ft->name);
            if (bt_defect_skipped(name, ft->name, bt_coll_defect(kind, f)))
                continue;
            struct bt_coll c = {bt.sbuf, bt.rbuf, 1, 1, 0, MPI_INT, MPI_INT, MPI_SUM,
                                MPI_COMM_WORLD, 0};
            MPI_Datatype to_free = bt_coll_apply(f, &c);
            bt_judge(name, ft->name, bt_coll_call(kind, nb, &c), ft->want,
                     bt_coll_quirk(kind, f));
            if (to_free != MPI_DATATYPE_NULL)
                MPI_Type_free(&to_free);
        }
    }
}

/* ---- the rest: one function per case ---- */

struct bt_case {
    const char *call, *fault;
    int (*run)(void);
    int want;
    const char *quirk;
};

static int c_group_size_null(void)
{
    int n;
    return MPI_Group_size(MPI_GROUP_NULL, &n);
}
static int c_group_rank_freed(void)
{
    int r;
    return MPI_Group_rank(bt_freed_group(), &r);
}
static int c_group_size_comm(void)
{
    int n;
    return MPI_Group_size((MPI_Group)MPI_COMM_WORLD, &n);
}
static int c_group_free_null(void)
{
    MPI_Group g = MPI_GROUP_NULL;
    return MPI_Group_free(&g);
}
static int bt_world_group_op(int which, const int *ranks, int n)
{
    MPI_Group w, out = MPI_GROUP_NULL;
    int rc, range[1][3] = {{ranks[0], ranks[1], ranks[2]}};
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    switch (which) {
    case 0: rc = MPI_Group_incl(w, n, ranks, &out); break;
    case 1: rc = MPI_Group_excl(w, n, ranks, &out); break;
    case 2: rc = MPI_Group_range_incl(w, n, range, &out); break;
    default: rc = MPI_Group_range_excl(w, n, range, &out); break;
    }
    if (out != MPI_GROUP_NULL && out != MPI_GROUP_EMPTY)
        MPI_Group_free(&out);
    MPI_Group_free(&w);
    return rc;
}
static int c_group_incl_rank(void)
{
    int r[3] = {bt.size, 0, 1};
    return bt_world_group_op(0, r, 1);
}
static int c_group_incl_dup(void)
{
    int r[3] = {0, 0, 1};
    return bt_world_group_op(0, r, 2);
}
static int c_group_excl_rank(void)
{
    int r[3] = {-2, 0, 1};
    return bt_world_group_op(1, r, 1);
}
static int c_group_range_incl_rank(void)
{
    int r[3] = {0, bt.size, 1};
    return bt_world_group_op(2, r, 1);
}
static int c_group_range_excl_rank(void)
{
    int r[3] = {bt.size + 1, 0, -1};
    return bt_world_group_op(3, r, 1);
}
static int c_group_range_incl_stride0(void)
{
    int r[3] = {0, 1, 0};
    return bt_world_group_op(2, r, 1);
}
static int c_group_translate_rank(void)
{
    MPI_Group w;
    int in = bt.size, out = 0;
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    int rc = MPI_Group_translate_ranks(w, 1, &in, w, &out);
    MPI_Group_free(&w);
    return rc;
}
/* The other operand is MPI_GROUP_EMPTY: allocating one here would reuse the
 * slot of a just-freed group and make the stale handle valid again. */
static int bt_group_pair(int which, MPI_Group a)
{
    MPI_Group out = MPI_GROUP_NULL;
    int res, rc;
    switch (which) {
    case 0: rc = MPI_Group_union(a, MPI_GROUP_EMPTY, &out); break;
    case 1: rc = MPI_Group_intersection(MPI_GROUP_EMPTY, a, &out); break;
    case 2: rc = MPI_Group_difference(a, MPI_GROUP_EMPTY, &out); break;
    default: rc = MPI_Group_compare(MPI_GROUP_EMPTY, a, &res); break;
    }
    if (out != MPI_GROUP_NULL && out != MPI_GROUP_EMPTY)
        MPI_Group_free(&out);
    return rc;
}
static int c_group_union_null(void) { return bt_group_pair(0, MPI_GROUP_NULL); }
static int c_group_inter_null(void) { return bt_group_pair(1, MPI_GROUP_NULL); }
static int c_group_diff_freed(void) { return bt_group_pair(2, bt_freed_group()); }
static int c_group_compare_null(void) { return bt_group_pair(3, MPI_GROUP_NULL); }
static int c_group_compare_kind(void) { return bt_group_pair(3, (MPI_Group)MPI_SUM); }

static int c_comm_size_null(void)
{
    int n;
    return MPI_Comm_size(MPI_COMM_NULL, &n);
}
static int c_comm_rank_freed(void)
{
    int r;
    return MPI_Comm_rank(bt_freed_comm(), &r);
}
static int c_comm_size_kind(void)
{
    int n;
    return MPI_Comm_size((MPI_Comm)MPI_INT, &n);
}
static int c_comm_dup_null(void)
{
    MPI_Comm c = MPI_COMM_NULL;
    return MPI_Comm_dup(MPI_COMM_NULL, &c);
}
static int c_comm_free_null(void)
{
    MPI_Comm c = MPI_COMM_NULL;
    return MPI_Comm_free(&c);
}
static int c_comm_free_freed(void)
{
    MPI_Comm c = bt_freed_comm();
    return MPI_Comm_free(&c);
}
static int c_comm_split_null(void)
{
    MPI_Comm c = MPI_COMM_NULL;
    return MPI_Comm_split(MPI_COMM_NULL, 0, 0, &c);
}
static int c_comm_compare_null(void)
{
    int res;
    return MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &res);
}
static int c_comm_group_null(void)
{
    MPI_Group g;
    return MPI_Comm_group(MPI_COMM_NULL, &g);
}
static int c_comm_test_inter_null(void)
{
    int flag;
    return MPI_Comm_test_inter(MPI_COMM_NULL, &flag);
}
static int c_comm_remote_size_intra(void)
{
    int n;
    return MPI_Comm_remote_size(MPI_COMM_WORLD, &n);
}
static int c_comm_remote_group_intra(void)
{
    MPI_Group g;
    return MPI_Comm_remote_group(MPI_COMM_WORLD, &g);
}
static int c_comm_set_name_null(void) { return MPI_Comm_set_name(MPI_COMM_NULL, "x"); }
static int c_comm_get_name_freed(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    return MPI_Comm_get_name(bt_freed_comm(), name, &len);
}
static int c_comm_create_group_null(void)
{
    MPI_Comm c = MPI_COMM_NULL;
    return MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c);
}
static int c_comm_create_comm_null(void)
{
    MPI_Group w;
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    int rc = MPI_Comm_create(MPI_COMM_NULL, w, &c);
    MPI_Group_free(&w);
    return rc;
}
static int c_intercomm_merge_intra(void)
{
    MPI_Comm c = MPI_COMM_NULL;
    return MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &c);
}
static int c_comm_set_errh_null(void)
{
    return MPI_Comm_set_errhandler(MPI_COMM_NULL, MPI_ERRORS_RETURN);
}
static int c_comm_get_errh_null(void)
{
    MPI_Errhandler e;
    return MPI_Comm_get_errhandler(MPI_COMM_NULL, &e);
}
static int c_comm_set_info_null(void) { return MPI_Comm_set_info(MPI_COMM_NULL, MPI_INFO_NULL); }

static int c_type_commit_null(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    return MPI_Type_commit(&t);
}
static int c_type_free_null(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    return MPI_Type_free(&t);
}
static int c_type_free_builtin(void)
{
    MPI_Datatype t = MPI_INT;
    return MPI_Type_free(&t);
}
static int c_type_free_freed(void)
{
    MPI_Datatype t = bt_freed_type();
    return MPI_Type_free(&t);
}
static int c_type_size_null(void)
{
    int n;
    return MPI_Type_size(MPI_DATATYPE_NULL, &n);
}
static int c_type_size_freed(void)
{
    int n;
    return MPI_Type_size(bt_freed_type(), &n);
}
static int c_type_size_kind(void)
{
    int n;
    return MPI_Type_size((MPI_Datatype)MPI_COMM_WORLD, &n);
}
static int c_type_extent_null(void)
{
    MPI_Aint lb, ext;
    return MPI_Type_get_extent(MPI_DATATYPE_NULL, &lb, &ext);
}
static int c_type_true_extent_null(void)
{
    MPI_Aint lb, ext;
    return MPI_Type_get_true_extent(MPI_DATATYPE_NULL, &lb, &ext);
}
/* Runs a constructor and frees what it wrongly built. */
static int bt_ctor(int rc, MPI_Datatype *t)
{
    if (rc == MPI_SUCCESS && *t != MPI_DATATYPE_NULL)
        MPI_Type_free(t);
    return rc;
}
static int c_type_contig_count(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    return bt_ctor(MPI_Type_contiguous(-1, MPI_INT, &t), &t);
}
static int c_type_contig_null(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    return bt_ctor(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t), &t);
}
static int c_type_contig_freed(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    return bt_ctor(MPI_Type_contiguous(2, bt_freed_type(), &t), &t);
}
static int c_type_vector_count(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    return bt_ctor(MPI_Type_vector(-1, 1, 2, MPI_INT, &t), &t);
}
static int c_type_vector_null(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    return bt_ctor(MPI_Type_vector(2, 1, 2, MPI_DATATYPE_NULL, &t), &t);
}
static int c_type_hvector_count(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    return bt_ctor(MPI_Type_create_hvector(-2, 1, 8, MPI_INT, &t), &t);
}
static int c_type_indexed_count(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int bl[1] = {1}, d[1] = {0};
    return bt_ctor(MPI_Type_indexed(-1, bl, d, MPI_INT, &t), &t);
}
static int c_type_indexed_null(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int bl[1] = {1}, d[1] = {0};
    return bt_ctor(MPI_Type_indexed(1, bl, d, MPI_DATATYPE_NULL, &t), &t);
}
static int c_type_hindexed_count(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int bl[1] = {1};
    MPI_Aint d[1] = {0};
    return bt_ctor(MPI_Type_create_hindexed(-1, bl, d, MPI_INT, &t), &t);
}
static int c_type_idx_block_count(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int d[1] = {0};
    return bt_ctor(MPI_Type_create_indexed_block(-1, 1, d, MPI_INT, &t), &t);
}
static int c_type_struct_count(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, ty[1] = {MPI_INT};
    int bl[1] = {1};
    MPI_Aint d[1] = {0};
    return bt_ctor(MPI_Type_create_struct(-1, bl, d, ty, &t), &t);
}
static int c_type_struct_null(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, ty[2] = {MPI_INT, MPI_DATATYPE_NULL};
    int bl[2] = {1, 1};
    MPI_Aint d[2] = {0, 8};
    return bt_ctor(MPI_Type_create_struct(2, bl, d, ty, &t), &t);
}
static int c_type_resized_null(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    return bt_ctor(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 8, &t), &t);
}
static int c_type_dup_null(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    return bt_ctor(MPI_Type_dup(MPI_DATATYPE_NULL, &t), &t);
}
static int c_type_subarray_sub(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int sz[1] = {4}, sub[1] = {5}, st[1] = {0};
    return bt_ctor(MPI_Type_create_subarray(1, sz, sub, st, MPI_ORDER_C, MPI_INT, &t), &t);
}
static int c_type_set_name_null(void) { return MPI_Type_set_name(MPI_DATATYPE_NULL, "x"); }
static int c_type_get_name_freed(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    return MPI_Type_get_name(bt_freed_type(), name, &len);
}
static int c_type_envelope_null(void)
{
    int ni, na, nd, comb;
    return MPI_Type_get_envelope(MPI_DATATYPE_NULL, &ni, &na, &nd, &comb);
}
static int c_pack_uncommitted(void)
{
    MPI_Datatype t = bt_uncommitted_type();
    char out[64];
    int pos = 0;
    int rc = MPI_Pack(bt.sbuf, 1, t, out, sizeof out, &pos, MPI_COMM_WORLD);
    MPI_Type_free(&t);
    return rc;
}
static int c_pack_count(void)
{
    char out[64];
    int pos = 0;
    return MPI_Pack(bt.sbuf, -1, MPI_INT, out, sizeof out, &pos, MPI_COMM_WORLD);
}
static int c_pack_null_type(void)
{
    char out[64];
    int pos = 0;
    return MPI_Pack(bt.sbuf, 1, MPI_DATATYPE_NULL, out, sizeof out, &pos, MPI_COMM_WORLD);
}
static int c_pack_comm_null(void)
{
    char out[64];
    int pos = 0;
    return MPI_Pack(bt.sbuf, 1, MPI_INT, out, sizeof out, &pos, MPI_COMM_NULL);
}
static int c_pack_size_count(void)
{
    int n;
    return MPI_Pack_size(-1, MPI_INT, MPI_COMM_WORLD, &n);
}
static int c_pack_size_null(void)
{
    int n;
    return MPI_Pack_size(1, MPI_DATATYPE_NULL, MPI_COMM_WORLD, &n);
}
static int c_unpack_count(void)
{
    char in[64] = {0};
    int pos = 0;
    return MPI_Unpack(in, sizeof in, &pos, bt.rbuf, -1, MPI_INT, MPI_COMM_WORLD);
}
static int c_unpack_null_type(void)
{
    char in[64] = {0};
    int pos = 0;
    return MPI_Unpack(in, sizeof in, &pos, bt.rbuf, 1, MPI_DATATYPE_NULL, MPI_COMM_WORLD);
}
static int c_get_count_null(void)
{
    MPI_Status st;
    int n;
    memset(&st, 0, sizeof st);
    return MPI_Get_count(&st, MPI_DATATYPE_NULL, &n);
}
static int c_get_elements_null(void)
{
    MPI_Status st;
    int n;
    memset(&st, 0, sizeof st);
    return MPI_Get_elements(&st, MPI_DATATYPE_NULL, &n);
}

static int c_info_set_null(void) { return MPI_Info_set(MPI_INFO_NULL, "k", "v"); }
static int c_info_nkeys_null(void)
{
    int n;
    return MPI_Info_get_nkeys(MPI_INFO_NULL, &n);
}
static int c_info_free_null(void)
{
    MPI_Info i = MPI_INFO_NULL;
    return MPI_Info_free(&i);
}
static int c_info_dup_null(void)
{
    MPI_Info i = MPI_INFO_NULL;
    return MPI_Info_dup(MPI_INFO_NULL, &i);
}
static int c_info_set_freed(void) { return MPI_Info_set(bt_freed_info(), "k", "v"); }
static int c_info_nkeys_kind(void)
{
    int n;
    return MPI_Info_get_nkeys((MPI_Info)MPI_COMM_WORLD, &n);
}
/* Runs one call on a fresh info holding "k" = "v". */
static int bt_info_call(int which)
{
    MPI_Info info;
    char key[MPI_MAX_INFO_KEY + 8], val[MPI_MAX_INFO_VAL + 8];
    int flag, rc;
    MPI_Info_create(&info);
    MPI_Info_set(info, "k", "v");
    memset(key, 'a', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    memset(val, 'b', sizeof val - 1);
    val[sizeof val - 1] = '\0';
    switch (which) {
    case 0: rc = MPI_Info_delete(info, "absent"); break;
    case 1: rc = MPI_Info_set(info, key, "v"); break;
    case 2: rc = MPI_Info_set(info, "k2", val); break;
    case 3: rc = MPI_Info_set(info, "", "v"); break;
    case 4: rc = MPI_Info_get_nthkey(info, 1, key); break;
    case 5: rc = MPI_Info_get_nthkey(info, -1, key); break;
    case 6: rc = MPI_Info_get(info, key, 4, val, &flag); break;
    case 7: rc = MPI_Info_get_valuelen(info, key, &flag, &flag); break;
    default: rc = MPI_Info_get(info, "k", -1, val, &flag); break;
    }
    MPI_Info_free(&info);
    return rc;
}
static int c_info_delete_absent(void) { return bt_info_call(0); }
static int c_info_set_longkey(void) { return bt_info_call(1); }
static int c_info_set_longval(void) { return bt_info_call(2); }
static int c_info_set_emptykey(void) { return bt_info_call(3); }
static int c_info_nthkey_range(void) { return bt_info_call(4); }
static int c_info_nthkey_neg(void) { return bt_info_call(5); }
static int c_info_get_longkey(void) { return bt_info_call(6); }
static int c_info_valuelen_longkey(void) { return bt_info_call(7); }
static int c_info_get_neglen(void) { return bt_info_call(8); }

static int c_attr_set_invalid(void)
{
    return MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, NULL);
}
static int c_attr_get_invalid(void)
{
    void *v;
    int flag;
    return MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag);
}
static int c_attr_delete_invalid(void)
{
    return MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID);
}
static int c_attr_set_freed(void)
{
    static int x;
    return MPI_Comm_set_attr(MPI_COMM_WORLD, bt_freed_keyval(), &x);
}
static int c_attr_get_freed(void)
{
    void *v;
    int flag;
    return MPI_Comm_get_attr(MPI_COMM_WORLD, bt_freed_keyval(), &v, &flag);
}
static int c_attr_set_predef(void)
{
    static int x = 5;
    return MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &x);
}
static int c_attr_delete_predef(void) { return MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB); }
static int c_keyval_free_predef(void)
{
    int kv = MPI_TAG_UB;
    return MPI_Comm_free_keyval(&kv);
}
static int c_keyval_free_invalid(void)
{
    int kv = MPI_KEYVAL_INVALID;
    return MPI_Comm_free_keyval(&kv);
}
static int c_keyval_free_freed(void)
{
    int kv = bt_freed_keyval();
    return MPI_Comm_free_keyval(&kv);
}
static int c_attr_set_comm_null(void)
{
    static int x;
    int kv, rc;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL);
    rc = MPI_Comm_set_attr(MPI_COMM_NULL, kv, &x);
    MPI_Comm_free_keyval(&kv);
    return rc;
}
static int c_attr_put_invalid(void) { return MPI_Attr_put(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, NULL); }
static int c_type_set_attr_null(void)
{
    int kv, rc;
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kv, NULL);
    rc = MPI_Type_set_attr(MPI_DATATYPE_NULL, kv, NULL);
    MPI_Type_free_keyval(&kv);
    return rc;
}
static int c_type_set_attr_comm_keyval(void)
{
    int kv, rc;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL);
    rc = MPI_Type_set_attr(MPI_INT, kv, NULL);
    MPI_Comm_free_keyval(&kv);
    return rc;
}
static int c_type_free_keyval_invalid(void)
{
    int kv = MPI_KEYVAL_INVALID;
    return MPI_Type_free_keyval(&kv);
}
static int c_grequest_complete_null(void) { return MPI_Grequest_complete(MPI_REQUEST_NULL); }
static int c_add_error_string_predef(void) { return MPI_Add_error_string(MPI_ERR_TYPE, "x"); }

static int c_op_free_null(void)
{
    MPI_Op op = MPI_OP_NULL;
    return MPI_Op_free(&op);
}
static int c_op_free_builtin(void)
{
    MPI_Op op = MPI_SUM;
    return MPI_Op_free(&op);
}
static int c_op_free_freed(void)
{
    MPI_Op op = bt_freed_op();
    return MPI_Op_free(&op);
}
static int c_op_commutative_null(void)
{
    int c;
    return MPI_Op_commutative(MPI_OP_NULL, &c);
}
static int c_reduce_local_op(void) { return MPI_Reduce_local(bt.sbuf, bt.rbuf, 1, MPI_INT, MPI_OP_NULL); }
static int c_reduce_local_count(void) { return MPI_Reduce_local(bt.sbuf, bt.rbuf, -1, MPI_INT, MPI_SUM); }
static int c_reduce_local_inplace_in(void)
{
    return MPI_Reduce_local(MPI_IN_PLACE, bt.rbuf, 1, MPI_INT, MPI_SUM);
}
static int c_reduce_local_inplace_inout(void)
{
    return MPI_Reduce_local(bt.sbuf, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM);
}
static int c_reduce_local_alias(void) { return MPI_Reduce_local(bt.rbuf, bt.rbuf, 1, MPI_INT, MPI_SUM); }
static int c_reduce_local_type(void)
{
    return MPI_Reduce_local(bt.sbuf, bt.rbuf, 1, MPI_DATATYPE_NULL, MPI_SUM);
}
static int c_reduce_local_freed(void)
{
    return MPI_Reduce_local(bt.sbuf, bt.rbuf, 1, MPI_INT, bt_freed_op());
}
static int c_reduce_local_mismatch(void)
{
    return MPI_Reduce_local(bt.sbuf, bt.rbuf, 1, MPI_FLOAT, MPI_BXOR);
}

static int c_start_null(void)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return MPI_Start(&r);
}
static int c_startall_null(void)
{
    MPI_Request r[2];
    MPI_Send_init(bt.sbuf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[0]);
    r[1] = MPI_REQUEST_NULL;
    int rc = MPI_Startall(2, r);
    if (rc == MPI_SUCCESS)
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    MPI_Request_free(&r[0]);
    return rc;
}
static int c_start_nonpersistent(void)
{
    MPI_Request r;
    MPI_Irecv(bt.rbuf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r);
    MPI_Request keep = r;
    int rc = MPI_Start(&r);
    MPI_Wait(&keep, MPI_STATUS_IGNORE);
    return rc;
}
static int c_request_free_null(void)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return MPI_Request_free(&r);
}
static int c_cancel_null(void)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return MPI_Cancel(&r);
}
static MPI_Request bt_freed_request(void)
{
    MPI_Request r, stale;
    MPI_Send_init(bt.sbuf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r);
    stale = r;
    MPI_Request_free(&r);
    return stale;
}
static int c_wait_freed(void)
{
    MPI_Request r = bt_freed_request();
    return MPI_Wait(&r, MPI_STATUS_IGNORE);
}
static int c_test_kind(void)
{
    MPI_Request r = (MPI_Request)MPI_COMM_WORLD;
    int flag;
    return MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
}
static int c_waitall_count(void)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return MPI_Waitall(-1, &r, MPI_STATUSES_IGNORE);
}
static int c_testall_count(void)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int flag;
    return MPI_Testall(-1, &r, &flag, MPI_STATUSES_IGNORE);
}
static int c_waitany_count(void)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int idx;
    return MPI_Waitany(-1, &r, &idx, MPI_STATUS_IGNORE);
}
static int c_testany_count(void)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int idx, flag;
    return MPI_Testany(-1, &r, &idx, &flag, MPI_STATUS_IGNORE);
}
static int c_waitsome_count(void)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int out, idx[1];
    return MPI_Waitsome(-1, &r, &out, idx, MPI_STATUSES_IGNORE);
}
static int c_waitall_null_array(void) { return MPI_Waitall(1, NULL, MPI_STATUSES_IGNORE); }
static int c_request_get_status_freed(void)
{
    int flag;
    return MPI_Request_get_status(bt_freed_request(), &flag, MPI_STATUS_IGNORE);
}
static int c_mrecv_null(void)
{
    MPI_Message m = MPI_MESSAGE_NULL;
    return MPI_Mrecv(bt.rbuf, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
}
static int c_imrecv_null(void)
{
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = MPI_Imrecv(bt.rbuf, 1, MPI_INT, &m, &r);
    bt_drop(&r, 0);
    return rc;
}
static int c_sendrecv_send_tag(void)
{
    return MPI_Sendrecv(bt.sbuf, 1, MPI_INT, MPI_PROC_NULL, -4, bt.rbuf, 1, MPI_INT,
                        MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
static int c_sendrecv_recv_type(void)
{
    return MPI_Sendrecv(bt.sbuf, 1, MPI_INT, MPI_PROC_NULL, 0, bt.rbuf, 1, MPI_DATATYPE_NULL,
                        MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
static int c_sendrecv_rank(void)
{
    return MPI_Sendrecv(bt.sbuf, 1, MPI_INT, bt.size, 0, bt.rbuf, 1, MPI_INT, MPI_PROC_NULL, 0,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
static int c_sendrecv_replace_count(void)
{
    return MPI_Sendrecv_replace(bt.sbuf, -1, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0,
                                MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
static int c_buffer_attach_neg(void) { return MPI_Buffer_attach(bt.rbuf, -1); }
static int c_error_class_bad(void)
{
    int cls;
    return MPI_Error_class(-12345, &cls);
}
static int c_errhandler_free_null(void)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    return MPI_Errhandler_free(&e);
}
static void bt_errhandler_cb(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}
static int c_comm_set_errhandler_null(void)
{
    return MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRHANDLER_NULL);
}
static int c_comm_set_errhandler_freed(void)
{
    MPI_Errhandler e, stale;
    MPI_Comm_create_errhandler(bt_errhandler_cb, &e);
    stale = e;
    MPI_Errhandler_free(&e);
    return MPI_Comm_set_errhandler(MPI_COMM_SELF, stale);
}
static int c_comm_set_errhandler_garbage(void)
{
    return MPI_Comm_set_errhandler(MPI_COMM_SELF, (MPI_Errhandler)0x5555);
}

#define BT_Q_INFO_NULL "MPICH answers MPI_ERR_ARG for MPI_INFO_NULL"
#define BT_Q_FREED "MPICH does not detect a freed handle of this kind"
#define BT_Q_RANGE "MPICH answers MPI_ERR_ARG for a range outside the group"
#define BT_Q_INTRA "MPICH answers for an intracommunicator as for an intercommunicator"

/* The table's stand-in for MT_ERR_ERRHANDLER, which may be decided at run
 * time (mpitest.h); bt_want turns it into the class. */
#define BT_ERR_ERRHANDLER (-1)
static int bt_want(int want) { return want == BT_ERR_ERRHANDLER ? MT_ERR_ERRHANDLER : want; }

static const struct bt_case bt_cases[] = {
    {"MPI_Group_size", "MPI_GROUP_NULL", c_group_size_null, MPI_ERR_GROUP, NULL},
    {"MPI_Group_rank", "a freed group", c_group_rank_freed, MPI_ERR_GROUP, BT_Q_FREED},
    {"MPI_Group_size", "a communicator as group", c_group_size_comm, MPI_ERR_GROUP, NULL},
    {"MPI_Group_free", "MPI_GROUP_NULL", c_group_free_null, MPI_ERR_GROUP, NULL},
    {"MPI_Group_incl", "rank = size", c_group_incl_rank, MPI_ERR_RANK, NULL},
    {"MPI_Group_incl", "a rank twice", c_group_incl_dup, MPI_ERR_RANK,
     "MPICH accepts a rank listed twice"},
    {"MPI_Group_excl", "rank -2", c_group_excl_rank, MPI_ERR_RANK, NULL},
    {"MPI_Group_range_incl", "last = size", c_group_range_incl_rank, MPI_ERR_RANK, BT_Q_RANGE},
    {"MPI_Group_range_excl", "first = size + 1", c_group_range_excl_rank, MPI_ERR_RANK, BT_Q_RANGE},
    {"MPI_Group_range_incl", "stride 0", c_group_range_incl_stride0, MPI_ERR_ARG, NULL},
    {"MPI_Group_translate_ranks", "rank = size", c_group_translate_rank, MPI_ERR_RANK, NULL},
    {"MPI_Group_union", "MPI_GROUP_NULL", c_group_union_null, MPI_ERR_GROUP, NULL},
    {"MPI_Group_intersection", "MPI_GROUP_NULL", c_group_inter_null, MPI_ERR_GROUP, NULL},
    {"MPI_Group_difference", "a freed group", c_group_diff_freed, MPI_ERR_GROUP, BT_Q_FREED},
    {"MPI_Group_compare", "MPI_GROUP_NULL", c_group_compare_null, MPI_ERR_GROUP, NULL},
    {"MPI_Group_compare", "an op as group", c_group_compare_kind, MPI_ERR_GROUP, NULL},
    {"MPI_Comm_size", "MPI_COMM_NULL", c_comm_size_null, MPI_ERR_COMM, NULL},
    {"MPI_Comm_rank", "a freed communicator", c_comm_rank_freed, MPI_ERR_COMM, NULL},
    {"MPI_Comm_size", "a datatype as communicator", c_comm_size_kind, MPI_ERR_COMM, NULL},
    {"MPI_Comm_dup", "MPI_COMM_NULL", c_comm_dup_null, MPI_ERR_COMM, NULL},
    {"MPI_Comm_free", "MPI_COMM_NULL", c_comm_free_null, MPI_ERR_COMM, NULL},
    {"MPI_Comm_free", "a freed communicator", c_comm_free_freed, MPI_ERR_COMM, NULL},
    {"MPI_Comm_split", "MPI_COMM_NULL", c_comm_split_null, MPI_ERR_COMM, NULL},
    {"MPI_Comm_compare", "MPI_COMM_NULL", c_comm_compare_null, MPI_ERR_COMM, NULL},
    {"MPI_Comm_group", "MPI_COMM_NULL", c_comm_group_null, MPI_ERR_COMM, NULL},
    {"MPI_Comm_test_inter", "MPI_COMM_NULL", c_comm_test_inter_null, MPI_ERR_COMM, NULL},
    {"MPI_Comm_remote_size", "an intracommunicator", c_comm_remote_size_intra, MPI_ERR_COMM,
     BT_Q_INTRA},
    {"MPI_Comm_remote_group", "an intracommunicator", c_comm_remote_group_intra, MPI_ERR_COMM,
     BT_Q_INTRA},
    {"MPI_Comm_set_name", "MPI_COMM_NULL", c_comm_set_name_null, MPI_ERR_COMM, NULL},
    {"MPI_Comm_get_name", "a freed communicator", c_comm_get_name_freed, MPI_ERR_COMM, NULL},
    {"MPI_Comm_create", "MPI_GROUP_NULL", c_comm_create_group_null, MPI_ERR_GROUP, NULL},
    {"MPI_Comm_create", "MPI_COMM_NULL", c_comm_create_comm_null, MPI_ERR_COMM, NULL},
    {"MPI_Intercomm_merge", "an intracommunicator", c_intercomm_merge_intra, MPI_ERR_COMM,
     "!MPICH does not check for an intercommunicator"},
    {"MPI_Comm_set_errhandler", "MPI_COMM_NULL", c_comm_set_errh_null, MPI_ERR_COMM, NULL},
    {"MPI_Comm_get_errhandler", "MPI_COMM_NULL", c_comm_get_errh_null, MPI_ERR_COMM, NULL},
    {"MPI_Comm_set_info", "MPI_COMM_NULL", c_comm_set_info_null, MPI_ERR_COMM, NULL},
    {"MPI_Type_commit", "MPI_DATATYPE_NULL", c_type_commit_null, MPI_ERR_TYPE, NULL},
    {"MPI_Type_free", "MPI_DATATYPE_NULL", c_type_free_null, MPI_ERR_TYPE, NULL},
    {"MPI_Type_free", "a predefined datatype", c_type_free_builtin, MPI_ERR_TYPE, NULL},
    {"MPI_Type_free", "a freed datatype", c_type_free_freed, MPI_ERR_TYPE,
     BT_Q_FREED_TYPE},
    {"MPI_Type_size", "MPI_DATATYPE_NULL", c_type_size_null, MPI_ERR_TYPE, NULL},
    {"MPI_Type_size", "a freed datatype", c_type_size_freed, MPI_ERR_TYPE,
     BT_Q_FREED_TYPE},
    {"MPI_Type_size", "a communicator as datatype", c_type_size_kind, MPI_ERR_TYPE, NULL},
    {"MPI_Type_get_extent", "MPI_DATATYPE_NULL", c_type_extent_null, MPI_ERR_TYPE, NULL},
    {"MPI_Type_get_true_extent", "MPI_DATATYPE_NULL", c_type_true_extent_null, MPI_ERR_TYPE,
     NULL},
    {"MPI_Type_contiguous", "count -1", c_type_contig_count, MPI_ERR_COUNT, NULL},
    {"MPI_Type_contiguous", "MPI_DATATYPE_NULL", c_type_contig_null, MPI_ERR_TYPE, NULL},
    {"MPI_Type_contiguous", "a freed datatype", c_type_contig_freed, MPI_ERR_TYPE,
     BT_Q_FREED_TYPE},
    {"MPI_Type_vector", "count -1", c_type_vector_count, MPI_ERR_COUNT, NULL},
    {"MPI_Type_vector", "MPI_DATATYPE_NULL", c_type_vector_null, MPI_ERR_TYPE, NULL},
    {"MPI_Type_create_hvector", "count -2", c_type_hvector_count, MPI_ERR_COUNT, NULL},
    {"MPI_Type_indexed", "count -1", c_type_indexed_count, MPI_ERR_COUNT, NULL},
    {"MPI_Type_indexed", "MPI_DATATYPE_NULL", c_type_indexed_null, MPI_ERR_TYPE, NULL},
    {"MPI_Type_create_hindexed", "count -1", c_type_hindexed_count, MPI_ERR_COUNT, NULL},
    {"MPI_Type_create_indexed_block", "count -1", c_type_idx_block_count, MPI_ERR_COUNT, NULL},
    {"MPI_Type_create_struct", "count -1", c_type_struct_count, MPI_ERR_COUNT, NULL},
    {"MPI_Type_create_struct", "MPI_DATATYPE_NULL in types", c_type_struct_null, MPI_ERR_TYPE,
     NULL},
    {"MPI_Type_create_resized", "MPI_DATATYPE_NULL", c_type_resized_null, MPI_ERR_TYPE, NULL},
    {"MPI_Type_dup", "MPI_DATATYPE_NULL", c_type_dup_null, MPI_ERR_TYPE, NULL},
    {"MPI_Type_create_subarray", "subsize > size", c_type_subarray_sub, MPI_ERR_ARG,
     "MPICH does not check subsizes against sizes"},
    {"MPI_Type_set_name", "MPI_DATATYPE_NULL", c_type_set_name_null, MPI_ERR_TYPE, NULL},
    {"MPI_Type_get_name", "a freed datatype", c_type_get_name_freed, MPI_ERR_TYPE,
     BT_Q_FREED_TYPE},
    {"MPI_Type_get_envelope", "MPI_DATATYPE_NULL", c_type_envelope_null, MPI_ERR_TYPE, NULL},
    {"MPI_Pack", "an uncommitted datatype", c_pack_uncommitted, MPI_ERR_TYPE, NULL},
    {"MPI_Pack", "count -1", c_pack_count, MPI_ERR_COUNT, NULL},
    {"MPI_Pack", "MPI_DATATYPE_NULL", c_pack_null_type, MPI_ERR_TYPE, NULL},
    {"MPI_Pack", "MPI_COMM_NULL", c_pack_comm_null, MPI_ERR_COMM, NULL},
    {"MPI_Pack_size", "count -1", c_pack_size_count, MPI_ERR_COUNT, NULL},
    {"MPI_Pack_size", "MPI_DATATYPE_NULL", c_pack_size_null, MPI_ERR_TYPE, NULL},
    {"MPI_Unpack", "count -1", c_unpack_count, MPI_ERR_COUNT, NULL},
    {"MPI_Unpack", "MPI_DATATYPE_NULL", c_unpack_null_type, MPI_ERR_TYPE, NULL},
    {"MPI_Get_count", "MPI_DATATYPE_NULL", c_get_count_null, MPI_ERR_TYPE, NULL},
    {"MPI_Get_elements", "MPI_DATATYPE_NULL", c_get_elements_null, MPI_ERR_TYPE, NULL},
    {"MPI_Info_set", "MPI_INFO_NULL", c_info_set_null, MPI_ERR_INFO,
     BT_Q_INFO_NULL},
    {"MPI_Info_get_nkeys", "MPI_INFO_NULL", c_info_nkeys_null, MPI_ERR_INFO,
     BT_Q_INFO_NULL},
    {"MPI_Info_free", "MPI_INFO_NULL", c_info_free_null, MPI_ERR_INFO,
     BT_Q_INFO_NULL},
    {"MPI_Info_dup", "MPI_INFO_NULL", c_info_dup_null, MPI_ERR_INFO,
     BT_Q_INFO_NULL},
    {"MPI_Info_set", "a freed info", c_info_set_freed, MPI_ERR_INFO,
     "!MPICH does not detect a freed info"},
    {"MPI_Info_get_nkeys", "a communicator as info", c_info_nkeys_kind, MPI_ERR_INFO, NULL},
    {"MPI_Info_delete", "an absent key", c_info_delete_absent, MPI_ERR_INFO_NOKEY, NULL},
    {"MPI_Info_set", "a key longer than MPI_MAX_INFO_KEY", c_info_set_longkey, MPI_ERR_INFO_KEY,
     NULL},
    {"MPI_Info_set", "a value longer than MPI_MAX_INFO_VAL", c_info_set_longval,
     MPI_ERR_INFO_VALUE, NULL},
    {"MPI_Info_set", "an empty key", c_info_set_emptykey, MPI_ERR_INFO_KEY, NULL},
    {"MPI_Info_get_nthkey", "n = nkeys", c_info_nthkey_range, MPI_ERR_ARG, NULL},
    {"MPI_Info_get_nthkey", "n -1", c_info_nthkey_neg, MPI_ERR_ARG, NULL},
    {"MPI_Info_get", "a key longer than MPI_MAX_INFO_KEY", c_info_get_longkey, MPI_ERR_INFO_KEY,
     NULL},
    {"MPI_Info_get_valuelen", "a key longer than MPI_MAX_INFO_KEY", c_info_valuelen_longkey,
     MPI_ERR_INFO_KEY, NULL},
    {"MPI_Info_get", "valuelen -1", c_info_get_neglen, MPI_ERR_ARG, NULL},
    {"MPI_Comm_set_attr", "MPI_KEYVAL_INVALID", c_attr_set_invalid, MPI_ERR_KEYVAL, NULL},
    {"MPI_Comm_get_attr", "MPI_KEYVAL_INVALID", c_attr_get_invalid, MPI_ERR_KEYVAL, NULL},
    {"MPI_Comm_delete_attr", "MPI_KEYVAL_INVALID", c_attr_delete_invalid, MPI_ERR_KEYVAL, NULL},
    {"MPI_Comm_set_attr", "a freed keyval", c_attr_set_freed, MPI_ERR_KEYVAL,
     "!MPICH does not detect a freed keyval"},
    {"MPI_Comm_get_attr", "a freed keyval", c_attr_get_freed, MPI_ERR_KEYVAL,
     BT_Q_FREED},
    {"MPI_Comm_set_attr", "predefined MPI_TAG_UB", c_attr_set_predef, MPI_ERR_KEYVAL, NULL},
    {"MPI_Comm_delete_attr", "predefined MPI_TAG_UB", c_attr_delete_predef, MPI_ERR_KEYVAL, NULL},
    {"MPI_Comm_free_keyval", "predefined MPI_TAG_UB", c_keyval_free_predef, MPI_ERR_KEYVAL, NULL},
    {"MPI_Comm_free_keyval", "MPI_KEYVAL_INVALID", c_keyval_free_invalid, MPI_ERR_KEYVAL, NULL},
    {"MPI_Comm_free_keyval", "a freed keyval", c_keyval_free_freed, MPI_ERR_KEYVAL,
     "!MPICH does not detect a freed keyval"},
    {"MPI_Comm_set_attr", "MPI_COMM_NULL", c_attr_set_comm_null, MPI_ERR_COMM, NULL},
    {"MPI_Attr_put", "MPI_KEYVAL_INVALID", c_attr_put_invalid, MPI_ERR_KEYVAL, NULL},
    {"MPI_Type_set_attr", "MPI_DATATYPE_NULL", c_type_set_attr_null, MPI_ERR_TYPE, NULL},
    {"MPI_Type_set_attr", "a communicator keyval", c_type_set_attr_comm_keyval,
     MPI_ERR_KEYVAL, NULL},
    {"MPI_Type_free_keyval", "MPI_KEYVAL_INVALID", c_type_free_keyval_invalid, MPI_ERR_KEYVAL,
     NULL},
    {"MPI_Grequest_complete", "MPI_REQUEST_NULL", c_grequest_complete_null, MPI_ERR_REQUEST,
     NULL},
    {"MPI_Add_error_string", "a predefined code", c_add_error_string_predef, MPI_ERR_ARG, NULL},
    {"MPI_Op_free", "MPI_OP_NULL", c_op_free_null, MPI_ERR_OP, NULL},
    {"MPI_Op_free", "predefined MPI_SUM", c_op_free_builtin, MPI_ERR_OP, NULL},
    {"MPI_Op_free", "a freed op", c_op_free_freed, MPI_ERR_OP,
     "!MPICH does not detect a freed op"},
    {"MPI_Op_commutative", "MPI_OP_NULL", c_op_commutative_null, MPI_ERR_OP, NULL},
    {"MPI_Reduce_local", "MPI_OP_NULL", c_reduce_local_op, MPI_ERR_OP, NULL},
    {"MPI_Reduce_local", "count -1", c_reduce_local_count, MPI_ERR_COUNT,
     "!MPICH does not check MPI_Reduce_local's count"},
    {"MPI_Reduce_local", "MPI_DATATYPE_NULL", c_reduce_local_type, MPI_ERR_TYPE,
     "MPICH checks the op against the datatype first (MPI_ERR_OP)"},
    {"MPI_Reduce_local", "a freed op", c_reduce_local_freed, MPI_ERR_OP,
     "!MPICH does not detect a freed op"},
    {"MPI_Reduce_local", "MPI_BXOR on MPI_FLOAT", c_reduce_local_mismatch, MPI_ERR_OP, NULL},
    {"MPI_Reduce_local", "inbuf MPI_IN_PLACE", c_reduce_local_inplace_in, MPI_ERR_BUFFER, NULL},
    {"MPI_Reduce_local", "inoutbuf MPI_IN_PLACE", c_reduce_local_inplace_inout, MPI_ERR_BUFFER,
     NULL},
    {"MPI_Reduce_local", "inbuf the same as inoutbuf", c_reduce_local_alias, MPI_ERR_BUFFER, NULL},
    {"MPI_Start", "MPI_REQUEST_NULL", c_start_null, MPI_ERR_REQUEST, NULL},
    {"MPI_Startall", "MPI_REQUEST_NULL in the array", c_startall_null, MPI_ERR_REQUEST, NULL},
    {"MPI_Start", "a non-persistent request", c_start_nonpersistent, MPI_ERR_REQUEST, NULL},
    {"MPI_Request_free", "MPI_REQUEST_NULL", c_request_free_null, MPI_ERR_REQUEST, NULL},
    {"MPI_Cancel", "MPI_REQUEST_NULL", c_cancel_null, MPI_ERR_REQUEST, NULL},
    {"MPI_Wait", "a freed request", c_wait_freed, MPI_ERR_REQUEST,
     "!MPICH does not detect a freed request"},
    {"MPI_Test", "a communicator as request", c_test_kind, MPI_ERR_REQUEST, NULL},
    {"MPI_Waitall", "count -1", c_waitall_count, MPI_ERR_COUNT, NULL},
    {"MPI_Testall", "count -1", c_testall_count, MPI_ERR_COUNT, NULL},
    {"MPI_Waitany", "count -1", c_waitany_count, MPI_ERR_COUNT, NULL},
    {"MPI_Testany", "count -1", c_testany_count, MPI_ERR_COUNT, NULL},
    {"MPI_Waitsome", "count -1", c_waitsome_count, MPI_ERR_COUNT, NULL},
    {"MPI_Waitall", "NULL array, count 1", c_waitall_null_array, MPI_ERR_ARG, NULL},
    {"MPI_Request_get_status", "a freed request", c_request_get_status_freed, MPI_ERR_REQUEST,
     "!MPICH does not detect a freed request"},
    {"MPI_Mrecv", "MPI_MESSAGE_NULL", c_mrecv_null, MPI_ERR_REQUEST, NULL},
    {"MPI_Imrecv", "MPI_MESSAGE_NULL", c_imrecv_null, MPI_ERR_REQUEST, NULL},
    {"MPI_Sendrecv", "send tag -4", c_sendrecv_send_tag, MPI_ERR_TAG, NULL},
    {"MPI_Sendrecv", "MPI_DATATYPE_NULL (receive side)", c_sendrecv_recv_type, MPI_ERR_TYPE,
     NULL},
    {"MPI_Sendrecv", "dest = size", c_sendrecv_rank, MPI_ERR_RANK, NULL},
    {"MPI_Sendrecv_replace", "count -1", c_sendrecv_replace_count, MPI_ERR_COUNT, NULL},
    {"MPI_Buffer_attach", "size -1", c_buffer_attach_neg, MPI_ERR_ARG, NULL},
    {"MPI_Error_class", "code -12345", c_error_class_bad, MPI_ERR_ARG,
     "MPICH gives a class for any code"},
    {"MPI_Errhandler_free", "MPI_ERRHANDLER_NULL", c_errhandler_free_null, BT_ERR_ERRHANDLER,
     NULL},
    {"MPI_Comm_set_errhandler", "MPI_ERRHANDLER_NULL", c_comm_set_errhandler_null,
     BT_ERR_ERRHANDLER, NULL},
    {"MPI_Comm_set_errhandler", "a freed errhandler", c_comm_set_errhandler_freed,
     BT_ERR_ERRHANDLER, "!MPICH does not detect a freed errhandler"},
    {"MPI_Comm_set_errhandler", "a garbage errhandler", c_comm_set_errhandler_garbage,
     BT_ERR_ERRHANDLER, "!MPICH may dereference a garbage errhandler"},
};
#define BT_NCASES ((int)(sizeof bt_cases / sizeof bt_cases[0]))

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &bt.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &bt.size);
    CHECK(bt.size >= 2 && bt.size <= BT_MAXP, "needs 2..%d ranks, has %d", BT_MAXP, bt.size);
    /* Errors on an invalid communicator go to COMM_WORLD's or COMM_SELF's
     * handler depending on the MPI version: set both. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int *ub = NULL, ok = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &ok);
    CHECK(ok && ub, "no MPI_TAG_UB");
    bt.tag_ub = *ub;
    bt_run_p2p();
    bt_run_coll();
    for (int i = 0; i < BT_NCASES; i++)
        if (!bt_skipped(bt_cases[i].quirk)) {
            if (getenv("BT_TRACE"))
                fprintf(stderr, "trace: %s with %s\n", bt_cases[i].call, bt_cases[i].fault);
            bt_judge(bt_cases[i].call, bt_cases[i].fault, bt_cases[i].run(), bt_want(bt_cases[i].want),
                 bt_cases[i].quirk);
        }
    /* The library still works: nothing was left behind by the faulty calls. */
    int flag = 1, x = bt.rank + 1, sum = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "a failed call left a message behind");
    CHECK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS &&
              sum == bt.size * (bt.size + 1) / 2,
          "Allreduce after the table: %d", sum);
    int bad = 0;
    MPI_Allreduce(&bt.nbad, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (bt.rank == 0)
        printf("bad_input_table: %d cases, %d wrong (all ranks); %d known hcmpi defects not "
               "run; MPICH quirks: %d accepted, %d not run\n",
               bt.ncases, bad, bt.ndefect, bt.nquirk, bt.nskip);
    MPI_Finalize();
    return bad ? 1 : 0;
}
