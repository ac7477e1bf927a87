/* MPI_Request_get_status_all / _any / _some (MPI-4.1), on 2 ranks: over a
 * mix of MPI_REQUEST_NULL, an inactive persistent request, a receive that
 * cannot complete yet (its sender waits on a barrier) and one that can,
 * they report what MPI_Testall / _any / _some would (flag, index,
 * outcount, indices, statuses with source, tag and count) but free and
 * deactivate nothing: the handles are unchanged, the same complete
 * request is reported again, and MPI_Waitall completes them all after,
 * with the data intact.  Over null and inactive requests alone, _any
 * gives flag true and MPI_UNDEFINED, _some MPI_UNDEFINED, _all flag true
 * with empty statuses.  An invalid handle is MPI_ERR_REQUEST. */
/* mt-needs: MPI-4.1 (built against an older MPICH, e.g. by tests/relink/mpich_suite.sh, it is skipped) */
#include <stdint.h>

#include "mpitest.h"

#define RG_N 4
#define RG_BYTES 64

static void rg_check_empty(const MPI_Status *st, const char *what)
{
    CHECK(st->MPI_TAG == MPI_ANY_TAG && mt_status_count(st, MPI_BYTE) == 0,
          "%s: status not empty (tag %d, count %d)", what, st->MPI_TAG,
          mt_status_count(st, MPI_BYTE));
}

static void rg_mix(int rank)
{
    int peer = 1 - rank;
    unsigned char late[RG_BYTES], early[RG_BYTES], pers[RG_BYTES];
    if (rank == 1) {
        mt_fill(early, RG_BYTES, 2u);
        MPI_Send(early, RG_BYTES, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        mt_fill(late, RG_BYTES, 1u);
        MPI_Send(late, RG_BYTES, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        return;
    }
    MPI_Request reqs[RG_N], saved[RG_N];
    MPI_Status sts[RG_N];
    int flag = -1, index = -1, outcount = -1, indices[RG_N];
    reqs[0] = MPI_REQUEST_NULL;
    MPI_Recv_init(pers, RG_BYTES, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &reqs[1]);
    MPI_Irecv(late, RG_BYTES, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &reqs[2]);
    MPI_Irecv(early, RG_BYTES, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &reqs[3]);
    memcpy(saved, reqs, sizeof reqs);
    /* The early message arrives in time; poll until it is seen. */
    do {
        CHECK(MPI_Request_get_status_any(RG_N, reqs, &index, &flag, &sts[0]) == MPI_SUCCESS,
              "get_status_any");
    } while (!flag);
    CHECK(index == 3, "get_status_any index %d, want 3", index);
    CHECK(sts[0].MPI_SOURCE == peer && sts[0].MPI_TAG == 2 &&
              mt_status_count(&sts[0], MPI_BYTE) == RG_BYTES,
          "any status source %d tag %d", sts[0].MPI_SOURCE, sts[0].MPI_TAG);
    CHECK(memcmp(saved, reqs, sizeof reqs) == 0, "get_status_any changed a handle");
    /* Asked again, the same request: it was not freed. */
    index = -1;
    CHECK(MPI_Request_get_status_any(RG_N, reqs, &index, &flag, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS && flag && index == 3,
          "second get_status_any: flag %d index %d", flag, index);
    CHECK(MPI_Request_get_status_some(RG_N, reqs, &outcount, indices, sts) == MPI_SUCCESS,
          "get_status_some");
    CHECK(outcount == 1 && indices[0] == 3 && sts[0].MPI_TAG == 2,
          "get_status_some outcount %d index %d", outcount, indices[0]);
    flag = -1;
    CHECK(MPI_Request_get_status_all(RG_N, reqs, &flag, sts) == MPI_SUCCESS, "get_status_all");
    CHECK(flag == 0, "get_status_all complete while a receive waits");
    CHECK(memcmp(saved, reqs, sizeof reqs) == 0, "a get_status call changed a handle");
    MPI_Barrier(MPI_COMM_WORLD); /* the late message goes now */
    do {
        CHECK(MPI_Request_get_status_all(RG_N, reqs, &flag, sts) == MPI_SUCCESS,
              "get_status_all");
    } while (!flag);
    rg_check_empty(&sts[0], "null request");
    rg_check_empty(&sts[1], "inactive request");
    CHECK(sts[2].MPI_SOURCE == peer && sts[2].MPI_TAG == 1, "status 2: tag %d", sts[2].MPI_TAG);
    CHECK(sts[3].MPI_SOURCE == peer && sts[3].MPI_TAG == 2, "status 3: tag %d", sts[3].MPI_TAG);
    CHECK(MPI_Request_get_status_some(RG_N, reqs, &outcount, indices, MPI_STATUSES_IGNORE) ==
              MPI_SUCCESS && outcount == 2 && indices[0] == 2 && indices[1] == 3,
          "get_status_some after: outcount %d", outcount);
    CHECK(memcmp(saved, reqs, sizeof reqs) == 0, "get_status_all changed a handle");
    /* Still requests to complete. */
    CHECK(MPI_Waitall(RG_N, reqs, sts) == MPI_SUCCESS, "Waitall");
    CHECK(reqs[2] == MPI_REQUEST_NULL && reqs[3] == MPI_REQUEST_NULL && reqs[1] == saved[1],
          "Waitall did not complete the requests");
    CHECK(mt_verify(late, RG_BYTES, 1u) == MT_OK && mt_verify(early, RG_BYTES, 2u) == MT_OK,
          "data wrong");
    /* Only null and inactive requests left. */
    CHECK(MPI_Request_get_status_any(RG_N, reqs, &index, &flag, &sts[0]) == MPI_SUCCESS &&
              flag && index == MPI_UNDEFINED,
          "any over inactive: flag %d index %d", flag, index);
    rg_check_empty(&sts[0], "any over inactive");
    CHECK(MPI_Request_get_status_some(RG_N, reqs, &outcount, indices, sts) == MPI_SUCCESS &&
              outcount == MPI_UNDEFINED,
          "some over inactive: outcount %d", outcount);
    CHECK(MPI_Request_get_status_all(RG_N, reqs, &flag, sts) == MPI_SUCCESS && flag,
          "all over inactive");
    CHECK(MPI_Request_get_status_all(0, NULL, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS && flag,
          "all over none");
    MPI_Request_free(&reqs[1]);
}

static void rg_errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Request bad[2] = {MPI_REQUEST_NULL, (MPI_Request)(intptr_t)0x12345};
    int flag, index, outcount, indices[2];
    int rc = MPI_Request_get_status_any(2, bad, &index, &flag, MPI_STATUS_IGNORE);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "any, bad handle: %s", mt_errstr(rc));
    rc = MPI_Request_get_status_all(2, bad, &flag, MPI_STATUSES_IGNORE);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "all, bad handle: %s", mt_errstr(rc));
    rc = MPI_Request_get_status_some(2, bad, &outcount, indices, MPI_STATUSES_IGNORE);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "some, bad handle: %s", mt_errstr(rc));
    rc = MPI_Request_get_status_all(-1, bad, &flag, MPI_STATUSES_IGNORE);
    CHECK(rc != MPI_SUCCESS, "negative count accepted");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks, got %d", size);
    rg_mix(rank);
    rg_errors();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("request_get_status_multi: OK\n");
    MPI_Finalize();
    return 0;
}
