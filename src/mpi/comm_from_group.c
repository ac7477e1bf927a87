/*
 * Communicators from a group alone (MPI-4.0 7.4.2 MPI_Comm_create_from_group,
 * 7.6.2 MPI_Intercomm_create_from_groups): what sessions use in place of a
 * parent communicator.  Groups hold world ranks, so the engine can build the
 * communicator over them directly; the members agree on its context id among
 * themselves (a group-local agreement over the world's collective context,
 * not the launcher's key-value store), and the string tag, hashed, keeps
 * concurrent creations over overlapping groups apart.  Errors are raised on
 * the handler the caller passes, the one the new communicator gets.
 */
#include <stdint.h>
#include <stdlib.h>

#include "mpi/mpi_impl.h"

/* FNV-1a of the string tag, as a non-negative engine tag: equal strings
 * give equal tags at every member. */
static int cfg_tag(const char *stringtag) {
  uint32_t h = 2166136261u;
  for (const unsigned char *p = (const unsigned char *)stringtag; *p; p++)
    h = (h ^ *p) * 16777619u;
  return (int)(h & 0x7fffffffu);
}

/* Entry of both calls: MPI running, a communicator handler (retained into
 * *errh), and the arguments every form has. */
static int cfg_enter(const char *fn, const char *stringtag, MPI_Info info,
                     MPI_Errhandler errhandler, const void *out,
                     hc_mpi_errhandler_t **errh) {
  int rc = hc_mpi_check_ready(fn);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_errhandler_t *e = hc_mpi_errhandler_get(errhandler);
  if (!e)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ERRHANDLER, "invalid errhandler 0x%x",
                        (unsigned)errhandler);
  if (e->session_fn)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ERRHANDLER,
                        "errhandler 0x%x was made for sessions",
                        (unsigned)errhandler);
  hc_mpi_errhandler_retain(e);
  if (!stringtag || !out)
    return hc_mpi_raise_on(e, MPI_COMM_NULL, fn, MPI_ERR_ARG, "%s is NULL",
                           stringtag ? "the output" : "stringtag");
  if (info != MPI_INFO_NULL && !hc_mpi_info_get(info))
    return hc_mpi_raise_on(e, MPI_COMM_NULL, fn, MPI_ERR_INFO,
                           "invalid info 0x%x", (unsigned)info);
  *errh = e;
  return MPI_SUCCESS;
}

/* The members of a group argument, and this process's position in them
 * (-1 when absent); -1 when the handle is invalid. */
static int cfg_group(MPI_Group group, int *n, const int **world, int *me) {
  if (group == MPI_GROUP_NULL || hc_mpi_group_lookup(group, n, world) != 0)
    return -1;
  int self = hcomm_comm_rank(hcomm_comm_world());
  *me = -1;
  for (int i = 0; i < *n; i++)
    if ((*world)[i] == self)
      *me = i;
  return 0;
}

/* Wraps the engine's result, or raises its status; drops errh.  The new
 * communicator derives from the session of group (0: none). */
static int cfg_finish(const char *fn, hc_mpi_errhandler_t *errh, hc_status_t st,
                      hcomm_comm_t *engine, MPI_Group group, MPI_Comm *out) {
  if (st != HC_OK)
    return hc_mpi_raise_on(errh, MPI_COMM_NULL, fn, hc_mpi_class_of_status(st),
                           "%s", hcomm_strerror(st));
  int rc = hc_mpi_comm_adopt(fn, engine, errh, MPI_COMM_NULL, out);
  hc_mpi_errhandler_release(errh);
  if (rc == MPI_SUCCESS)
    hc_mpi_comm_get(*out)->session = hc_mpi_group_session(group);
  return rc;
}

/* Every member of group calls with the same stringtag; MPI_GROUP_EMPTY
 * gives MPI_COMM_NULL. */
int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag,
                                MPI_Info info, MPI_Errhandler errhandler,
                                MPI_Comm *newcomm) {
  static const char fn[] = "MPI_Comm_create_from_group";
  hc_mpi_errhandler_t *errh = NULL;
  int n = 0, me = -1;
  const int *world = NULL;
  int rc = cfg_enter(fn, stringtag, info, errhandler, newcomm, &errh);
  if (rc != MPI_SUCCESS)
    return rc;
  if (cfg_group(group, &n, &world, &me) != 0)
    return hc_mpi_raise_on(errh, MPI_COMM_NULL, fn, MPI_ERR_GROUP,
                           "invalid group 0x%x", (unsigned)group);
  if (n == 0) {
    hc_mpi_errhandler_release(errh);
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  if (me < 0)
    return hc_mpi_raise_on(errh, MPI_COMM_NULL, fn, MPI_ERR_GROUP,
                           "the calling process is not in group");
  hcomm_comm_t *engine = NULL;
  hc_status_t st =
      hcomm_comm_from_world_ranks(n, world, cfg_tag(stringtag), &engine);
  return cfg_finish(fn, errh, st, engine, group, newcomm);
}
HC_WEAK_ALIAS(MPI_Comm_create_from_group, PMPI_Comm_create_from_group);

/* The members of each group make the mirror call (the same stringtag); the
 * groups must not overlap. */
int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler,
                                      MPI_Comm *newintercomm) {
  static const char fn[] = "MPI_Intercomm_create_from_groups";
  hc_mpi_errhandler_t *errh = NULL;
  int nl = 0, nr = 0, me = -1, remote_me = -1;
  const int *lw = NULL, *rw = NULL;
  int rc = cfg_enter(fn, stringtag, info, errhandler, newintercomm, &errh);
  if (rc != MPI_SUCCESS)
    return rc;
  if (cfg_group(local_group, &nl, &lw, &me) != 0 ||
      cfg_group(remote_group, &nr, &rw, &remote_me) != 0)
    return hc_mpi_raise_on(errh, MPI_COMM_NULL, fn, MPI_ERR_GROUP,
                           "invalid local_group 0x%x or remote_group 0x%x",
                           (unsigned)local_group, (unsigned)remote_group);
  if (me < 0 || remote_me >= 0)
    return hc_mpi_raise_on(errh, MPI_COMM_NULL, fn, MPI_ERR_GROUP,
                           me < 0 ? "the calling process is not in local_group"
                                  : "the calling process is in both groups");
  if (local_leader < 0 || local_leader >= nl || remote_leader < 0 ||
      remote_leader >= nr)
    return hc_mpi_raise_on(errh, MPI_COMM_NULL, fn, MPI_ERR_RANK,
                           "leaders %d and %d out of range for groups of %d "
                           "and %d",
                           local_leader, remote_leader, nl, nr);
  hcomm_comm_t *engine = NULL;
  hc_status_t st = hcomm_intercomm_from_world_ranks(
      nl, lw, local_leader, rw[remote_leader], cfg_tag(stringtag), &engine);
  return cfg_finish(fn, errh, st, engine, local_group, newintercomm);
}
HC_WEAK_ALIAS(MPI_Intercomm_create_from_groups,
              PMPI_Intercomm_create_from_groups);
