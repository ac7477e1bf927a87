/*
 * Face-internal declarations of the MPI binding (src/mpi/): the objects
 * behind communicator, errhandler and request handles, and the helpers the
 * binding files share.  Nothing here is exported from the library.
 */
#ifndef HC_MPI_IMPL_H
#define HC_MPI_IMPL_H

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>

#include "hcomm.h"
#include "mpi/datatype.h"
#include "mpi/errors.h"
#include "mpi/reqpool.h"
#include "mpi/weak_alias.h"

/* ---- error handlers (errhandler.c) -------------------------------------- */

enum hc_mpi_errh_kind {
  HC_ERRH_FATAL = 0,
  HC_ERRH_RETURN = 1,
  HC_ERRH_ABORT = 2,
  HC_ERRH_USER = 3
};

typedef struct hc_mpi_errhandler {
  int kind; /* an hc_mpi_errh_kind */
  MPI_Comm_errhandler_function *fn;
  int refs;   /* user references plus communicators using it */
  int handle; /* MPI_Errhandler value */
  MPI_File_errhandler_function *file_fn; /* MPI_File_create_errhandler */
  /* A user handler made for sessions (fn is then NULL): it is called with
   * an MPI_Session, and only sessions take it. */
  MPI_Session_errhandler_function *session_fn;
} hc_mpi_errhandler_t;

/* The handler object of a valid errhandler handle, else NULL. */
hc_mpi_errhandler_t *hc_mpi_errhandler_get(MPI_Errhandler handle);
/* Takes / drops one reference; builtin handlers are never freed. */
void hc_mpi_errhandler_retain(hc_mpi_errhandler_t *errh);
void hc_mpi_errhandler_release(hc_mpi_errhandler_t *errh);
/* A new user handler (one user reference) calling comm_fn, file_fn or
 * session_fn (the others NULL); MPI_ERR_NO_MEM raised on fn. */
int hc_mpi_errhandler_new_user(const char *fn,
                               MPI_Comm_errhandler_function *comm_fn,
                               MPI_File_errhandler_function *file_fn,
                               MPI_Session_errhandler_function *session_fn,
                               MPI_Errhandler *out);
/* Runs errh on handle (a communicator, or a session for a session handler)
 * as raising errclass does: a user handler is called with the class, the
 * fatal ones end the job with line.  Releases the caller's reference. */
void hc_mpi_errhandler_invoke(hc_mpi_errhandler_t *errh, int handle,
                              int errclass, const char *line);
/* hc_mpi_raise on a handler of no communicator (a session's, the one
 * given to MPI_Comm_create_from_group); takes over the caller's reference
 * on errh.  Returns errclass (not MPI_SUCCESS). */
int hc_mpi_raise_on(hc_mpi_errhandler_t *errh, int handle, const char *fn,
                    int errclass, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Which instance of the process set called name (session.c) this process
 * belongs to: a number below the count of process sets times the world
 * size that every member of that very set finds alike and members of
 * another set (another name, or the node of another node) never do; -1
 * where no set has that name or this process is not a member.  Returns
 * MPI_SUCCESS, or MPI_ERR_NO_MEM (raised on nothing). */
int hc_mpi_pset_instance(const char *name, int *instance);
/* Raises errclass from fn on the session's handler (the world's when
 * session names none); returns errclass. */
int hc_mpi_session_raise(MPI_Session session, const char *fn, int errclass,
                         const char *what);

/* ---- communicators (comm.c) --------------------------------------------- */

typedef struct hc_mpi_attr hc_mpi_attr_t; /* attr.c */
typedef struct hc_mpi_info hc_mpi_info_t; /* info.c */
typedef struct hc_mpi_topo hc_mpi_topo_t; /* topo.c */

/* What the blocking collectives' fast path (coll_ctx.c) decided once for a
 * communicator, so that a call of the common case (an intracommunicator,
 * a predefined datatype and op, host memory) reaches the engine in a few
 * loads.  Read and written only by collectives on the communicator, which
 * MPI forbids two threads to call at once.  Zero: nothing decided. */
typedef struct hc_mpi_coll_fast {
  int ready; /* 1: an intracommunicator whose calls may take the fast path */
  int rank, size;
  /* The last datatype a Bcast moved as it is (predefined and dense). */
  MPI_Datatype move_handle;
  const hc_mpi_type_t *move_type;
  /* The last predefined datatype and op a reduction resolved, and the
   * engine's kernel for them (reducing the user's buffers as they are). */
  MPI_Datatype red_handle;
  MPI_Op red_op;
  const hc_mpi_type_t *red_type;
  hcomm_reduce_op_t red_kernel;
} hc_mpi_coll_fast_t;

typedef struct hc_mpi_comm {
  hcomm_comm_t *engine;      /* NULL only for the builtins before MPI_Init */
  /* hcomm_comm_peer_size(engine), set with engine (hc_mpi_comm_set_engine):
   * every point-to-point call's checks read it, a call into the engine
   * each time otherwise (bench/NOTES.md, face18). */
  int peer_size;
  int handle;                /* MPI_Comm value */
  int builtin;               /* WORLD or SELF: never freed */
  hc_mpi_errhandler_t *errh; /* read and written under the comm lock */
  int refs; /* the handle plus requests on it; under the comm lock */
  char name[MPI_MAX_OBJECT_NAME]; /* MPI_Comm_set_name; "" by default */
  hc_mpi_attr_t *attrs;           /* cached attributes, under attr.c's lock */
  hc_mpi_info_t *info;            /* hints (Comm_set_info); NULL: none */
  hc_mpi_topo_t *topo; /* process topology; NULL: none; fixed once set */
  /* MPIX streams attached (stream.c); NULL: not a stream communicator. */
  struct hc_mpi_stream_attach *streams;
  hc_mpi_coll_fast_t coll_fast; /* coll_ctx.c */
  /* MPI_Comm_attach_buffer's buffer (bsend_pool.h); NULL: none. */
  struct hc_mpi_bsend_pool *bsend;
  /* The session the communicator derives from (through a group of its
   * process sets), whose buffer its buffered sends fall back on; 0: none
   * (the world model's). */
  MPI_Session session;
} hc_mpi_comm_t;

/* Binds comm to its engine communicator (or NULL) and keeps its size. */
static inline void hc_mpi_comm_set_engine(hc_mpi_comm_t *comm,
                                          hcomm_comm_t *engine) {
  comm->engine = engine;
  comm->peer_size = hcomm_comm_peer_size(engine);
}
/* The object of a valid communicator handle (builtins included), else NULL.
 * Does not check that MPI is initialised. */
hc_mpi_comm_t *hc_mpi_comm_get(MPI_Comm handle);
/* The builtin MPI_COMM_WORLD object; exists before MPI_Init. */
hc_mpi_comm_t *hc_mpi_comm_world(void);
/* The builtin objects themselves (comm.c), for hc_mpi_comm_enter's inline
 * test. */
extern hc_mpi_comm_t hc_mpi_comm_world_obj;
extern hc_mpi_comm_t hc_mpi_comm_self_obj;
/* hc_mpi_comm_enter's checks one by one, in the order their errors are
 * raised. */
int hc_mpi_comm_enter_each(const char *fn, MPI_Comm comm, hc_mpi_comm_t **out);
static inline int hc_mpi_world_active(void);
/* Entry check of every call on a communicator: MPI initialised and not
 * finalised, and comm valid.  Raises the error otherwise.  WORLD and
 * SELF, most calls' communicators, are usable exactly while the world
 * model runs (which holds the engine: MPI_Init takes it before and
 * MPI_Finalize gives it back after the world's state changes), so one
 * test answers for them.  Inline: called, it cost every MPI_Isend and
 * MPI_Irecv a frame (~25 instructions, bench/NOTES.md recv18). */
static inline int hc_mpi_comm_enter(const char *fn, MPI_Comm comm,
                                    hc_mpi_comm_t **out) {
  if ((comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF) &&
      hc_mpi_world_active()) {
    *out = comm == MPI_COMM_WORLD ? &hc_mpi_comm_world_obj
                                  : &hc_mpi_comm_self_obj;
    return MPI_SUCCESS;
  }
  return hc_mpi_comm_enter_each(fn, comm, out);
}
/* comm's object when hc_mpi_comm_enter would take it, else NULL (raises
 * nothing: a fast path tries it and leaves errors to the general path). */
hc_mpi_comm_t *hc_mpi_comm_try(MPI_Comm comm);
/* MPI_Comm_split_type(MPIX_COMM_TYPE_NEIGHBORHOOD) over c: *newcomm is
 * NULL for MPI_COMM_NULL (comm_neighborhood.c). */
int hc_mpi_comm_split_neighborhood(const char *fn, hc_mpi_comm_t *c,
                                   MPI_Info info, int key,
                                   hcomm_comm_t **newcomm);
/* The handler of comm (a counted reference the caller releases). */
hc_mpi_errhandler_t *hc_mpi_comm_errhandler(hc_mpi_comm_t *comm);
/* Replaces comm's handler (takes a reference on errh). */
void hc_mpi_comm_set_errhandler(hc_mpi_comm_t *comm, hc_mpi_errhandler_t *errh);
/* Requests keep their communicator alive past MPI_Comm_free, so an error
 * they report later still finds its handler.  WORLD and SELF are never
 * freed: their references are not counted, and cost one test inline. */
void hc_mpi_comm_retain_counted(hc_mpi_comm_t *comm);
void hc_mpi_comm_release_counted(hc_mpi_comm_t *comm);
static inline void hc_mpi_comm_retain(hc_mpi_comm_t *comm) {
  if (!comm->builtin)
    hc_mpi_comm_retain_counted(comm);
}
static inline void hc_mpi_comm_release(hc_mpi_comm_t *comm) {
  if (!comm->builtin)
    hc_mpi_comm_release_counted(comm);
}
/* Wraps an engine communicator into a new handle with handler errh (the
 * caller keeps its reference); on failure frees engine and raises
 * MPI_ERR_NO_MEM on errh, telling it err_handle. */
int hc_mpi_comm_adopt(const char *fn, hcomm_comm_t *engine,
                      hc_mpi_errhandler_t *errh, MPI_Comm err_handle,
                      MPI_Comm *out);
/* Binds WORLD and SELF to the engine's communicators (MPI_Init). */
void hc_mpi_comm_bind_builtins(void);
/* MPI_Comm_split's work for calls that build on it (topologies): the
 * members of parent that give color >= 0 (MPI_UNDEFINED: *out is
 * MPI_COMM_NULL), ordered by key, with parent's handler. */
int hc_mpi_comm_split_make(const char *fn, hc_mpi_comm_t *parent, int color,
                           int key, MPI_Comm *out);

/* ---- groups (group.c) --------------------------------------------------- */

/* A new group handle over n world ranks (copied); n == 0 gives
 * MPI_GROUP_EMPTY.  Raises MPI_ERR_NO_MEM through comm. */
int hc_mpi_group_make(const char *fn, hc_mpi_comm_t *comm, int n,
                      const int *world, MPI_Group *out);
/* The members (world ranks, borrowed) of a valid group handle; raises
 * MPI_ERR_GROUP through comm otherwise. */
int hc_mpi_group_members(const char *fn, hc_mpi_comm_t *comm, MPI_Group group,
                         int *n, const int **world);
/* The same without raising: 0, or -1 for an invalid handle. */
int hc_mpi_group_lookup(MPI_Group group, int *n, const int **world);
/* The session a group of a process set came from (0: none, or an invalid
 * group), and its setting (MPI_Group_from_session_pset). */
MPI_Session hc_mpi_group_session(MPI_Group group);
void hc_mpi_group_set_session(MPI_Group group, MPI_Session session);

/* ---- attributes (attr.c) ------------------------------------------------ */

/* Runs the copy callbacks of from's attributes onto to (MPI_Comm_dup). */
int hc_mpi_attr_copy_all(const char *fn, hc_mpi_comm_t *from,
                         hc_mpi_comm_t *to);
/* Runs every delete callback, newest attribute first, and drops the
 * attributes (Comm_free, Finalize).  Stops at a callback that fails. */
int hc_mpi_attr_delete_all(const char *fn, hc_mpi_comm_t *comm);
/* The same for datatypes (MPI_Type_dup, MPI_Type_free). */
int hc_mpi_type_attr_copy_all(const char *fn, hc_mpi_type_t *from,
                              hc_mpi_type_t *to);
int hc_mpi_type_attr_delete_all(const char *fn, hc_mpi_type_t *type);

/* ---- process topologies (topo.c) --------------------------------------- */

/* A deep copy for MPI_Comm_dup (NULL in: NULL out); *copy NULL and
 * MPI_ERR_NO_MEM when memory runs out. */
int hc_mpi_topo_copy(const hc_mpi_topo_t *topo, hc_mpi_topo_t **copy);
void hc_mpi_topo_destroy(hc_mpi_topo_t *topo);
/* The ordered neighbour lists of comm's topology, as the neighbourhood
 * collectives use them: for a Cartesian grid, for each dimension the rank
 * at displacement -1 then +1 (MPI_PROC_NULL past a non-periodic edge),
 * sources and destinations alike; for a graph, the rank's edges in order,
 * sources and destinations alike; for a distributed graph, its sources and
 * destinations in the order given (adjacent form) or of arrival (the
 * other).  The arrays are borrowed and live as long as comm; weights are
 * NULL when the graph is unweighted or not a distributed graph.  Returns
 * 0, or MPI_ERR_TOPOLOGY (raising nothing) when comm has no topology. */
int hc_mpi_topo_neighbors(const hc_mpi_comm_t *comm, int *indegree,
                          const int **sources, const int **sourceweights,
                          int *outdegree, const int **destinations,
                          const int **destweights);

/* ---- info objects (info.c) ---------------------------------------------- */

/* The object of a valid info handle (MPI_INFO_ENV included), else NULL. */
hc_mpi_info_t *hc_mpi_info_get(MPI_Info handle);
/* A deep copy (NULL in: an empty object); NULL when memory runs out. */
hc_mpi_info_t *hc_mpi_info_copy(const hc_mpi_info_t *info);
/* A copy of the keys of info listed in keys (NULL-terminated). */
hc_mpi_info_t *hc_mpi_info_copy_keys(const hc_mpi_info_t *info,
                                     const char *const *keys);
void hc_mpi_info_destroy(hc_mpi_info_t *info);
/* The memory kind (an hcomm_mem_kind) the mpi_memory_alloc_kinds key of
 * info asks an allocating call for (memkind.c): MPI_SUCCESS and *kind
 * (host without the key), or the class of a refusal with why filled in
 * (MPI_ERR_INFO_VALUE: an unknown kind; MPI_ERR_UNSUPPORTED_OPERATION:
 * only kinds hcmpi does not allocate, or a runtime not loaded). */
int hc_mpi_memory_kind(MPI_Info info, int *kind, char *why, size_t why_len);
/* Gives obj a new handle; destroys obj and raises MPI_ERR_NO_MEM on
 * failure. */
int hc_mpi_info_publish(const char *fn, hc_mpi_comm_t *comm, hc_mpi_info_t *obj,
                        MPI_Info *out);

/* ---- life cycle (init.c) ------------------------------------------------ */

/* How many of the world model and the sessions use the engine (init.c). */
extern atomic_int hc_mpi_engine_users;
/* 1 while the engine runs: from the first MPI_Init or MPI_Session_init to
 * the finalize of the last of the world model and the sessions.  Inline:
 * every MPI_Start and MPI_Wait of a persistent collective asks. */
static inline int hc_mpi_is_ready(void) {
  return atomic_load_explicit(&hc_mpi_engine_users, memory_order_acquire) > 0;
}
/* MPI_SUCCESS when ready; otherwise raises MPI_ERR_OTHER saying why. */
int hc_mpi_check_ready(const char *fn);
/* The world model's life (init.c): MPI_Init once, MPI_Finalize once. */
enum hc_mpi_init_state {
  HC_MPI_INIT_BEFORE = 0,
  HC_MPI_INIT_RUNNING = 1,
  HC_MPI_INIT_FINALIZED = 2
};
extern atomic_int hc_mpi_init_state;
/* 1 between MPI_Init and the end of MPI_Finalize (the world model). */
static inline int hc_mpi_world_active(void) {
  return atomic_load_explicit(&hc_mpi_init_state, memory_order_acquire) ==
         HC_MPI_INIT_RUNNING;
}
/* The engine's users (the world model, each session): the first starts it
 * at thread level required, the last stops it (a session parks it: see
 * init.c).  *provided is the level the engine runs at.  Errors are raised
 * on fn, on errh where not NULL (a session's: MPI_Session_init reports on
 * the handler it is given), else on no object. */
int hc_mpi_engine_acquire(const char *fn, hc_mpi_errhandler_t *errh,
                          int required, int *provided);
int hc_mpi_engine_release(const char *fn);

/* ---- statuses (status.c) ------------------------------------------------ */

/* Writes count, cancel bit, source and tag of st into status (unless
 * MPI_STATUS_IGNORE); MPI_ERROR is left alone. */
void hc_mpi_status_fill(MPI_Status *status, const hcomm_status_t *st);
/* The status of an inactive or null request: any source, any tag, 0,
 * error MPI_SUCCESS. */
void hc_mpi_status_empty(MPI_Status *status);
/* The status of a receive from MPI_PROC_NULL. */
void hc_mpi_status_proc_null(MPI_Status *status);
void hc_mpi_status_set_bytes(MPI_Status *status, MPI_Count bytes);
MPI_Count hc_mpi_status_bytes(const MPI_Status *status);

/* ---- datatypes in point-to-point (xfer.c) ------------------------------- */

/* The data of one point-to-point operation as the engine sees it: the
 * user's buffer itself for a dense type, else a packed staging copy of
 * count * size bytes (filled before a send, unpacked after a receive). */
typedef struct hc_mpi_xfer {
  const hc_mpi_type_t *type; /* retained while the xfer lives */
  void *user;
  MPI_Count count;
  void *tmp;    /* staging buffer; NULL when the engine uses user */
  size_t bytes; /* engine byte count */
  int is_recv;
  /* A receive's type's element_mask (hc_mpi_check_whole at its end); 0
   * for a send.  Beside is_recv, in what was padding: the pooled request
   * that holds an xfer keeps its size. */
  unsigned element_mask;
  void *acc; /* large host non-contiguous data the engine packs or unpacks
                fragment by fragment (hc_mpi_xfer_begin_stream); else NULL */
} hc_mpi_xfer_t;

/* For a dense type: the xfer of the user's bytes themselves, which needs
 * no begin (hc_mpi_type_dense(type) must hold); cheaper than init+begin.
 * Inline: a call on every MPI_Irecv (bench/NOTES.md, recv17). */
static inline void hc_mpi_xfer_init_dense(hc_mpi_xfer_t *x, const void *buf,
                                          MPI_Count count,
                                          const hc_mpi_type_t *type,
                                          int is_recv) {
  x->type = NULL; /* the engine moves the user's bytes: nothing to keep */
  x->user = (void *)buf;
  x->count = count;
  x->tmp = NULL;
  x->is_recv = is_recv;
  x->bytes = (size_t)(count * type->size);
  x->acc = NULL;
  x->element_mask = is_recv ? type->element_mask : 0;
}

/* Describes count elements of type at buf (no staging yet). */
void hc_mpi_xfer_init(hc_mpi_xfer_t *x, const void *buf, MPI_Count count,
                      const hc_mpi_type_t *type, int is_recv);
/* Sets up staging (packing for a send); MPI_ERR_NO_MEM raised on fn. */
int hc_mpi_xfer_begin(const char *fn, hc_mpi_comm_t *c, hc_mpi_xfer_t *x);
/* The buffer the engine reads or writes. */
void *hc_mpi_xfer_buf(const hc_mpi_xfer_t *x);
/* hc_mpi_xfer_begin for operations started by hc_mpi_xfer_isend / irecv:
 * large non-contiguous host data gets no temporary at all (the engine
 * packs / unpacks each fragment through an accessor). */
int hc_mpi_xfer_begin_stream(const char *fn, hc_mpi_comm_t *c,
                             hc_mpi_xfer_t *x);
/* hcomm_isend / hcomm_irecv of the xfer's data, by accessor or buffer. */
hc_status_t hc_mpi_xfer_isend(hc_mpi_xfer_t *x, int dest, int tag,
                              hcomm_comm_t *comm, int mode,
                              hcomm_request_t **req);
hc_status_t hc_mpi_xfer_irecv(hc_mpi_xfer_t *x, int source, int tag,
                              hcomm_comm_t *comm, hcomm_request_t **req);
/* Ends one operation: a receive unpacks its first received bytes; the
 * staging buffer is freed.  The type stays retained (persistent reuse).
 * Inline: the xfer of dense data owns nothing, and every small message
 * ends one; hc_mpi_xfer_end_owned does the work. */
void hc_mpi_xfer_end_owned(hc_mpi_xfer_t *x, size_t received);
static inline void hc_mpi_xfer_end(hc_mpi_xfer_t *x, size_t received) {
  if (x->acc || x->tmp)
    hc_mpi_xfer_end_owned(x, received);
}
/* Drops the type reference (and staging, if any); inline as
 * hc_mpi_xfer_end. */
void hc_mpi_xfer_fini_owned(hc_mpi_xfer_t *x);
static inline void hc_mpi_xfer_fini(hc_mpi_xfer_t *x) {
  if (x->tmp || x->acc || x->type)
    hc_mpi_xfer_fini_owned(x);
}
/* Keeps a staged operation's buffer alive after MPI_Request_free until
 * the engine completes it; takes over eng and the xfer. */
void hc_mpi_xfer_orphan(hcomm_request_t *eng, hc_mpi_xfer_t *x);
/* Orphaned operations not yet swept (xfer.c); read without its lock. */
extern int hc_mpi_xfer_orphan_count;
/* hc_mpi_xfer_sweep once there are orphans. */
void hc_mpi_xfer_sweep_orphans(void);
/* Frees the staging of orphaned operations that have completed.  Orphans
 * are rare (a request object that could not be allocated): every new
 * request looks without the lock first, inline. */
static inline void hc_mpi_xfer_sweep(void) {
  if (__atomic_load_n(&hc_mpi_xfer_orphan_count, __ATOMIC_RELAXED) != 0)
    hc_mpi_xfer_sweep_orphans();
}

/* ---- external32 (external32.c) ----------------------------------------- */

/* Bytes of count elements of t in external32 (its native packed size
 * unless it holds MPI_LONG, MPI_UNSIGNED_LONG, MPI_WCHAR or MPI_LONG_INT). */
MPI_Count hc_mpi_ext32_size(const hc_mpi_type_t *t, MPI_Count count);
/* Converts count elements of t from the native packed stream (count *
 * t->size bytes) to external32 (hc_mpi_ext32_size bytes), and back. */
void hc_mpi_ext32_from_native(const hc_mpi_type_t *t, const void *native,
                              MPI_Count count, void *ext);
void hc_mpi_ext32_to_native(const hc_mpi_type_t *t, const void *ext,
                            MPI_Count count, void *native);

/* ---- requests (request.c) ----------------------------------------------- */

enum hc_mpi_req_kind {
  HC_REQ_PLAIN = 0,      /* an engine operation, freed on completion */
  HC_REQ_PERSISTENT = 1, /* MPI_*_init: restartable */
  HC_REQ_DONE = 2,       /* complete when created (PROC_NULL, buffered) */
  HC_REQ_MESSAGE = 3     /* an MPI_Message from MPI_(I)mprobe */
};

/* Send modes of persistent requests, beyond the engine's three. */
#define HC_MPI_SEND_BUFFERED 3

/* Objects come from the request pool (reqpool.h), whose handles encode
 * their index and generation. */
typedef struct hc_mpi_request {
  /* ---- zeroed by every allocation (hc_reqpool_alloc) ---- */
  int kind;
  int handle; /* set by the pool */
  hcomm_request_t *engine; /* NULL: nothing in flight */
  hc_mpi_comm_t *comm;
  int active; /* persistent: started and not yet completed */
  int is_recv;
  hc_mpi_xfer_t xfer;   /* typed data; xfer.type NULL when none */
  /* ---- rare: zero in every free object ----
   * A plain request (HC_REQ_PLAIN, what MPI_Isend and MPI_Irecv make)
   * never sets these but greq, so an allocation leaves them alone and
   * hc_reqpool_free clears them for the other kinds and for a
   * generalized request (HC_MPI_REQUEST_RARE). */
  struct hc_mpi_greq *greq; /* a generalized request (grequest.c) */
  hcomm_status_t local; /* result when no engine request carries one */
  /* persistent arguments */
  void *buf;
  size_t bytes;
  int peer;
  int tag;
  int mode;
  /* A persistent collective (coll below): coll_finished, its last start
   * finished the run with HC_OK (hcomm_start_told), so while active its
   * MPI_Wait needs not look at the engine request (written at every
   * start); coll_loads, inputs to load before each start (set at init).
   * In a hole after mode, so the pool's slots keep their size. */
  unsigned char coll_finished;
  unsigned char coll_loads;
  hcomm_message_t *msg; /* HC_REQ_MESSAGE */
  /* A persistent collective (MPI_*_init): its state (coll_ctx.c), owned
   * by engine, the persistent engine request kept across starts. */
  struct hc_mpi_coll *coll;
  /* A partitioned send or receive (part.c): its datatype side; engine is
   * the persistent engine request kept across starts. */
  struct hc_mpi_part *part;
} hc_mpi_request_t;

/* Where the rare fields of a face request begin. */
#define HC_MPI_REQUEST_RARE offsetof(hc_mpi_request_t, greq)

/* A new face request with a handle; NULL when memory runs out.  Inline:
 * called, its frame cost every MPI_Irecv and MPI_Isend that needs a
 * request ~12 instructions (bench/NOTES.md, recv18). */
static inline hc_mpi_request_t *hc_mpi_request_new(int kind,
                                                   hc_mpi_comm_t *comm) {
  hc_mpi_xfer_sweep();
  hc_mpi_request_t *r = hc_reqpool_alloc();
  if (!r)
    return NULL;
  r->kind = kind;
  r->comm = comm;
  r->active = 1;
  hc_mpi_comm_retain(comm);
  return r;
}
/* The object of a valid request or message handle, else NULL. */
hc_mpi_request_t *hc_mpi_request_get(MPI_Request handle);
/* Registers the builtin requests (MPI_Init). */
void hc_mpi_request_bind_builtins(void);
/* The handle of a send already complete: the shared request that
 * destroy leaves alone. */
MPI_Request hc_mpi_request_sent(void);
/* Releases the handle and the object (not its engine request). */
void hc_mpi_request_destroy(hc_mpi_request_t *req);
/* A request already complete with the given status. */
int hc_mpi_request_new_done(const char *fn, hc_mpi_comm_t *comm,
                            const hcomm_status_t *st, MPI_Request *out);
/* Wraps an engine request into a new MPI_Request; frees eng on failure. */
int hc_mpi_request_wrap(const char *fn, hc_mpi_comm_t *comm,
                        hcomm_request_t *eng, MPI_Request *out);
/* Starts the engine operation of r (pooled; r->xfer staged, r->is_recv
 * set) with peer, its engine request in r->engine.  take_now (a receive
 * of dense data): a message already here that lands at once
 * (hcomm_irecv_now_at) makes r an HC_REQ_DONE request with its status in
 * r->local and no engine request.
 * The engine request lives in r's pooled object, so that one object serves
 * the face and the engine.  A transfer through an accessor (large
 * non-contiguous data) takes one from the engine's pool: the engine keeps
 * requests in a home only for plain buffers, which is what the latency
 * and message-rate paths carry.  Inline: called, it cost every MPI_Irecv
 * a frame (bench/NOTES.md, recv17); always, since with the pool's home
 * calls inline GCC left it out of line (recv18). */
__attribute__((always_inline)) static inline hc_status_t
hc_mpi_request_issue(hc_mpi_request_t *r, int peer, int tag, int mode,
                     int take_now) {
  hc_mpi_xfer_t *x = &r->xfer;
  hcomm_comm_t *comm = r->comm->engine;
  if (x->acc != NULL)
    return r->is_recv ? hc_mpi_xfer_irecv(x, peer, tag, comm, &r->engine)
                      : hc_mpi_xfer_isend(x, peer, tag, comm, mode, &r->engine);
  hcomm_request_home_t *home = hc_reqpool_home_take(r);
  void *buf = x->tmp ? x->tmp : x->user; /* hc_mpi_xfer_buf */
  hc_status_t st;
  if (take_now) {
    st = hcomm_irecv_now_at(home, buf, x->bytes, peer, tag, comm, &r->local,
                            &r->engine);
    if (st == HC_OK && r->engine == NULL) { /* landed: complete at once */
      r->kind = HC_REQ_DONE;
      hc_reqpool_home_unused(r);
    }
  } else if (r->is_recv) {
    st = hcomm_irecv_at(home, buf, x->bytes, peer, tag, comm, &r->engine);
  } else {
    st = hcomm_isend_at(home, buf, x->bytes, peer, tag, comm, mode, &r->engine);
  }
  if (st != HC_OK)
    hc_reqpool_home_unused(r);
  return st;
}

/* Issues a started persistent request's operation. */
int hc_mpi_request_start(const char *fn, hc_mpi_request_t *req);
/* Runs a persistent collective's loads (coll_ctx.c): its inputs from the
 * user's buffers into the views its schedule works in. */
hc_status_t hc_mpi_coll_load(struct hc_mpi_coll *cx);
/* hc_mpi_request_start for a persistent collective: loads its inputs and
 * restarts its schedule.  Inline: in a frame of its own below MPI_Start's
 * it cost every start ~20 instructions (bench/NOTES.md, start26). */
static inline int hc_mpi_coll_start(const char *fn, hc_mpi_request_t *r) {
  /* Most persistent collectives work in the user's buffers: no loads. */
  int st = r->coll_loads ? hc_mpi_coll_load(r->coll) : HC_OK;
  if (st == HC_OK)
    st = hcomm_start_told(r->engine);
  r->coll_finished = st == HCOMM_START_FINISHED;
  r->active = st >= HC_OK;
  return st >= HC_OK ? MPI_SUCCESS
                     : hc_mpi_raise_status(r->comm, fn, (hc_status_t)st);
}

/* ---- partitioned point-to-point (part.c) -------------------------------- */

typedef struct hc_mpi_part hc_mpi_part_t;
/* Starts a round of a partitioned request. */
int hc_mpi_part_start(const char *fn, hc_mpi_request_t *req);
/* A completed receive round: partitions not yet unpacked from staging are
 * unpacked (landed: bytes of the message that arrived).  A send: nothing. */
void hc_mpi_part_land(hc_mpi_part_t *part, size_t landed);
void hc_mpi_part_destroy(hc_mpi_part_t *part);

/* ---- generalized requests (grequest.c) ---------------------------------- */

/* Completes a generalized request whose work is done, as a wait or test
 * does: query_fn fills status (a scratch one when ignored), free_fn runs,
 * the request and its handle go.  Returns the first callback error. */
int hc_mpi_greq_finish(hc_mpi_request_t *r, MPI_Status *status);
/* Marks a generalized request of the library's own whose query_fn raises
 * a failure through the handler of the object the request belongs to (a
 * file's, MPI-4.0 9.3): a wait or test that completes it returns the code
 * without raising it again on MPI_COMM_WORLD.  Before it can complete. */
void hc_mpi_greq_set_raises_own(MPI_Request request);
int hc_mpi_greq_raises_own(const hc_mpi_request_t *r);
/* query_fn alone (MPI_Request_get_status of a complete request). */
int hc_mpi_greq_query(hc_mpi_request_t *r, MPI_Status *status);
/* cancel_fn, told whether MPI_Grequest_complete was called. */
int hc_mpi_greq_cancel(hc_mpi_request_t *r);
/* MPI_Request_free: free_fn and the request go now when it is complete,
 * else at MPI_Grequest_complete.  Returns free_fn's code. */
int hc_mpi_greq_free(hc_mpi_request_t *r);
/* An MPIX request (poll_fn or wait_fn) still pending: only its callbacks
 * move it, so waits poll it rather than sleep. */
int hc_mpi_greq_polled(const hc_mpi_request_t *r);
/* poll_fn once, when r has one and is pending; its code. */
int hc_mpi_greq_poll(hc_mpi_request_t *r);
/* Until r is complete: wait_fn once, then poll_fn and progress; the first
 * callback error stops it.  Nothing for a request that is not polled. */
int hc_mpi_greq_block(hc_mpi_request_t *r);

/* ---- counts of either width --------------------------------------------- */

/* A counts or displacements array as the caller passed it: int elements
 * (the classic forms) or 64-bit ones (the MPI_Count counts and MPI_Aint
 * displacements of the _c forms), so one implementation serves both forms
 * without copying the int arrays.  Exactly one pointer is set (or none,
 * for an array the caller left NULL). */
typedef struct hc_mpi_vec {
  const int *narrow;
  const MPI_Count *wide;
} hc_mpi_vec_t;

_Static_assert(sizeof(MPI_Aint) == sizeof(MPI_Count) &&
                   _Generic((MPI_Aint)0, MPI_Count: 1, default: 0),
               "MPI_Aint displacement arrays are read as MPI_Count arrays");

static inline hc_mpi_vec_t hc_mpi_vec_int(const int *v) {
  hc_mpi_vec_t r = {v, NULL};
  return r;
}
static inline hc_mpi_vec_t hc_mpi_vec_wide(const MPI_Count *v) {
  hc_mpi_vec_t r = {NULL, v};
  return r;
}
static inline MPI_Count hc_mpi_vec_at(hc_mpi_vec_t v, int i) {
  return v.wide ? v.wide[i] : v.narrow[i];
}
/* The array's address (NULL when the caller passed none), for checks. */
static inline const void *hc_mpi_vec_ptr(hc_mpi_vec_t v) {
  return v.wide ? (const void *)v.wide : (const void *)v.narrow;
}

/* ---- buffered sends (buffer.c) ------------------------------------------ */

/* Copies the message into the attached buffer and starts sending it. */
int hc_mpi_bsend(const char *fn, hc_mpi_comm_t *comm, const void *buf,
                 size_t bytes, int dest, int tag);
/* The same for count elements of type (packed into the buffer). */
int hc_mpi_bsend_typed(const char *fn, hc_mpi_comm_t *comm, const void *buf,
                       MPI_Count count, const hc_mpi_type_t *type, int dest,
                       int tag);
/* Waits for every pending buffered send, of every buffer (MPI_Finalize,
 * the engine's last user gone; bsend_pool.c). */
void hc_mpi_bsend_drain(void);
/* The buffered-send slot of a valid session (session.c), else NULL. */
struct hc_mpi_bsend_pool **hc_mpi_session_bsend_slot(MPI_Session session);

/* ---- point-to-point checks (pt2pt_args.c) ------------------------------ */

/* Checks the arguments of a send and returns the engine byte count. */
int hc_mpi_check_send(const char *fn, hc_mpi_comm_t *comm, const void *buf,
                      MPI_Count count, MPI_Datatype type, int dest, int tag,
                      size_t *bytes);
int hc_mpi_check_recv(const char *fn, hc_mpi_comm_t *comm, const void *buf,
                      MPI_Count count, MPI_Datatype type, int source, int tag,
                      size_t *bytes);

/* The inline calls of reqpool.h, which need hc_mpi_request_t whole. */
#include "mpi/reqpool_slot.h"

#endif /* HC_MPI_IMPL_H */
