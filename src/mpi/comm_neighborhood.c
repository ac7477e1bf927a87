/*
 * MPIX_COMM_TYPE_NEIGHBORHOOD, MPICH's split type for the ranks that share
 * a resource named by a hint.  The hint MPICH defines for it and hcmpi can
 * answer is "nbhd_common_dirname": the ranks that reach the same
 * directory, that is the same file system instance (a node's /tmp, one
 * NFS or Lustre mount seen from many nodes), form one communicator.
 * Device and inode numbers cannot tell that across nodes (an NFS mount has
 * a different device number on every client), so the ranks find out by
 * looking: in rounds, the lowest rank not yet placed creates a probe file
 * in the directory, and every unplaced rank that sees it joins that rank.
 *
 * As in MPICH, every rank gets MPI_COMM_NULL when the ranks pass different
 * directories, when no hint MPICH defines for the type is given, and for
 * "network_topo" (hcmpi knows no network topology).  A rank that cannot
 * reach the directory gets MPI_COMM_NULL alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi/mpi_impl.h"
#include "util/log.h"

enum { NBHD_UNPLACED = -1, NBHD_OUT = -2 };

typedef struct nbhd_rank {
  uint64_t dir_hash; /* of the directory name given */
  int64_t pid;       /* names this rank's probe files */
  int32_t placed;    /* color: the creator of the probe seen; or above */
  int32_t pad;
} nbhd_rank_t;

static uint64_t nbhd_hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static void nbhd_probe_path(char *path, size_t len, const char *dir,
                            int64_t pid, int round) {
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  snprintf(path, len, "%s/.hcmpi-nbhd-%s-%lld-%d", dir, host, (long long)pid,
           round);
}

/* Places every rank; all[] is gathered again after each round. */
static hc_status_t nbhd_rounds(hcomm_comm_t *comm, const char *dir,
                               nbhd_rank_t *all, nbhd_rank_t *me) {
  int n = hcomm_comm_size(comm), self = hcomm_comm_rank(comm);
  for (int round = 0;; round++) {
    int creator = -1;
    for (int r = 0; r < n && creator < 0; r++)
      if (all[r].placed == NBHD_UNPLACED)
        creator = r;
    if (creator < 0)
      return HC_OK;
    char path[4096 + 128];
    nbhd_probe_path(path, sizeof path, dir, all[creator].pid, round);
    if (self == creator) {
      int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      me->placed = creator;
      if (fd < 0) {
        hc_log(HC_LOG_DEBUG, "mpi", "split neighborhood: cannot create %s: %s", path,
                     strerror(errno));
        me->placed = NBHD_OUT; /* then it cannot reach the directory */
      } else {
        close(fd);
      }
    }
    hc_status_t st = hcomm_barrier(comm);
    struct stat sb;
    if (st == HC_OK && self != creator && me->placed == NBHD_UNPLACED &&
        stat(path, &sb) == 0)
      me->placed = creator;
    if (st == HC_OK)
      st = hcomm_barrier(comm); /* everyone looked */
    if (self == creator && me->placed == creator)
      unlink(path);
    if (st == HC_OK)
      st = hcomm_allgather(me, sizeof *me, all, comm);
    if (st != HC_OK)
      return st;
  }
}

int hc_mpi_comm_split_neighborhood(const char *fn, hc_mpi_comm_t *c,
                                   MPI_Info info, int key,
                                   hcomm_comm_t **newcomm) {
  *newcomm = NULL;
  if (hcomm_comm_is_inter(c->engine))
    return hc_mpi_raise(c, fn, MPI_ERR_COMM,
                        "MPIX_COMM_TYPE_NEIGHBORHOOD needs an "
                        "intracommunicator");
  char dir[4096];
  int flag = 0;
  if (info != MPI_INFO_NULL)
    PMPI_Info_get(info, "nbhd_common_dirname", (int)sizeof dir - 1, dir,
                  &flag);
  /* Without the hint every rank knows alone that it gets MPI_COMM_NULL:
   * the standard asks the same split_type of all, not the same hints, but
   * MPICH's meaning of the type is "the ranks that share what the hint
   * names", and nothing named is shared by no one. */
  if (!flag)
    return MPI_SUCCESS;
  int n = hcomm_comm_size(c->engine);
  nbhd_rank_t me = {.dir_hash = nbhd_hash(dir),
                    .pid = (int64_t)getpid(),
                    .placed = NBHD_UNPLACED};
  struct stat sb;
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode) ||
      access(dir, W_OK | X_OK) != 0)
    me.placed = NBHD_OUT;
  nbhd_rank_t *all = malloc((size_t)n * sizeof *all);
  if (!all)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  hc_status_t st = hcomm_allgather(&me, sizeof me, all, c->engine);
  int same = 1;
  for (int r = 0; st == HC_OK && r < n; r++)
    same &= all[r].dir_hash == me.dir_hash;
  if (st == HC_OK && same)
    st = nbhd_rounds(c->engine, dir, all, &me);
  free(all);
  if (st == HC_OK && same)
    st = hcomm_comm_split(c->engine,
                          me.placed >= 0 ? me.placed : HCOMM_UNDEFINED, key,
                          newcomm);
  return st == HC_OK ? MPI_SUCCESS : hc_mpi_raise_status(c, fn, st);
}
