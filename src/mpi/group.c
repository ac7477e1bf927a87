/*
 * Groups: ordered sets of processes, stored as world ranks (every process of
 * a job is in MPI_COMM_WORLD), so set operations and rank translation are
 * array walks against a world-sized position map.  MPI_GROUP_EMPTY is a
 * builtin object; every other group has a handle of its own.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/handle.h"
#include "mpi/mpi_impl.h"

typedef struct group_obj {
  int n;
  int *world;          /* n world ranks in group order */
  MPI_Session session; /* a process set's group: its session; 0: none */
} group_obj_t;

static group_obj_t group_empty_obj = {0, NULL, 0};
static hc_handle_table_t group_table =
    HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_GROUP, 0);

static group_obj_t *group_get(MPI_Group handle) {
  if (handle == MPI_GROUP_EMPTY)
    return &group_empty_obj;
  return hc_handle_get(&group_table, handle);
}

/* Group members are engine world ranks: the launcher's world and the
 * processes met at run time (ports, join). */
static int group_world_size(void) { return hcomm_process_count(); }

int hc_mpi_group_lookup(MPI_Group group, int *n, const int **world) {
  group_obj_t *g = group_get(group);
  if (!g)
    return -1;
  *n = g->n;
  *world = g->world;
  return 0;
}

MPI_Session hc_mpi_group_session(MPI_Group group) {
  group_obj_t *g = group_get(group);
  return g ? g->session : 0;
}

void hc_mpi_group_set_session(MPI_Group group, MPI_Session session) {
  group_obj_t *g = group == MPI_GROUP_EMPTY ? NULL : group_get(group);
  if (g)
    g->session = session;
}

int hc_mpi_group_members(const char *fn, hc_mpi_comm_t *comm, MPI_Group group,
                         int *n, const int **world) {
  group_obj_t *g = group_get(group);
  if (!g && group == MPI_GROUP_NULL)
    return hc_mpi_raise(comm, fn, MPI_ERR_GROUP,
                        "invalid group MPI_GROUP_NULL");
  if (!g)
    return hc_mpi_raise(comm, fn, MPI_ERR_GROUP, "invalid group 0x%x",
                        (unsigned)group);
  *n = g->n;
  *world = g->world;
  return MPI_SUCCESS;
}

int hc_mpi_group_make(const char *fn, hc_mpi_comm_t *comm, int n,
                      const int *world, MPI_Group *out) {
  if (n == 0) {
    *out = MPI_GROUP_EMPTY;
    return MPI_SUCCESS;
  }
  group_obj_t *g = calloc(1, sizeof *g);
  if (g)
    g->world = malloc((size_t)n * sizeof(int));
  if (!g || !g->world || hc_handle_alloc(&group_table, g, out) != 0) {
    if (g)
      free(g->world);
    free(g);
    return hc_mpi_raise(comm, fn, MPI_ERR_NO_MEM, "out of memory for a group");
  }
  g->n = n;
  memcpy(g->world, world, (size_t)n * sizeof(int));
  return MPI_SUCCESS;
}

/* pos[w] = position of world rank w in the group, -1 when absent. */
static int *group_positions(int n, const int *world) {
  int ws = group_world_size();
  int *pos = malloc((size_t)(ws > 0 ? ws : 1) * sizeof(int));
  if (!pos)
    return NULL;
  for (int w = 0; w < ws; w++)
    pos[w] = -1;
  for (int i = 0; i < n; i++)
    pos[world[i]] = i;
  return pos;
}

/* Ready check plus the members of one group argument. */
static int group_enter(const char *fn, MPI_Group group, int *n,
                       const int **world) {
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_group_members(fn, NULL, group, n, world);
  return rc;
}

int PMPI_Group_size(MPI_Group group, int *size) {
  static const char fn[] = "MPI_Group_size";
  int n;
  const int *world;
  int rc = group_enter(fn, group, &n, &world);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, size, "size");
  if (rc == MPI_SUCCESS)
    *size = n;
  return rc;
}
HC_WEAK_ALIAS(MPI_Group_size, PMPI_Group_size);

int PMPI_Group_rank(MPI_Group group, int *rank) {
  static const char fn[] = "MPI_Group_rank";
  int n;
  const int *world;
  int rc = group_enter(fn, group, &n, &world);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, rank, "rank");
  if (rc != MPI_SUCCESS)
    return rc;
  int me = hcomm_comm_rank(hcomm_comm_world());
  *rank = MPI_UNDEFINED;
  for (int i = 0; i < n; i++)
    if (world[i] == me)
      *rank = i;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Group_rank, PMPI_Group_rank);

int PMPI_Group_free(MPI_Group *group) {
  static const char fn[] = "MPI_Group_free";
  int n;
  const int *world;
  int rc = hc_mpi_check_ptr(fn, NULL, group, "group");
  if (rc == MPI_SUCCESS)
    rc = group_enter(fn, *group, &n, &world);
  if (rc != MPI_SUCCESS)
    return rc;
  /* MPI_GROUP_EMPTY comes back from many calls; freeing it only clears the
   * caller's handle, as MPICH does. */
  group_obj_t *g = hc_handle_free(&group_table, *group);
  if (g) {
    free(g->world);
    free(g);
  }
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Group_free, PMPI_Group_free);

/* Ranks of an incl/excl list: in range and not repeated.  *mark (n_group
 * flags) says which are listed. */
static int group_check_list(const char *fn, int size, int n, const int *ranks,
                            char **mark) {
  if (n < 0 || n > size)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "invalid n %d for a group of size %d", n, size);
  if (n > 0 && !ranks)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "NULL ranks");
  *mark = calloc((size_t)size + 1, 1);
  if (!*mark)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  for (int i = 0; i < n; i++) {
    int r = ranks[i];
    const char *why = r < 0 || r >= size ? "invalid"
                      : (*mark)[r]       ? "repeated"
                                         : NULL;
    if (why) {
      free(*mark);
      return hc_mpi_raise(NULL, fn, MPI_ERR_RANK,
                          "%s rank %d in ranks[%d] (group of size %d)", why, r,
                          i, size);
    }
    (*mark)[r] = 1;
  }
  return MPI_SUCCESS;
}

/* Keeps the members whose mark equals keep, in group order (excl, list
 * NULL), or the nlist listed ranks in list order (incl: list not NULL,
 * even for nlist 0, where MPI allows a NULL ranks array). */
static int group_select(const char *fn, int size, const int *world,
                        const int *list, int nlist, const char *mark, int keep,
                        MPI_Group *newgroup) {
  int *out = malloc((size_t)size * sizeof(int) + 1);
  if (!out)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  int m = 0;
  if (list) {
    for (int i = 0; i < nlist; i++)
      out[m++] = world[list[i]];
  } else {
    for (int r = 0; r < size; r++)
      if ((mark[r] != 0) == keep)
        out[m++] = world[r];
  }
  int rc = hc_mpi_group_make(fn, NULL, m, out, newgroup);
  free(out);
  return rc;
}

/* A group made from groups of a process set derives from their session
 * (MPI-4.1), so a communicator made from it finds that session's buffer for
 * buffered sends.  Groups of two sessions may not be mixed; the first
 * group's session wins. */
static void group_inherit_session(MPI_Group newgroup, MPI_Group from1,
                                  MPI_Group from2) {
  MPI_Session session = hc_mpi_group_session(from1);
  if (!session && from2 != MPI_GROUP_NULL)
    session = hc_mpi_group_session(from2);
  hc_mpi_group_set_session(newgroup, session);
}

static int group_incl_excl(const char *fn, MPI_Group group, int n,
                           const int ranks[], int incl, MPI_Group *newgroup) {
  int size;
  const int *world;
  char *mark = NULL;
  int rc = group_enter(fn, group, &size, &world);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, newgroup, "newgroup");
  if (rc == MPI_SUCCESS)
    rc = group_check_list(fn, size, n, ranks, &mark);
  if (rc != MPI_SUCCESS)
    return rc;
  static const int no_ranks[1];
  const int *list = incl ? (n > 0 ? ranks : no_ranks) : NULL;
  rc = group_select(fn, size, world, list, n, mark, 0, newgroup);
  free(mark);
  if (rc == MPI_SUCCESS)
    group_inherit_session(*newgroup, group, MPI_GROUP_NULL);
  return rc;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[],
                    MPI_Group *newgroup) {
  return group_incl_excl("MPI_Group_incl", group, n, ranks, 1, newgroup);
}
HC_WEAK_ALIAS(MPI_Group_incl, PMPI_Group_incl);

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[],
                    MPI_Group *newgroup) {
  return group_incl_excl("MPI_Group_excl", group, n, ranks, 0, newgroup);
}
HC_WEAK_ALIAS(MPI_Group_excl, PMPI_Group_excl);

/* Expands (first, last, stride) triplets into a rank list of at most size
 * entries (more means a repeat, caught by group_check_list). */
static int group_expand_ranges(const char *fn, int size, int n, int ranges[][3],
                               int **list, int *count) {
  if (n < 0)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "invalid n %d", n);
  if (n > 0 && !ranges)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "NULL ranges");
  *list = malloc(((size_t)size + 1) * sizeof(int));
  if (!*list)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  *count = 0;
  for (int i = 0; i < n; i++) {
    int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    int rc = MPI_SUCCESS;
    if (stride == 0)
      rc = hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "stride 0 in ranges[%d]", i);
    else if (first < 0 || first >= size || last < 0 || last >= size)
      rc = hc_mpi_raise(NULL, fn, MPI_ERR_RANK,
                        "ranges[%d] = (%d, %d, %d) outside a group of size %d",
                        i, first, last, stride, size);
    for (long r = first;
         rc == MPI_SUCCESS && (stride > 0 ? r <= last : r >= last);
         r += stride) {
      if (*count == size)
        rc = hc_mpi_raise(NULL, fn, MPI_ERR_RANK, "ranges repeat rank %ld", r);
      else
        (*list)[(*count)++] = (int)r;
    }
    if (rc != MPI_SUCCESS) {
      free(*list);
      return rc;
    }
  }
  return MPI_SUCCESS;
}

static int group_range(const char *fn, MPI_Group group, int n, int ranges[][3],
                       int incl, MPI_Group *newgroup) {
  int size, count = 0, *list = NULL;
  const int *world;
  char *mark = NULL;
  int rc = group_enter(fn, group, &size, &world);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, newgroup, "newgroup");
  if (rc == MPI_SUCCESS)
    rc = group_expand_ranges(fn, size, n, ranges, &list, &count);
  if (rc != MPI_SUCCESS)
    return rc;
  rc = group_check_list(fn, size, count, list, &mark);
  if (rc == MPI_SUCCESS)
    rc = group_select(fn, size, world, incl ? list : NULL, count, mark, 0,
                      newgroup);
  free(mark);
  free(list);
  if (rc == MPI_SUCCESS)
    group_inherit_session(*newgroup, group, MPI_GROUP_NULL);
  return rc;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3],
                          MPI_Group *newgroup) {
  return group_range("MPI_Group_range_incl", group, n, ranges, 1, newgroup);
}
HC_WEAK_ALIAS(MPI_Group_range_incl, PMPI_Group_range_incl);

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3],
                          MPI_Group *newgroup) {
  return group_range("MPI_Group_range_excl", group, n, ranges, 0, newgroup);
}
HC_WEAK_ALIAS(MPI_Group_range_excl, PMPI_Group_range_excl);

enum group_setop { GROUP_UNION, GROUP_INTERSECTION, GROUP_DIFFERENCE };

/* Members of group 1 (kept when in2 says so), then for a union the members
 * of group 2 not in group 1; the order is group 1's, then group 2's. */
static int group_setop(const char *fn, MPI_Group g1, MPI_Group g2, int op,
                       MPI_Group *newgroup) {
  int n1, n2;
  const int *w1, *w2;
  int rc = group_enter(fn, g1, &n1, &w1);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_group_members(fn, NULL, g2, &n2, &w2);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, newgroup, "newgroup");
  if (rc != MPI_SUCCESS)
    return rc;
  int *pos1 = group_positions(n1, w1), *pos2 = group_positions(n2, w2);
  int *out = malloc(((size_t)n1 + (size_t)n2 + 1) * sizeof(int));
  if (!pos1 || !pos2 || !out) {
    free(pos1);
    free(pos2);
    free(out);
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  int m = 0;
  for (int i = 0; i < n1; i++) {
    int in2 = pos2[w1[i]] >= 0;
    if (op == GROUP_UNION || (op == GROUP_INTERSECTION) == in2)
      out[m++] = w1[i];
  }
  for (int i = 0; op == GROUP_UNION && i < n2; i++)
    if (pos1[w2[i]] < 0)
      out[m++] = w2[i];
  rc = hc_mpi_group_make(fn, NULL, m, out, newgroup);
  free(pos1);
  free(pos2);
  free(out);
  if (rc == MPI_SUCCESS)
    group_inherit_session(*newgroup, g1, g2);
  return rc;
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) {
  return group_setop("MPI_Group_union", group1, group2, GROUP_UNION, newgroup);
}
HC_WEAK_ALIAS(MPI_Group_union, PMPI_Group_union);

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2,
                            MPI_Group *newgroup) {
  return group_setop("MPI_Group_intersection", group1, group2,
                     GROUP_INTERSECTION, newgroup);
}
HC_WEAK_ALIAS(MPI_Group_intersection, PMPI_Group_intersection);

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2,
                          MPI_Group *newgroup) {
  return group_setop("MPI_Group_difference", group1, group2, GROUP_DIFFERENCE,
                     newgroup);
}
HC_WEAK_ALIAS(MPI_Group_difference, PMPI_Group_difference);

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                               MPI_Group group2, int ranks2[]) {
  static const char fn[] = "MPI_Group_translate_ranks";
  int n1, n2;
  const int *w1, *w2;
  int rc = group_enter(fn, group1, &n1, &w1);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_group_members(fn, NULL, group2, &n2, &w2);
  if (rc == MPI_SUCCESS && n < 0)
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "invalid n %d", n);
  if (rc == MPI_SUCCESS && n > 0 && (!ranks1 || !ranks2))
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "NULL rank array");
  for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
    if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= n1))
      rc = hc_mpi_raise(NULL, fn, MPI_ERR_RANK,
                        "invalid rank %d in ranks1[%d] (group of size %d)",
                        ranks1[i], i, n1);
  if (rc != MPI_SUCCESS)
    return rc;
  int *pos2 = group_positions(n2, w2);
  if (!pos2)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  for (int i = 0; i < n; i++) {
    if (ranks1[i] == MPI_PROC_NULL) {
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    int p = pos2[w1[ranks1[i]]];
    ranks2[i] = p >= 0 ? p : MPI_UNDEFINED;
  }
  free(pos2);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Group_translate_ranks, PMPI_Group_translate_ranks);

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result) {
  static const char fn[] = "MPI_Group_compare";
  int n1, n2;
  const int *w1, *w2;
  int rc = group_enter(fn, group1, &n1, &w1);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_group_members(fn, NULL, group2, &n2, &w2);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, result, "result");
  if (rc != MPI_SUCCESS)
    return rc;
  if (n1 != n2) {
    *result = MPI_UNEQUAL;
    return MPI_SUCCESS;
  }
  int *pos2 = group_positions(n2, w2);
  if (!pos2)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  *result = MPI_IDENT;
  for (int i = 0; i < n1 && *result != MPI_UNEQUAL; i++) {
    if (pos2[w1[i]] < 0)
      *result = MPI_UNEQUAL;
    else if (pos2[w1[i]] != i)
      *result = MPI_SIMILAR;
  }
  free(pos2);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Group_compare, PMPI_Group_compare);

/* The local (remote 0) or remote (remote 1) group of comm. */
static int group_of_comm(const char *fn, MPI_Comm comm, int remote,
                         MPI_Group *group) {
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, group, "group");
  if (rc == MPI_SUCCESS && remote && !hcomm_comm_is_inter(c->engine))
    rc = hc_mpi_raise(c, fn, MPI_ERR_COMM,
                      "not an intercommunicator (no remote group)");
  if (rc != MPI_SUCCESS)
    return rc;
  int n =
      remote ? hcomm_comm_remote_size(c->engine) : hcomm_comm_size(c->engine);
  if (n < 0)
    return hc_mpi_raise(c, fn, MPI_ERR_INTERN, "communicator without members");
  int *world = malloc((size_t)n * sizeof(int) + 1);
  if (!world)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  for (int r = 0; r < n; r++)
    world[r] = remote ? hcomm_comm_remote_world_rank(c->engine, r)
                      : hcomm_comm_world_rank(c->engine, r);
  rc = hc_mpi_group_make(fn, c, n, world, group);
  free(world);
  if (rc == MPI_SUCCESS) /* a session's communicator: its group is too */
    hc_mpi_group_set_session(*group, c->session);
  return rc;
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group) {
  return group_of_comm("MPI_Comm_group", comm, 0, group);
}
HC_WEAK_ALIAS(MPI_Comm_group, PMPI_Comm_group);

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group) {
  return group_of_comm("MPI_Comm_remote_group", comm, 1, group);
}
HC_WEAK_ALIAS(MPI_Comm_remote_group, PMPI_Comm_remote_group);
