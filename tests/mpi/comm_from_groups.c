/* MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups, from a
 * session's group and from MPI_COMM_WORLD's group (argv[1]: "session" or
 * "world"):
 * - the even and the odd world ranks each make an intracommunicator
 *   (concurrently, one string tag) whose size, ranks and handler are
 *   checked, then exchange along a ring checking bytes and statuses;
 * - the two halves make an intercommunicator (leaders 0 and 0) and every
 *   rank exchanges with its partner in the other half, checking bytes,
 *   status and remote size; merged, the result orders the evens first;
 * - the same group made twice with two string tags gives two communicators
 *   whose traffic stays apart;
 * - MPI_GROUP_EMPTY gives MPI_COMM_NULL; MPI_GROUP_NULL gives
 *   MPI_ERR_GROUP, a NULL string tag MPI_ERR_ARG, a session handler
 *   MPI_ERR_ERRHANDLER (MPI-4.1), a caller outside the group MPI_ERR_GROUP,
 *   a leader out of range MPI_ERR_RANK. */
#include "mpitest.h"

#define WORDS 100

static int wrank, wsize;

static void ring(MPI_Comm comm, unsigned seed) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  unsigned char out[WORDS], in[WORDS];
  MPI_Status st;
  mt_fill(out, WORDS, seed + (unsigned)rank);
  memset(in, 0, sizeof in);
  CHECK(MPI_Sendrecv(out, WORDS, MPI_BYTE, right, 3, in, WORDS, MPI_BYTE, left,
                     3, comm, &st) == MPI_SUCCESS,
        "sendrecv");
  size_t bad = mt_verify(in, WORDS, seed + (unsigned)left);
  CHECK(bad == MT_OK && st.MPI_SOURCE == left && st.MPI_TAG == 3 &&
            mt_status_count(&st, MPI_BYTE) == WORDS,
        "ring: byte %zu, source %d", bad, st.MPI_SOURCE);
}

/* The evens (0, 2, ...) and the odds of a world-sized group. */
static void halves(MPI_Group all, MPI_Group *even, MPI_Group *odd) {
  int ne = (wsize + 1) / 2, no = wsize / 2;
  int r[64] = {0};
  for (int i = 0; i < ne; i++)
    r[i] = 2 * i;
  MPI_Group_incl(all, ne, r, even);
  for (int i = 0; i < no; i++)
    r[i] = 2 * i + 1;
  MPI_Group_incl(all, no, r, odd);
}

static void check_intra(MPI_Group mine, MPI_Errhandler eh, MPI_Comm *comm) {
  int gsize, grank, size, rank, result;
  MPI_Errhandler got;
  CHECK(MPI_Comm_create_from_group(mine, "org.hcmpi.test.halves", MPI_INFO_NULL,
                                   eh, comm) == MPI_SUCCESS,
        "create_from_group");
  MPI_Group_size(mine, &gsize);
  MPI_Group_rank(mine, &grank);
  MPI_Comm_size(*comm, &size);
  MPI_Comm_rank(*comm, &rank);
  CHECK(size == gsize && rank == grank && rank == wrank / 2,
        "size %d rank %d, group %d %d", size, rank, gsize, grank);
  MPI_Comm_get_errhandler(*comm, &got);
  CHECK(got == eh, "handler 0x%x, passed 0x%x", (unsigned)got, (unsigned)eh);
  MPI_Errhandler_free(&got);
  MPI_Group cg;
  MPI_Comm_group(*comm, &cg);
  MPI_Group_compare(cg, mine, &result);
  CHECK(result == MPI_IDENT, "group compare %d", result);
  MPI_Group_free(&cg);
  ring(*comm, 1000);
}

static void check_inter(MPI_Group even, MPI_Group odd) {
  int is_even = wrank % 2 == 0;
  MPI_Comm inter, merged;
  int flag = 0, rsize = -1, partner_size;
  CHECK(MPI_Intercomm_create_from_groups(
            is_even ? even : odd, 0, is_even ? odd : even, 0,
            "org.hcmpi.test.inter", MPI_INFO_NULL, MPI_ERRORS_RETURN,
            &inter) == MPI_SUCCESS,
        "intercomm_create_from_groups");
  MPI_Comm_test_inter(inter, &flag);
  MPI_Comm_remote_size(inter, &rsize);
  MPI_Group_size(is_even ? odd : even, &partner_size);
  CHECK(flag && rsize == partner_size, "inter %d remote size %d", flag, rsize);
  int me = wrank / 2;
  if (me < rsize) { /* the last even has no partner when wsize is odd */
    unsigned char out[WORDS], in[WORDS];
    MPI_Status st;
    mt_fill(out, WORDS, 2000 + (unsigned)wrank);
    memset(in, 0, sizeof in);
    CHECK(MPI_Sendrecv(out, WORDS, MPI_BYTE, me, 5, in, WORDS, MPI_BYTE, me, 5,
                       inter, &st) == MPI_SUCCESS,
          "inter sendrecv");
    int partner = is_even ? wrank + 1 : wrank - 1;
    size_t bad = mt_verify(in, WORDS, 2000 + (unsigned)partner);
    CHECK(bad == MT_OK && st.MPI_SOURCE == me &&
              mt_status_count(&st, MPI_BYTE) == WORDS,
          "inter: byte %zu source %d", bad, st.MPI_SOURCE);
  }
  CHECK(MPI_Intercomm_merge(inter, !is_even, &merged) == MPI_SUCCESS, "merge");
  int mrank = -1;
  MPI_Comm_rank(merged, &mrank);
  CHECK(mrank == (is_even ? wrank / 2 : (wsize + 1) / 2 + wrank / 2),
        "merged rank %d", mrank);
  ring(merged, 3000);
  MPI_Comm_free(&merged);
  MPI_Comm_free(&inter);
}

/* One group, two string tags: two communicators, crossed traffic. */
static void check_two_tags(MPI_Group all) {
  MPI_Comm a, b;
  CHECK(MPI_Comm_create_from_group(all, "tag-a", MPI_INFO_NULL,
                                   MPI_ERRORS_RETURN, &a) == MPI_SUCCESS &&
            MPI_Comm_create_from_group(all, "tag-b", MPI_INFO_NULL,
                                       MPI_ERRORS_RETURN, &b) == MPI_SUCCESS,
        "two tags");
  int result;
  MPI_Comm_compare(a, b, &result);
  CHECK(result == MPI_CONGRUENT, "compare %d", result);
  int to = (wrank + 1) % wsize, from = (wrank + wsize - 1) % wsize;
  int va = -1, vb = -1, sa = 100 + wrank, sb = 200 + wrank;
  MPI_Request r[4];
  MPI_Irecv(&vb, 1, MPI_INT, from, 0, b, &r[0]);
  MPI_Irecv(&va, 1, MPI_INT, from, 0, a, &r[1]);
  MPI_Isend(&sa, 1, MPI_INT, to, 0, a, &r[2]);
  MPI_Isend(&sb, 1, MPI_INT, to, 0, b, &r[3]);
  MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
  CHECK(va == 100 + from && vb == 200 + from, "a got %d b got %d", va, vb);
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
}

static void on_comm_error(MPI_Comm *c, int *code, ...) {
  (void)c;
  (void)code;
}

static void on_session_error(MPI_Session *s, int *code, ...) {
  (void)s;
  (void)code;
}

static void check_errors(MPI_Group all, MPI_Group even, MPI_Group odd) {
  MPI_Comm c = MPI_COMM_WORLD;
  int rc = MPI_Comm_create_from_group(MPI_GROUP_EMPTY, "empty", MPI_INFO_NULL,
                                      MPI_ERRORS_RETURN, &c);
  CHECK(rc == MPI_SUCCESS && c == MPI_COMM_NULL, "empty group: %s",
        mt_errstr(rc));
  rc = MPI_Comm_create_from_group(MPI_GROUP_NULL, "x", MPI_INFO_NULL,
                                  MPI_ERRORS_RETURN, &c);
  CHECK(mt_class(rc) == MPI_ERR_GROUP, "MPI_GROUP_NULL: %s", mt_errstr(rc));
  rc = MPI_Comm_create_from_group(all, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                  &c);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "NULL stringtag: %s", mt_errstr(rc));
  MPI_Errhandler seh;
  MPI_Session_create_errhandler(on_session_error, &seh);
  rc = MPI_Comm_create_from_group(all, "x", MPI_INFO_NULL, seh, &c);
  /* MPICH 4.0.2 takes any handler kind here. */
  CHECK(mt_class(rc) == MT_ERR_ERRHANDLER || mt_mpich_quirks(),
        "session handler: %s", mt_errstr(rc));
  if (rc == MPI_SUCCESS)
    MPI_Comm_free(&c);
  MPI_Errhandler_free(&seh);
  /* MPICH 4.0.2 checks none of the misuses below (a non-member gets
   * MPI_COMM_NULL; the others are left to hang or fail later). */
  if (mt_mpich_quirks())
    return;
  MPI_Group other = wrank % 2 ? even : odd;
  if (wsize > 1) {
    rc = MPI_Comm_create_from_group(other, "x", MPI_INFO_NULL,
                                    MPI_ERRORS_RETURN, &c);
    CHECK(mt_class(rc) == MPI_ERR_GROUP, "not a member: %s", mt_errstr(rc));
  }
  MPI_Group mine = wrank % 2 ? odd : even;
  rc = MPI_Intercomm_create_from_groups(mine, 0, other, wsize, "x",
                                        MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
  CHECK(mt_class(rc) == MPI_ERR_RANK, "remote leader out of range: %s",
        mt_errstr(rc));
  rc = MPI_Intercomm_create_from_groups(mine, 0, mine, 0, "x", MPI_INFO_NULL,
                                        MPI_ERRORS_RETURN, &c);
  CHECK(mt_class(rc) == MPI_ERR_GROUP, "overlapping groups: %s", mt_errstr(rc));
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  MPI_Session session = MPI_SESSION_NULL;
  MPI_Group all, even, odd;
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  CHECK(wsize >= 2 && wsize <= 64, "needs 2 to 64 ranks");
  if (strcmp(mode, "session") == 0) {
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session) ==
              MPI_SUCCESS,
          "Session_init");
    CHECK(MPI_Group_from_session_pset(session, "mpi://WORLD", &all) ==
              MPI_SUCCESS,
          "world pset");
  } else {
    CHECK(strcmp(mode, "world") == 0, "unknown mode '%s'", mode);
    MPI_Comm_group(MPI_COMM_WORLD, &all);
  }
  halves(all, &even, &odd);
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(on_comm_error, &eh);
  MPI_Comm intra;
  check_intra(wrank % 2 ? odd : even, eh, &intra);
  MPI_Errhandler_free(&eh);
  check_inter(even, odd);
  check_two_tags(all);
  check_errors(all, even, odd);
  MPI_Comm_free(&intra);
  MPI_Group_free(&even);
  MPI_Group_free(&odd);
  MPI_Group_free(&all);
  if (session != MPI_SESSION_NULL)
    CHECK(MPI_Session_finalize(&session) == MPI_SUCCESS, "finalize");
  MPI_Finalize();
  printf("rank %d: PASS comm_from_groups %s\n", wrank, mode);
  return 0;
}
