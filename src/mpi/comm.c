/*
 * Communicator objects and the MPI_Comm_* calls that create, query and free
 * them.  WORLD and SELF are static objects bound to the engine at MPI_Init;
 * others live in the handle table.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/bsend_pool.h"
#include "mpi/handle.h"
#include "mpi/mpi_impl.h"
#include "mpi/stream.h"
#include "util/lock.h"

hc_mpi_comm_t hc_mpi_comm_world_obj = {.handle = MPI_COMM_WORLD,
                                       .builtin = 1,
                                       .refs = 1,
                                       .name = "MPI_COMM_WORLD"};
hc_mpi_comm_t hc_mpi_comm_self_obj = {
    .handle = MPI_COMM_SELF, .builtin = 1, .refs = 1, .name = "MPI_COMM_SELF"};
static hc_handle_table_t comm_table =
    HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_COMM, 0);
/* Guards every comm's errh pointer and the builtins' default handler. */
static pthread_mutex_t comm_lock = PTHREAD_MUTEX_INITIALIZER;

hc_mpi_comm_t *hc_mpi_comm_world(void) { return &hc_mpi_comm_world_obj; }

hc_mpi_comm_t *hc_mpi_comm_get(MPI_Comm handle) {
  if (handle == MPI_COMM_WORLD)
    return &hc_mpi_comm_world_obj;
  if (handle == MPI_COMM_SELF)
    return &hc_mpi_comm_self_obj;
  return hc_handle_get(&comm_table, handle);
}

int hc_mpi_comm_enter_each(const char *fn, MPI_Comm comm,
                           hc_mpi_comm_t **out) {
  int rc = hc_mpi_check_ready(fn);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_comm_t *c = hc_mpi_comm_get(comm);
  if (!c && comm == MPI_COMM_NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_COMM,
                        "invalid communicator MPI_COMM_NULL");
  if (!c)
    return hc_mpi_raise(NULL, fn, MPI_ERR_COMM, "invalid communicator 0x%x",
                        (unsigned)comm);
  /* With only sessions running, the world model's communicators are not
   * there (MPI-4.0 11.2). */
  if (c->builtin && !hc_mpi_world_active())
    return hc_mpi_raise(NULL, fn, MPI_ERR_COMM,
                        "%s exists only between MPI_Init and MPI_Finalize",
                        c->name);
  *out = c;
  return MPI_SUCCESS;
}

hc_mpi_comm_t *hc_mpi_comm_try(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF)
    return hc_mpi_world_active() ? hc_mpi_comm_get(comm) : NULL;
  return hc_mpi_is_ready() ? hc_handle_get(&comm_table, comm) : NULL;
}

hc_mpi_errhandler_t *hc_mpi_comm_errhandler(hc_mpi_comm_t *comm) {
  hc_lock(&comm_lock);
  hc_mpi_errhandler_t *e = comm->errh;
  if (!e)
    e = hc_mpi_errhandler_get(MPI_ERRORS_ARE_FATAL);
  hc_mpi_errhandler_retain(e);
  hc_unlock(&comm_lock);
  return e;
}

void hc_mpi_comm_set_errhandler(hc_mpi_comm_t *comm, hc_mpi_errhandler_t *e) {
  hc_mpi_errhandler_retain(e);
  hc_lock(&comm_lock);
  hc_mpi_errhandler_t *old = comm->errh;
  comm->errh = e;
  hc_unlock(&comm_lock);
  if (old)
    hc_mpi_errhandler_release(old);
}

void hc_mpi_comm_retain_counted(hc_mpi_comm_t *comm) {
  hc_lock(&comm_lock);
  comm->refs++;
  hc_unlock(&comm_lock);
}

void hc_mpi_comm_release_counted(hc_mpi_comm_t *comm) {
  hc_lock(&comm_lock);
  int last = --comm->refs == 0;
  hc_unlock(&comm_lock);
  if (!last)
    return;
  /* The engine's communicator goes with the last reference, not at
   * MPI_Comm_free: an inactive persistent request still names it. */
  if (comm->engine)
    hcomm_comm_free(comm->engine);
  if (comm->errh)
    hc_mpi_errhandler_release(comm->errh);
  hc_mpi_info_destroy(comm->info);
  hc_mpi_topo_destroy(comm->topo);
  hc_mpi_stream_detach(comm->streams);
  hc_mpi_bsend_slot_drop(&comm->bsend);
  free(comm);
}

void hc_mpi_comm_bind_builtins(void) {
  hc_mpi_comm_set_engine(&hc_mpi_comm_world_obj, hcomm_comm_world());
  hc_mpi_comm_set_engine(&hc_mpi_comm_self_obj, hcomm_comm_self());
}

int hc_mpi_comm_adopt(const char *fn, hcomm_comm_t *engine,
                      hc_mpi_errhandler_t *errh, MPI_Comm err_handle,
                      MPI_Comm *out) {
  hc_mpi_comm_t *c = calloc(1, sizeof(*c));
  if (!c || hc_handle_alloc(&comm_table, c, &c->handle) != 0) {
    free(c);
    hcomm_comm_free(engine);
    hc_mpi_errhandler_retain(errh);
    return hc_mpi_raise_on(errh, err_handle, fn, MPI_ERR_NO_MEM,
                           "out of memory for a new communicator");
  }
  hc_mpi_comm_set_engine(c, engine);
  c->refs = 1;
  hc_mpi_comm_set_errhandler(c, errh);
  *out = c->handle;
  return MPI_SUCCESS;
}

/* Wraps an engine communicator; the handler is inherited from parent. */
static int comm_wrap(const char *fn, hc_mpi_comm_t *parent,
                     hcomm_comm_t *engine, MPI_Comm *out) {
  hc_mpi_errhandler_t *e = hc_mpi_comm_errhandler(parent);
  int rc = hc_mpi_comm_adopt(fn, engine, e, parent->handle, out);
  hc_mpi_errhandler_release(e);
  if (rc == MPI_SUCCESS) /* derived from the parent's session, if any */
    hc_mpi_comm_get(*out)->session = parent->session;
  return rc;
}

int PMPI_Comm_rank(MPI_Comm comm, int *rank) {
  static const char fn[] = "MPI_Comm_rank";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, rank, "rank");
  if (rc != MPI_SUCCESS)
    return rc;
  *rank = hcomm_comm_rank(c->engine);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Comm_rank, PMPI_Comm_rank);

int PMPI_Comm_size(MPI_Comm comm, int *size) {
  static const char fn[] = "MPI_Comm_size";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, size, "size");
  if (rc != MPI_SUCCESS)
    return rc;
  *size = hcomm_comm_size(c->engine);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Comm_size, PMPI_Comm_size);

/* The communicator hints this library keeps: the assertions MPI 4.0
 * section 7.4.4 defines (accepted and reported back; the engine's matching
 * is correct without them).  Other keys are ignored, so MPI_Comm_get_info
 * returns only these, as the standard asks of hints not used. */
static const char *const comm_info_keys[] = {
    "mpi_assert_no_any_tag", "mpi_assert_no_any_source",
    "mpi_assert_exact_length", "mpi_assert_allow_overtaking", NULL};

/* Drops a communicator this call made but cannot hand out. */
static void comm_discard(MPI_Comm *handle) {
  hc_mpi_comm_t *c = hc_handle_free(&comm_table, *handle);
  if (c)
    hc_mpi_comm_release(c);
  *handle = MPI_COMM_NULL;
}

/* MPI_Comm_dup and its variants: a new context, the parent's attributes
 * through their copy callbacks, and info (the parent's hints, or the given
 * ones when use_info). */
/* Checks of the dup calls; *hints: the info given (use_info), or NULL. */
static int comm_dup_enter(const char *fn, MPI_Comm comm, int use_info,
                          MPI_Info info, MPI_Comm *newcomm, hc_mpi_comm_t **c,
                          hc_mpi_info_t **hints) {
  int rc = hc_mpi_comm_enter(fn, comm, c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, *c, newcomm, "newcomm");
  *hints = NULL;
  if (rc == MPI_SUCCESS && use_info && info != MPI_INFO_NULL &&
      !(*hints = hc_mpi_info_get(info)))
    rc =
        hc_mpi_raise(*c, fn, MPI_ERR_INFO, "invalid info 0x%x", (unsigned)info);
  return rc;
}

/* Wraps engine (NULL: filled in later by a non-blocking dup) into *newcomm
 * with the info and attributes a dup of c carries. */
static int comm_dup_wrap(const char *fn, hc_mpi_comm_t *c, int use_info,
                         hc_mpi_info_t *hints, hcomm_comm_t *engine,
                         MPI_Comm *newcomm) {
  int rc = comm_wrap(fn, c, engine, newcomm);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_comm_t *n = hc_mpi_comm_get(*newcomm);
  if (use_info ? hints != NULL : c->info != NULL) {
    n->info = hc_mpi_info_copy_keys(use_info ? hints : c->info, comm_info_keys);
    if (!n->info)
      rc = hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  /* The topology travels with the duplicate (MPI 4.0 section 7.4.2). */
  if (rc == MPI_SUCCESS && hc_mpi_topo_copy(c->topo, &n->topo) != MPI_SUCCESS)
    rc = hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_attr_copy_all(fn, c, n);
  if (rc != MPI_SUCCESS) {
    hc_mpi_attr_delete_all(fn, n);
    comm_discard(newcomm);
  }
  return rc;
}

static int comm_dup(const char *fn, MPI_Comm comm, int use_info, MPI_Info info,
                    MPI_Comm *newcomm) {
  hc_mpi_comm_t *c = NULL;
  hc_mpi_info_t *hints = NULL;
  int rc = comm_dup_enter(fn, comm, use_info, info, newcomm, &c, &hints);
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_comm_t *engine = NULL;
  hc_status_t st = hcomm_comm_dup(c->engine, &engine);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  return comm_dup_wrap(fn, c, use_info, hints, engine, newcomm);
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  return comm_dup("MPI_Comm_dup", comm, 0, MPI_INFO_NULL, newcomm);
}
HC_WEAK_ALIAS(MPI_Comm_dup, PMPI_Comm_dup);

int hc_mpi_comm_split_make(const char *fn, hc_mpi_comm_t *parent, int color,
                           int key, MPI_Comm *out) {
  hcomm_comm_t *engine = NULL;
  int ecolor = color == MPI_UNDEFINED ? HCOMM_UNDEFINED : color;
  hc_status_t st = hcomm_comm_split(parent->engine, ecolor, key, &engine);
  if (st != HC_OK)
    return hc_mpi_raise_status(parent, fn, st);
  if (!engine) {
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  return comm_wrap(fn, parent, engine, out);
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  static const char fn[] = "MPI_Comm_split";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, newcomm, "newcomm");
  if (rc != MPI_SUCCESS)
    return rc;
  if (color < 0 && color != MPI_UNDEFINED)
    return hc_mpi_raise(c, fn, MPI_ERR_ARG,
                        "invalid color %d (must be >= 0 or MPI_UNDEFINED)",
                        color);
  return hc_mpi_comm_split_make(fn, c, color, key, newcomm);
}
HC_WEAK_ALIAS(MPI_Comm_split, PMPI_Comm_split);

int PMPI_Comm_free(MPI_Comm *comm) {
  static const char fn[] = "MPI_Comm_free";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_check_ptr(fn, NULL, comm, "comm");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_comm_enter(fn, *comm, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  if (c->builtin)
    return hc_mpi_raise(c, fn, MPI_ERR_COMM, "cannot free %s",
                        c->handle == MPI_COMM_WORLD ? "MPI_COMM_WORLD"
                                                    : "MPI_COMM_SELF");
  /* Delete callbacks run first: one that fails leaves comm alive. */
  rc = hc_mpi_attr_delete_all(fn, c);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_stream_quiesce(c->streams); /* enqueued work names the handle */
  hc_handle_free(&comm_table, c->handle);
  hc_mpi_comm_release(c);
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Comm_free, PMPI_Comm_free);

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result) {
  static const char fn[] = "MPI_Comm_compare";
  hc_mpi_comm_t *a = NULL, *b = NULL;
  int rc = hc_mpi_comm_enter(fn, comm1, &a);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_comm_enter(fn, comm2, &b);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, a, result, "result");
  if (rc != MPI_SUCCESS)
    return rc;
  if (a == b) {
    *result = MPI_IDENT;
    return MPI_SUCCESS;
  }
  switch (hcomm_comm_compare(a->engine, b->engine)) {
  case HCOMM_IDENT:
    *result = MPI_IDENT;
    break;
  case HCOMM_CONGRUENT:
    *result = MPI_CONGRUENT;
    break;
  case HCOMM_SIMILAR:
    *result = MPI_SIMILAR;
    break;
  default:
    *result = MPI_UNEQUAL;
    break;
  }
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Comm_compare, PMPI_Comm_compare);

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm) {
  return comm_dup("MPI_Comm_dup_with_info", comm, 1, info, newcomm);
}
HC_WEAK_ALIAS(MPI_Comm_dup_with_info, PMPI_Comm_dup_with_info);

/* The duplicate (of an intra- or intercommunicator) is agreed by the
 * engine without blocking: the handle, info and attributes are made now
 * (attribute copy callbacks run in this call), and the engine fills in the
 * new context before the request completes; the handle must not be used
 * before (MPI 4.0 section 7.4.2). */
static int comm_idup(const char *fn, MPI_Comm comm, int use_info, MPI_Info info,
                     MPI_Comm *newcomm, MPI_Request *request) {
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, request, "request");
  hc_mpi_info_t *hints = NULL;
  if (rc == MPI_SUCCESS)
    rc = comm_dup_enter(fn, comm, use_info, info, newcomm, &c, &hints);
  if (rc == MPI_SUCCESS)
    rc = comm_dup_wrap(fn, c, use_info, hints, NULL, newcomm);
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_request_t *eng = NULL;
  hc_mpi_comm_t *n = hc_mpi_comm_get(*newcomm);
  hc_status_t st = hcomm_comm_idup(c->engine, &n->engine, &eng);
  if (st == HC_OK)
    return hc_mpi_request_wrap(fn, c, eng, request);
  hc_mpi_attr_delete_all(fn, n);
  comm_discard(newcomm);
  return hc_mpi_raise_status(c, fn, st);
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request) {
  return comm_idup("MPI_Comm_idup", comm, 0, MPI_INFO_NULL, newcomm, request);
}
HC_WEAK_ALIAS(MPI_Comm_idup, PMPI_Comm_idup);

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                             MPI_Request *request) {
  return comm_idup("MPI_Comm_idup_with_info", comm, 1, info, newcomm, request);
}
HC_WEAK_ALIAS(MPI_Comm_idup_with_info, PMPI_Comm_idup_with_info);

/* Wraps engine (NULL: this rank is not in the result) into *newcomm. */
static int comm_wrap_or_null(const char *fn, hc_mpi_comm_t *parent,
                             hcomm_comm_t *engine, MPI_Comm *newcomm) {
  if (!engine) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  return comm_wrap(fn, parent, engine, newcomm);
}

/* Entry of the calls that build on any communicator. */
static int comm_enter_build(const char *fn, MPI_Comm comm, void *out,
                            hc_mpi_comm_t **c) {
  int rc = hc_mpi_comm_enter(fn, comm, c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, *c, out, "newcomm");
  return rc;
}

/* Entry of the calls that build on an intracommunicator only. */
static int comm_enter_intra(const char *fn, MPI_Comm comm, void *out,
                            hc_mpi_comm_t **c) {
  int rc = comm_enter_build(fn, comm, out, c);
  if (rc == MPI_SUCCESS && hcomm_comm_is_inter((*c)->engine))
    rc = hc_mpi_raise(*c, fn, MPI_ERR_COMM,
                      "not supported on an intercommunicator");
  return rc;
}

/* Ranks in comm of the group's members (malloc'd); *me is the caller's
 * position in the group or -1.  MPI_ERR_GROUP when a member is not in
 * comm. */
static int comm_group_ranks(const char *fn, hc_mpi_comm_t *c, MPI_Group group,
                            int *n, int **ranks, int *me) {
  const int *world;
  int rc = hc_mpi_group_members(fn, c, group, n, &world);
  if (rc != MPI_SUCCESS)
    return rc;
  int size = hcomm_comm_size(c->engine);
  int wsize = hcomm_process_count(); /* the world and run-time peers */
  int myworld = hcomm_comm_world_rank(c->engine, hcomm_comm_rank(c->engine));
  if (size < 0 || wsize < 0)
    return hc_mpi_raise(c, fn, MPI_ERR_INTERN, "communicator without members");
  int *map = malloc((size_t)wsize * sizeof(int));
  *ranks = malloc((size_t)*n * sizeof(int) + 1);
  if (!map || !*ranks) {
    free(map);
    free(*ranks);
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  for (int w = 0; w < wsize; w++)
    map[w] = -1;
  for (int r = 0; r < size; r++)
    map[hcomm_comm_world_rank(c->engine, r)] = r;
  *me = -1;
  for (int i = 0; i < *n && rc == MPI_SUCCESS; i++) {
    (*ranks)[i] = map[world[i]];
    if (world[i] == myworld)
      *me = i;
    if ((*ranks)[i] < 0)
      rc = hc_mpi_raise(c, fn, MPI_ERR_GROUP,
                        "group member %d (world rank %d) is not in the "
                        "communicator",
                        i, world[i]);
  }
  free(map);
  if (rc != MPI_SUCCESS)
    free(*ranks);
  return rc;
}

/* A split in disguise: a group is named by its first member's rank, and
 * the position in the group is the key, so disjoint groups (MPI-2.2) work
 * too.  On an intercommunicator group is a subgroup of the local group and
 * each side names one: every member joins color 0, and a side whose group
 * is empty leaves everyone with MPI_COMM_NULL. */
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
  static const char fn[] = "MPI_Comm_create";
  hc_mpi_comm_t *c = NULL;
  int n, *ranks = NULL, me;
  int rc = comm_enter_build(fn, comm, newcomm, &c);
  if (rc == MPI_SUCCESS)
    rc = comm_group_ranks(fn, c, group, &n, &ranks, &me);
  if (rc != MPI_SUCCESS)
    return rc;
  /* A member (me >= 0) means the group is not empty. */
  int color = me < 0                          ? HCOMM_UNDEFINED
              : hcomm_comm_is_inter(c->engine) ? 0
                                               : ranks[0];
  free(ranks);
  hcomm_comm_t *engine = NULL;
  hc_status_t st = hcomm_comm_split(c->engine, color, me, &engine);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  return comm_wrap_or_null(fn, c, engine, newcomm);
}
HC_WEAK_ALIAS(MPI_Comm_create, PMPI_Comm_create);

/* A process outside group gets MPI_COMM_NULL without communicating, as
 * MPICH does. */
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
                           MPI_Comm *newcomm) {
  static const char fn[] = "MPI_Comm_create_group";
  hc_mpi_comm_t *c = NULL;
  int n, *ranks = NULL, me;
  int rc = comm_enter_intra(fn, comm, newcomm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_send_tag(fn, c, tag);
  if (rc == MPI_SUCCESS)
    rc = comm_group_ranks(fn, c, group, &n, &ranks, &me);
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_comm_t *engine = NULL;
  hc_status_t st = HC_OK;
  if (me >= 0)
    st = hcomm_comm_create_group(c->engine, n, ranks, tag, &engine);
  free(ranks);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  return comm_wrap_or_null(fn, c, engine, newcomm);
}
HC_WEAK_ALIAS(MPI_Comm_create_group, PMPI_Comm_create_group);

/* The node's color in a split: its lowest world rank, below the world
 * size. */
static int comm_node_color(void) {
  const int *node = NULL;
  hcomm_node_world_ranks(&node);
  return node[0];
}

/* Every memory "hardware" level we know is the node: mpi_hw_resource_type
 * joins it only for mpi_shared_memory. */
static int comm_hw_color(MPI_Info info) {
  char value[64];
  int flag = 0;
  PMPI_Info_get(info, "mpi_hw_resource_type", (int)sizeof value - 1, value,
                &flag);
  return flag && strcmp(value, "mpi_shared_memory") == 0 ? comm_node_color()
                                                         : HCOMM_UNDEFINED;
}

/* mpi_pset_name colors by the instance of the named process set, from the
 * world size up, so that it never meets a node's color when ranks use
 * different keys in one call.  A name hcmpi does not know, or a set this
 * process is not in, is MPI_COMM_NULL (MPI-4.1 7.4.2). */
static int comm_pset_color(const char *fn, hc_mpi_comm_t *c, MPI_Info info,
                           int *color) {
  char name[MPI_MAX_INFO_VAL + 1] = "";
  int flag = 0, instance = -1;
  PMPI_Info_get(info, "mpi_pset_name", MPI_MAX_INFO_VAL, name, &flag);
  if (hc_mpi_pset_instance(name, &instance) != MPI_SUCCESS)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  int world = hcomm_comm_size(hcomm_comm_world());
  if (instance > INT_MAX - world)
    return hc_mpi_raise(c, fn, MPI_ERR_OTHER,
                        "process set \"%s\" has no color among %d processes",
                        name, world);
  *color = instance < 0 ? HCOMM_UNDEFINED : world + instance;
  return MPI_SUCCESS;
}

/* RESOURCE_GUIDED reads one key of two; both in one info is erroneous
 * (MPI-4.1 7.4.2), raised as MPI_ERR_INFO. */
static int comm_resource_color(const char *fn, hc_mpi_comm_t *c, MPI_Info info,
                               int *color) {
  int len = 0, hw = 0, pset = 0;
  PMPI_Info_get_valuelen(info, "mpi_hw_resource_type", &len, &hw);
  PMPI_Info_get_valuelen(info, "mpi_pset_name", &len, &pset);
  if (hw && pset)
    return hc_mpi_raise(c, fn, MPI_ERR_INFO,
                        "info holds both mpi_hw_resource_type and "
                        "mpi_pset_name; a split is guided by one");
  if (pset)
    return comm_pset_color(fn, c, info, color);
  *color = comm_hw_color(info);
  return MPI_SUCCESS;
}

/* This rank's color in a split by split_type (HCOMM_UNDEFINED: none).
 * HW_UNGUIDED never joins (the standard allows MPI_COMM_NULL when no finer
 * level than the node exists), and neither do the guided types without
 * info. */
static int comm_split_color(const char *fn, hc_mpi_comm_t *c, int split_type,
                            MPI_Info info, int *color) {
  *color = HCOMM_UNDEFINED;
  if (info != MPI_INFO_NULL && !hc_mpi_info_get(info))
    return hc_mpi_raise(c, fn, MPI_ERR_INFO, "invalid info 0x%x",
                        (unsigned)info);
  switch (split_type) {
  case MPI_UNDEFINED:
  case MPI_COMM_TYPE_HW_UNGUIDED:
    return MPI_SUCCESS;
  case MPI_COMM_TYPE_SHARED:
    *color = comm_node_color();
    return MPI_SUCCESS;
  case MPI_COMM_TYPE_HW_GUIDED:
    if (info != MPI_INFO_NULL)
      *color = comm_hw_color(info);
    return MPI_SUCCESS;
  case MPI_COMM_TYPE_RESOURCE_GUIDED:
    if (info == MPI_INFO_NULL)
      return MPI_SUCCESS;
    return comm_resource_color(fn, c, info, color);
  default:
    return hc_mpi_raise(c, fn, MPI_ERR_ARG, "invalid split_type %d",
                        split_type);
  }
}

/* World ranks, so the colors made from them, are numbered apart in each
 * job, and nodes and process sets are a job's own (jobs share no memory,
 * docs/dynamic.md): where a split met processes of two jobs (in a
 * communicator that spawn, connect or join made), each job's members split
 * again on their own.  Each sees the other jobs' members as run-time peers
 * (world ranks from the world size on), so all members agree whether to. */
static hc_status_t comm_split_apart_jobs(hcomm_comm_t **newcomm) {
  hcomm_comm_t *mixed = *newcomm;
  if (mixed == NULL || hcomm_comm_is_inter(mixed))
    return HC_OK;
  int world = hcomm_comm_size(hcomm_comm_world());
  int n = hcomm_comm_size(mixed), first_own = -1, foreign = 0;
  for (int r = 0; r < n; r++) {
    if (hcomm_comm_world_rank(mixed, r) >= world)
      foreign = 1;
    else if (first_own < 0)
      first_own = r;
  }
  if (!foreign)
    return HC_OK;
  hc_status_t st =
      hcomm_comm_split(mixed, first_own, hcomm_comm_rank(mixed), newcomm);
  hcomm_comm_free(mixed);
  return st;
}

/* MPIX_COMM_TYPE_NEIGHBORHOOD as MPICH 4.2 and later number it. */
#define COMM_TYPE_NEIGHBORHOOD_MPICH42 5

/* Whether split_type asks for MPICH's neighborhood split: 5, or 4 (also
 * MPI_COMM_TYPE_RESOURCE_GUIDED, see mpi.h) with the neighborhood's hint,
 * which a resource-guided split never reads. */
static int comm_split_is_neighborhood(int split_type, MPI_Info info) {
  if (split_type == COMM_TYPE_NEIGHBORHOOD_MPICH42)
    return 1;
  if (split_type != MPIX_COMM_TYPE_NEIGHBORHOOD || info == MPI_INFO_NULL ||
      hc_mpi_info_get(info) == NULL)
    return 0;
  int len = 0, flag = 0;
  PMPI_Info_get_valuelen(info, "nbhd_common_dirname", &len, &flag);
  return flag;
}

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                         MPI_Comm *newcomm) {
  static const char fn[] = "MPI_Comm_split_type";
  hc_mpi_comm_t *c = NULL;
  int color = HCOMM_UNDEFINED;
  int rc = comm_enter_build(fn, comm, newcomm, &c);
  if (rc == MPI_SUCCESS && comm_split_is_neighborhood(split_type, info)) {
    if (info != MPI_INFO_NULL && !hc_mpi_info_get(info))
      return hc_mpi_raise(c, fn, MPI_ERR_INFO, "invalid info 0x%x",
                          (unsigned)info);
    hcomm_comm_t *engine = NULL;
    rc = hc_mpi_comm_split_neighborhood(fn, c, info, key, &engine);
    return rc == MPI_SUCCESS ? comm_wrap_or_null(fn, c, engine, newcomm) : rc;
  }
  if (rc == MPI_SUCCESS)
    rc = comm_split_color(fn, c, split_type, info, &color);
  if (rc != MPI_SUCCESS)
    return rc;
  /* One engine split for every type but the neighborhood, so that ranks
   * that pass MPI_UNDEFINED, no info or different keys meet in it. */
  hcomm_comm_t *engine = NULL;
  hc_status_t st = hcomm_comm_split(c->engine, color, key, &engine);
  if (st == HC_OK)
    st = comm_split_apart_jobs(&engine);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  return comm_wrap_or_null(fn, c, engine, newcomm);
}
HC_WEAK_ALIAS(MPI_Comm_split_type, PMPI_Comm_split_type);

/* ---- names, info, inter queries ------------------------------------------ */

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name) {
  static const char fn[] = "MPI_Comm_set_name";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, comm_name, "comm_name");
  if (rc != MPI_SUCCESS)
    return rc;
  /* Longer names are truncated, as MPICH does. */
  hc_lock(&comm_lock);
  snprintf(c->name, sizeof c->name, "%s", comm_name);
  hc_unlock(&comm_lock);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Comm_set_name, PMPI_Comm_set_name);

/* MPI-4.1 lets MPI_COMM_NULL be asked its name (Annex B.1.2, item 18),
 * not given one. */
int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen) {
  static const char fn[] = "MPI_Comm_get_name";
  hc_mpi_comm_t *c = NULL;
  int rc = comm == MPI_COMM_NULL ? hc_mpi_check_ready(fn)
                                 : hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, comm_name, "comm_name");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, resultlen, "resultlen");
  if (rc != MPI_SUCCESS)
    return rc;
  if (c == NULL) {
    snprintf(comm_name, MPI_MAX_OBJECT_NAME, "MPI_COMM_NULL");
  } else {
    hc_lock(&comm_lock);
    memcpy(comm_name, c->name, sizeof c->name);
    hc_unlock(&comm_lock);
  }
  *resultlen = (int)strlen(comm_name);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Comm_get_name, PMPI_Comm_get_name);

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  static const char fn[] = "MPI_Comm_set_info";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_info_t *hints = hc_mpi_info_get(info);
  if (!hints)
    return hc_mpi_raise(c, fn, MPI_ERR_INFO, "invalid info 0x%x",
                        (unsigned)info);
  hc_mpi_info_t *copy = hc_mpi_info_copy_keys(hints, comm_info_keys);
  if (!copy)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  hc_lock(&comm_lock);
  hc_mpi_info_t *old = c->info;
  c->info = copy;
  hc_unlock(&comm_lock);
  hc_mpi_info_destroy(old);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Comm_set_info, PMPI_Comm_set_info);

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used) {
  static const char fn[] = "MPI_Comm_get_info";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, info_used, "info_used");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_lock(&comm_lock);
  hc_mpi_info_t *copy = hc_mpi_info_copy(c->info);
  hc_unlock(&comm_lock);
  return hc_mpi_info_publish(fn, c, copy, info_used);
}
HC_WEAK_ALIAS(MPI_Comm_get_info, PMPI_Comm_get_info);

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag) {
  static const char fn[] = "MPI_Comm_test_inter";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, flag, "flag");
  if (rc == MPI_SUCCESS)
    *flag = hcomm_comm_is_inter(c->engine);
  return rc;
}
HC_WEAK_ALIAS(MPI_Comm_test_inter, PMPI_Comm_test_inter);

int PMPI_Comm_remote_size(MPI_Comm comm, int *size) {
  static const char fn[] = "MPI_Comm_remote_size";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, size, "size");
  if (rc == MPI_SUCCESS && !hcomm_comm_is_inter(c->engine))
    rc = hc_mpi_raise(c, fn, MPI_ERR_COMM, "not an intercommunicator");
  if (rc == MPI_SUCCESS)
    *size = hcomm_comm_remote_size(c->engine);
  return rc;
}
HC_WEAK_ALIAS(MPI_Comm_remote_size, PMPI_Comm_remote_size);

/* ---- intercommunicators -------------------------------------------------- */

/* peer_comm and remote_leader matter only at the local leader. */
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader,
                          MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm *newintercomm) {
  static const char fn[] = "MPI_Intercomm_create";
  hc_mpi_comm_t *c = NULL, *peer = NULL;
  int rc = comm_enter_intra(fn, local_comm, newintercomm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_send_tag(fn, c, tag);
  if (rc == MPI_SUCCESS &&
      (local_leader < 0 || local_leader >= hcomm_comm_size(c->engine)))
    rc = hc_mpi_raise(c, fn, MPI_ERR_RANK,
                      "invalid local_leader %d for a communicator of size %d",
                      local_leader, hcomm_comm_size(c->engine));
  int leader = rc == MPI_SUCCESS && hcomm_comm_rank(c->engine) == local_leader;
  if (leader)
    rc = hc_mpi_comm_enter(fn, peer_comm, &peer);
  if (leader && rc == MPI_SUCCESS)
    rc = hc_mpi_check_dest(fn, peer, remote_leader);
  if (leader && rc == MPI_SUCCESS && remote_leader == MPI_PROC_NULL)
    rc = hc_mpi_raise(c, fn, MPI_ERR_RANK, "remote_leader MPI_PROC_NULL");
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_comm_t *engine = NULL;
  hc_status_t st = hcomm_intercomm_create(c->engine, local_leader,
                                          peer ? peer->engine : NULL,
                                          remote_leader, tag, &engine);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  return comm_wrap(fn, c, engine, newintercomm);
}
HC_WEAK_ALIAS(MPI_Intercomm_create, PMPI_Intercomm_create);

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm) {
  static const char fn[] = "MPI_Intercomm_merge";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, intercomm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, newintracomm, "newintracomm");
  if (rc == MPI_SUCCESS && !hcomm_comm_is_inter(c->engine))
    rc = hc_mpi_raise(c, fn, MPI_ERR_COMM, "not an intercommunicator");
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_comm_t *engine = NULL;
  hc_status_t st = hcomm_intercomm_merge(c->engine, high, &engine);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  return comm_wrap(fn, c, engine, newintracomm);
}
HC_WEAK_ALIAS(MPI_Intercomm_merge, PMPI_Intercomm_merge);
