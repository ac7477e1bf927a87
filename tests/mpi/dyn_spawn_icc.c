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
 *   dyn_spawn_icc child N M  what rank 0 starts (N: the parents' count, M:
 *                            the prefix of the marker it leaves)
 *
 * Over that intercommunicator: sizes; from every member to every remote
 * member a small and a 1 MiB message, bytes and statuses checked; an
 * Allreduce across; a merge with the children high (parents first, ranks
 * and an Allgather checked) and a merge where both sides ask low (one
 * order both groups agree on: contiguous groups, each member where the
 * Allgather says); then a second intercommunicator over the same peer
 * (every pair linked now) and a Bcast from a parent across it.
 *
 * Then the children finalize while the parents still hold a communicator
 * with them (MPI_Comm_free does not disconnect): once the children have
 * gone, the parents must not count them as failed. */
#include <unistd.h>

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
static MPI_Comm family(MPI_Comm peer, int is_parent, int nparents,
                       int nchildren) {
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
  MPI_Comm kept;
  CHECK(MPI_Comm_dup(icc, &kept) == MPI_SUCCESS, "dup across");
  MPI_Comm_free(&icc);
  return kept;
}

/* The marker a child leaves once its MPI_Finalize has returned. */
static void marker_path(char *path, size_t len, const char *prefix, int child) {
  snprintf(path, len, "%s.%d", prefix, child);
}

/* At the parents, once every child has left a marker: a finalized child
 * is gone, not failed (over kept, an intercommunicator with them). */
static void check_departed(MPI_Comm kept, const char *prefix, int nchildren) {
  char path[300];
  for (int c = 0; c < nchildren; c++) {
    marker_path(path, sizeof path, prefix, c);
    int waited_ms = 0;
    while (access(path, F_OK) != 0 && waited_ms < 60000) {
      usleep(10000);
      waited_ms += 10;
    }
    CHECK(access(path, F_OK) == 0, "child %d left no marker %s", c, path);
  }
  /* Let the closed links reach this process's progress. */
  for (int i = 0; i < 200; i++) {
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, 77, kept, &flag, MPI_STATUS_IGNORE);
    usleep(1000);
  }
  MPI_Group acked;
  int nfailed = -1;
  MPI_Comm_set_errhandler(kept, MPI_ERRORS_RETURN);
  CHECK(MPIX_Comm_failure_ack(kept) == MPI_SUCCESS, "failure_ack");
  CHECK(MPIX_Comm_failure_get_acked(kept, &acked) == MPI_SUCCESS,
        "failure_get_acked");
  MPI_Group_size(acked, &nfailed);
  CHECK(nfailed == 0, "%d finalized children counted as failed", nfailed);
  MPI_Group_free(&acked);
  MPI_Comm_free(&kept);
}

static void parent(const char *self, const char *kids) {
  char nstr[16], prefix[256];
  int nchildren = atoi(kids);
  snprintf(nstr, sizeof nstr, "%d", wsize);
  if (wrank == 0) {
    const char *tmp = getenv("TMPDIR");
    snprintf(prefix, sizeof prefix, "%s/dyn_spawn_icc.%d",
             tmp != NULL && *tmp != '\0' ? tmp : "/tmp", (int)getpid());
  }
  MPI_Bcast(prefix, sizeof prefix, MPI_CHAR, 0, MPI_COMM_WORLD);
  char *args[] = {"child", nstr, prefix, NULL};
  MPI_Comm inter = MPI_COMM_NULL;
  if (wrank == 0) {
    int codes[8];
    CHECK(nchildren >= 1 && nchildren <= 8, "children: %d", nchildren);
    CHECK(MPI_Comm_spawn(self, args, nchildren, MPI_INFO_NULL, 0, MPI_COMM_SELF,
                         &inter, codes) == MPI_SUCCESS,
          "spawn");
  }
  MPI_Comm kept = family(inter, 1, wsize, nchildren);
  if (wrank == 0)
    CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS, "disconnect");
  check_departed(kept, prefix, nchildren);
  MPI_Barrier(MPI_COMM_WORLD);
  char path[300];
  for (int c = 0; wrank == 0 && c < nchildren; c++) {
    marker_path(path, sizeof path, prefix, c);
    unlink(path);
  }
}

static void child(int nparents) {
  MPI_Comm p;
  CHECK(MPI_Comm_get_parent(&p) == MPI_SUCCESS && p != MPI_COMM_NULL,
        "no parent");
  int rsize;
  MPI_Comm_remote_size(p, &rsize);
  CHECK(rsize == 1, "parent group of %d", rsize);
  MPI_Comm kept = family(p, 0, nparents, wsize);
  CHECK(MPI_Comm_disconnect(&p) == MPI_SUCCESS, "disconnect");
  MPI_Comm_free(&kept);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  CHECK(argc == 3 || argc == 4,
        "usage: dyn_spawn_icc parent K | child N MARKER");
  if (strcmp(argv[1], "parent") == 0)
    parent(argv[0], argv[2]);
  else if (strcmp(argv[1], "child") == 0 && argc == 4)
    child(atoi(argv[2]));
  else
    CHECK(0, "unknown mode %s", argv[1]);
  MPI_Finalize();
  if (strcmp(argv[1], "parent") == 0) {
    printf("dyn_spawn_icc: parent %d of %d OK\n", wrank, wsize);
  } else {
    char path[300];
    marker_path(path, sizeof path, argv[3], wrank);
    FILE *f = fopen(path, "w");
    if (f != NULL)
      fclose(f);
  }
  return 0;
}
