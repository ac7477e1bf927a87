/* MPI_Intercomm_create between a job and the job it spawned (MPI-4.0
 * 7.6.2 across the jobs of 11.8): world ranks are job-local, so the
 * groups are swapped by process names, and members of the two jobs that
 * share no link yet get one.
 *
 *   dyn_spawn_icc parent K   rank 0 of the parents spawns K children on
 *                            MPI_COMM_SELF (the other parents never meet
 *                            them); then the parents' world and the
 *                            children's world build an intercommunicator
 *                            through that parent-child one
 *   dyn_spawn_icc child N    what rank 0 starts (N: the parents' count)
 *
 * Over that intercommunicator: sizes; from every member to every remote
 * member a small and a 1 MiB message, bytes and statuses checked; an
 * Allreduce across; a merge with the children high (parents first, ranks
 * and an Allgather checked) and a merge where both sides ask low (one
 * order both groups agree on: contiguous groups, each member where the
 * Allgather says); then a second intercommunicator over the same peer
 * (every pair linked now) and a Bcast from a parent across it. */
#include "dyn_family.h"

static int wrank, wsize;

/* A merge where both sides ask low: whichever group comes first, both see
 * the same contiguous order and each member sits where it says. */
static void check_low_merge(MPI_Comm icc, int is_parent, int nparents,
                            int nchildren) {
  MPI_Comm merged;
  CHECK(MPI_Intercomm_merge(icc, 0, &merged) == MPI_SUCCESS, "low merge");
  int mrank, msize, mine = (is_parent ? 1000 : 0) + wrank;
  MPI_Comm_rank(merged, &mrank);
  MPI_Comm_size(merged, &msize);
  CHECK(msize == nparents + nchildren, "low merge size %d", msize);
  int *all = mt_malloc((size_t)msize * sizeof *all);
  MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, merged);
  CHECK(all[mrank] == mine, "low merge: rank %d holds %d, not me (%d)", mrank,
        all[mrank], mine);
  int parents_first = all[0] >= 1000;
  for (int r = 0; r < msize; r++) {
    int in_first = r < (parents_first ? nparents : nchildren);
    int r_local = in_first ? r : r - (parents_first ? nparents : nchildren);
    int from_parents = in_first == parents_first;
    int expect = (from_parents ? 1000 : 0) + r_local;
    CHECK(all[r] == expect, "low merge allgather[%d] = %d, expected %d", r,
          all[r], expect);
  }
  free(all);
  MPI_Comm_free(&merged);
}

/* peer: the parent-child intercommunicator at the leaders (rank 0 of
 * each world), MPI_COMM_NULL at the other parents. */
static void family(MPI_Comm peer, int is_parent, int nparents, int nchildren) {
  MPI_Comm icc;
  CHECK(MPI_Intercomm_create(MPI_COMM_WORLD, 0, peer, 0, 123, &icc) ==
            MPI_SUCCESS,
        "Intercomm_create across the jobs");
  int flag = 0;
  MPI_Comm_test_inter(icc, &flag);
  CHECK(flag, "not an intercommunicator");
  dyn_check_family(icc, is_parent, nparents, nchildren);
  check_low_merge(icc, is_parent, nparents, nchildren);

  /* Every pair is linked now: the second creation links nothing. */
  MPI_Comm again;
  CHECK(MPI_Intercomm_create(MPI_COMM_WORLD, 0, peer, 0, 124, &again) ==
            MPI_SUCCESS,
        "second Intercomm_create");
  int data[4] = {0, 0, 0, 0};
  int root = nparents - 1; /* a parent that did not spawn when nparents > 1 */
  if (is_parent) {
    if (wrank == root)
      for (int i = 0; i < 4; i++)
        data[i] = 40 + i;
    MPI_Bcast(data, 4, MPI_INT, wrank == root ? MPI_ROOT : MPI_PROC_NULL,
              again);
  } else {
    MPI_Bcast(data, 4, MPI_INT, root, again);
    for (int i = 0; i < 4; i++)
      CHECK(data[i] == 40 + i, "bcast across: data[%d] = %d", i, data[i]);
  }
  MPI_Comm_free(&again);
  MPI_Comm_free(&icc);
}

static void parent(const char *self, const char *kids) {
  char nstr[16];
  int nchildren = atoi(kids);
  snprintf(nstr, sizeof nstr, "%d", wsize);
  char *args[] = {"child", nstr, NULL};
  MPI_Comm inter = MPI_COMM_NULL;
  if (wrank == 0) {
    int codes[8];
    CHECK(nchildren >= 1 && nchildren <= 8, "children: %d", nchildren);
    CHECK(MPI_Comm_spawn(self, args, nchildren, MPI_INFO_NULL, 0, MPI_COMM_SELF,
                         &inter, codes) == MPI_SUCCESS,
          "spawn");
  }
  family(inter, 1, wsize, nchildren);
  if (wrank == 0)
    CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS, "disconnect");
}

static void child(int nparents) {
  MPI_Comm p;
  CHECK(MPI_Comm_get_parent(&p) == MPI_SUCCESS && p != MPI_COMM_NULL,
        "no parent");
  int rsize;
  MPI_Comm_remote_size(p, &rsize);
  CHECK(rsize == 1, "parent group of %d", rsize);
  family(p, 0, nparents, wsize);
  CHECK(MPI_Comm_disconnect(&p) == MPI_SUCCESS, "disconnect");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  CHECK(argc == 3, "usage: dyn_spawn_icc parent K | child N");
  if (strcmp(argv[1], "parent") == 0)
    parent(argv[0], argv[2]);
  else if (strcmp(argv[1], "child") == 0)
    child(atoi(argv[2]));
  else
    CHECK(0, "unknown mode %s", argv[1]);
  MPI_Finalize();
  if (strcmp(argv[1], "parent") == 0)
    printf("dyn_spawn_icc: parent %d of %d OK\n", wrank, wsize);
  return 0;
}
