/*
 * Communicator objects and the MPI_Comm_* calls that create, query and free
 * them.  WORLD and SELF are static objects bound to the engine at MPI_Init;
 * others live in the handle table.
 */
#include <pthread.h>
#include <stdlib.h>

#include "mpi/handle.h"
#include "mpi/mpi_impl.h"

static hc_mpi_comm_t comm_world_obj = {NULL, MPI_COMM_WORLD, 1, NULL, 1};
static hc_mpi_comm_t comm_self_obj = {NULL, MPI_COMM_SELF, 1, NULL, 1};
static hc_handle_table_t comm_table =
    HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_COMM, 0);
/* Guards every comm's errh pointer and the builtins' default handler. */
static pthread_mutex_t comm_lock = PTHREAD_MUTEX_INITIALIZER;

hc_mpi_comm_t *hc_mpi_comm_world(void) { return &comm_world_obj; }

hc_mpi_comm_t *hc_mpi_comm_get(MPI_Comm handle) {
  if (handle == MPI_COMM_WORLD)
    return &comm_world_obj;
  if (handle == MPI_COMM_SELF)
    return &comm_self_obj;
  return hc_handle_get(&comm_table, handle);
}

int hc_mpi_comm_enter(const char *fn, MPI_Comm comm, hc_mpi_comm_t **out) {
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
  *out = c;
  return MPI_SUCCESS;
}

hc_mpi_errhandler_t *hc_mpi_comm_errhandler(hc_mpi_comm_t *comm) {
  pthread_mutex_lock(&comm_lock);
  hc_mpi_errhandler_t *e = comm->errh;
  if (!e)
    e = hc_mpi_errhandler_get(MPI_ERRORS_ARE_FATAL);
  hc_mpi_errhandler_retain(e);
  pthread_mutex_unlock(&comm_lock);
  return e;
}

void hc_mpi_comm_set_errhandler(hc_mpi_comm_t *comm, hc_mpi_errhandler_t *e) {
  hc_mpi_errhandler_retain(e);
  pthread_mutex_lock(&comm_lock);
  hc_mpi_errhandler_t *old = comm->errh;
  comm->errh = e;
  pthread_mutex_unlock(&comm_lock);
  if (old)
    hc_mpi_errhandler_release(old);
}

void hc_mpi_comm_retain(hc_mpi_comm_t *comm) {
  if (comm->builtin)
    return;
  pthread_mutex_lock(&comm_lock);
  comm->refs++;
  pthread_mutex_unlock(&comm_lock);
}

void hc_mpi_comm_release(hc_mpi_comm_t *comm) {
  if (comm->builtin)
    return;
  pthread_mutex_lock(&comm_lock);
  int last = --comm->refs == 0;
  pthread_mutex_unlock(&comm_lock);
  if (!last)
    return;
  if (comm->errh)
    hc_mpi_errhandler_release(comm->errh);
  free(comm);
}

void hc_mpi_comm_bind_builtins(void) {
  comm_world_obj.engine = hcomm_comm_world();
  comm_self_obj.engine = hcomm_comm_self();
}

/* Wraps an engine communicator; the handler is inherited from parent. */
static int comm_wrap(const char *fn, hc_mpi_comm_t *parent,
                     hcomm_comm_t *engine, MPI_Comm *out) {
  hc_mpi_comm_t *c = calloc(1, sizeof(*c));
  if (!c || hc_handle_alloc(&comm_table, c, &c->handle) != 0) {
    free(c);
    hcomm_comm_free(engine);
    return hc_mpi_raise(parent, fn, MPI_ERR_NO_MEM,
                        "out of memory for a new communicator");
  }
  c->engine = engine;
  c->refs = 1;
  hc_mpi_errhandler_t *e = hc_mpi_comm_errhandler(parent);
  hc_mpi_comm_set_errhandler(c, e);
  hc_mpi_errhandler_release(e);
  *out = c->handle;
  return MPI_SUCCESS;
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
#pragma weak MPI_Comm_rank = PMPI_Comm_rank

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
#pragma weak MPI_Comm_size = PMPI_Comm_size

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  static const char fn[] = "MPI_Comm_dup";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, newcomm, "newcomm");
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_comm_t *engine = NULL;
  hc_status_t st = hcomm_comm_dup(c->engine, &engine);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  return comm_wrap(fn, c, engine, newcomm);
}
#pragma weak MPI_Comm_dup = PMPI_Comm_dup

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
  hcomm_comm_t *engine = NULL;
  int ecolor = color == MPI_UNDEFINED ? HCOMM_UNDEFINED : color;
  hc_status_t st = hcomm_comm_split(c->engine, ecolor, key, &engine);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  if (!engine) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  return comm_wrap(fn, c, engine, newcomm);
}
#pragma weak MPI_Comm_split = PMPI_Comm_split

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
  hc_status_t st = hcomm_comm_free(c->engine);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  hc_handle_free(&comm_table, c->handle);
  hc_mpi_comm_release(c);
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_free = PMPI_Comm_free

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
#pragma weak MPI_Comm_compare = PMPI_Comm_compare
