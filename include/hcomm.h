/*
 * hcomm: the hcmpi engine's native C API.
 *
 * The engine moves bytes between ranks with MPI point-to-point semantics:
 * per-context posted and unexpected queues, non-overtaking order per
 * (source, tag, context), wildcards, truncation, eager and rendezvous
 * protocols, synchronous-mode sends.  The MPI face (src/mpi/) is a checked
 * binding over this API; nothing here knows MPI handles.
 *
 * Threading: after hcomm_init(HCOMM_THREAD_MULTIPLE) every function may be
 * called from any thread; a blocking call never holds the engine lock while
 * it sleeps.
 */
#ifndef HCOMM_H
#define HCOMM_H

#include <stddef.h>
#include <stdint.h>

#include "hcomm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HCOMM_ANY_SOURCE (-2)
#define HCOMM_ANY_TAG (-1)
#define HCOMM_PROC_NULL (-1)
/* The root of a rooted collective on an intercommunicator, as it names
 * itself (MPI_ROOT). */
#define HCOMM_ROOT (-3)
#define HCOMM_UNDEFINED (-32766)
#define HCOMM_TAG_UB 268435455 /* 2^28-1, as MPICH reports */
#define HCOMM_IN_PLACE ((void *)-1)

enum hcomm_thread_level {
  HCOMM_THREAD_SINGLE = 0,
  HCOMM_THREAD_FUNNELED = 1,
  HCOMM_THREAD_SERIALIZED = 2,
  HCOMM_THREAD_MULTIPLE = 3
};

enum hcomm_send_mode {
  HCOMM_SEND_STANDARD = 0,
  HCOMM_SEND_SYNC = 1, /* completes only after the receiver matched it */
  HCOMM_SEND_READY =
      2, /* the receive is known to be posted (treated as standard) */
};

enum hcomm_compare {
  HCOMM_IDENT = 0,
  HCOMM_CONGRUENT = 1,
  HCOMM_SIMILAR = 2,
  HCOMM_UNEQUAL = 3
};

typedef struct hcomm_comm hcomm_comm_t;
typedef struct hcomm_request hcomm_request_t;
typedef struct hcomm_message hcomm_message_t;

/* What a completed operation reports.  For a receive, source is the rank in
 * the communicator, bytes what landed in the buffer; error is the request's
 * own status (HC_ERR_TRUNCATE with the data that fitted). */
typedef struct hcomm_status {
  int source;
  int tag;
  size_t bytes;
  int cancelled;
  hc_status_t error;
} hcomm_status_t;

/* ---- life cycle ---------------------------------------------------------- */

/* Reads the launcher (PMI-1, or singleton), connects the node's transports.
 * thread_level is an hcomm_thread_level; the granted level is returned. */
hc_status_t hcomm_init(int thread_level, int *provided);
/* Collective over the world; waits for outstanding traffic of this rank. */
hc_status_t hcomm_finalize(void);
/* Registers host memory with every transport that registers memory
 * (verbs), so that transfers from or into any part of it skip on-demand
 * registration (MPI_Alloc_mem).  *handle is NULL when none did (no such
 * transport, before init, a refusal); hcomm_mem_deregister (safe on NULL)
 * must come before the memory is freed. */
typedef struct hcomm_memreg hcomm_memreg_t;
hc_status_t hcomm_mem_register(void *addr, size_t len, hcomm_memreg_t **handle);
void hcomm_mem_deregister(hcomm_memreg_t *handle);
int hcomm_initialized(void); /* 1 between init and finalize */
int hcomm_finalized(void);   /* 1 after finalize */
/* Tells the launcher to end the job and exits this process with code. */
void hcomm_abort(int code, const char *why) __attribute__((noreturn));
/* Peers known to have failed: returns how many, and writes the world ranks
 * of up to max of them (lowest first) into world_ranks. */
int hcomm_failed_peers(int *world_ranks, int max);
/* Why a peer was lost: HC_ERR_PEER_DEAD (it died or its connection
 * broke), HC_ERR_PEER_AUTH (its connection failed authentication) or
 * HC_ERR_PEER_CORRUPT (it sent data that cannot be read); HC_OK while it
 * is not known to have failed. */
hc_status_t hcomm_peer_failure(int world_rank);
/* The launcher's application number (-1 when none), universe size. */
/* The world ranks on this process's node, lowest first (borrowed, valid
 * until finalize); returns how many. */
int hcomm_node_world_ranks(const int **world_ranks);
int hcomm_appnum(void);
int hcomm_universe_size(void);

/* ---- communicators ------------------------------------------------------- */

hcomm_comm_t *hcomm_comm_world(void);
hcomm_comm_t *hcomm_comm_self(void);
int hcomm_comm_rank(const hcomm_comm_t *comm);
int hcomm_comm_size(const hcomm_comm_t *comm);
/* World rank of rank r of comm. */
int hcomm_comm_world_rank(const hcomm_comm_t *comm, int rank);
/* Collective over comm: same group, fresh context. */
hc_status_t hcomm_comm_dup(hcomm_comm_t *comm, hcomm_comm_t **newcomm);
/* hcomm_comm_dup without blocking (intercommunicators too): *req completes,
 * like a non-blocking collective, once *newcomm has been written with the
 * duplicate; *newcomm must stay valid until then. */
hc_status_t hcomm_comm_idup(hcomm_comm_t *comm, hcomm_comm_t **newcomm,
                            hcomm_request_t **req);
/* Collective over comm.  color HCOMM_UNDEFINED gives *newcomm == NULL.  On
 * an intercommunicator both groups split at once: the result pairs the
 * members of one color in each group (ordered by key, then rank), and a
 * color missing from the other group gives NULL too. */
hc_status_t hcomm_comm_split(hcomm_comm_t *comm, int color, int key,
                             hcomm_comm_t **newcomm);
/* Collective over comm: ranks (in comm) listed in ranks[0..n) form the new
 * communicator in that order; every rank of comm passes the same list;
 * ranks not listed get NULL. */
hc_status_t hcomm_comm_create(hcomm_comm_t *comm, int n, const int *ranks,
                              hcomm_comm_t **newcomm);
/* Local: returns once no operation on comm is in flight any more (each
 * completed, with its own status), progressing meanwhile; may block for
 * good on a receive nothing will match. */
hc_status_t hcomm_comm_quiesce(hcomm_comm_t *comm);
/* Local: releases once outstanding operations on it have completed. */
hc_status_t hcomm_comm_free(hcomm_comm_t *comm);
int hcomm_comm_compare(const hcomm_comm_t *a, const hcomm_comm_t *b);
/* Collective over the listed members only (ranks of comm, the same list in
 * the same order at each member; the caller must be listed): the new
 * communicator's context id is agreed among them alone.  tag tells apart
 * concurrent creations over one comm by overlapping groups. */
hc_status_t hcomm_comm_create_group(hcomm_comm_t *comm, int n, const int *ranks,
                                    int tag, hcomm_comm_t **newcomm);
/* Collective over comm: one communicator per node (the ranks that share
 * memory), ordered by (key, rank in comm).  A rank that passes join 0 takes
 * part but gets *newcomm == NULL (MPI_UNDEFINED). */
hc_status_t hcomm_comm_split_shared(hcomm_comm_t *comm, int join, int key,
                                    hcomm_comm_t **newcomm);

/* ---- intercommunicators -------------------------------------------------- */

/* Collective over local (an intracommunicator); the two leaders also talk
 * over peer (their ranks local_leader in local, remote_leader in peer),
 * with tag telling concurrent creations apart.  On the result, ranks in
 * point-to-point name the remote group; hcomm_comm_rank/size/world_rank
 * describe the local group.  hcomm_comm_dup, _idup, _split, _split_shared
 * and _free work on intercommunicators; collectives on them are the
 * hcomm_inter_* calls below. */
hc_status_t hcomm_intercomm_create(hcomm_comm_t *local, int local_leader,
                                   hcomm_comm_t *peer, int remote_leader,
                                   int tag, hcomm_comm_t **newcomm);
/* Collective over both groups: an intracommunicator of both, the group whose
 * members passed high 0 first (equal flags: the group of the lower leader
 * world rank first). */
hc_status_t hcomm_intercomm_merge(hcomm_comm_t *inter, int high,
                                  hcomm_comm_t **newcomm);
/* Collective over the listed world ranks alone (the same list in the same
 * order at each, the caller among them), without a parent communicator:
 * the members agree on the context id among themselves over the world's
 * collective context.  tag >= 0 tells concurrent creations apart (callers
 * pass a hash of MPI's string tag). */
hc_status_t hcomm_comm_from_world_ranks(int n, const int *world_ranks, int tag,
                                        hcomm_comm_t **newcomm);
/* The intercommunicator form: collective over the local list and, through
 * the leaders, over the remote group, whose members make the mirror call
 * with the same tag.  local_leader is a position in local_world; the remote
 * leader is named by its world rank. */
hc_status_t hcomm_intercomm_from_world_ranks(int n, const int *local_world,
                                             int local_leader,
                                             int remote_leader_world, int tag,
                                             hcomm_comm_t **newcomm);
int hcomm_comm_is_inter(const hcomm_comm_t *comm);
/* Size of the remote group (0 for an intracommunicator). */
int hcomm_comm_remote_size(const hcomm_comm_t *comm);
/* World rank of rank r of the remote group; -1 when out of range. */
int hcomm_comm_remote_world_rank(const hcomm_comm_t *comm, int rank);
/* How many ranks point-to-point may name: the remote size on an
 * intercommunicator, the size otherwise. */
int hcomm_comm_peer_size(const hcomm_comm_t *comm);

/* ---- processes met at run time (src/hcomm/dynamic.c) ---------------------
 * Jobs started apart connect through ports; the processes of the other job
 * become peers numbered after the world's ranks ("world ranks" from
 * hcomm_process_count's range).  A port name is "ip:port:token", the token
 * random: only a process that was given the name can connect. */

#define HCOMM_PORT_NAME_MAX 256
/* Opens a port of this process and writes its name. */
hc_status_t hcomm_port_open(char *name, size_t len);
/* HC_ERR_PORT when name is no open port of this process. */
hc_status_t hcomm_port_close(const char *name);
/* Collective over comm; port matters at root only.  accept waits for one
 * connect to the port (HC_ERR_PORT: not a port open here); connect reaches
 * it (HC_ERR_PORT: nobody accepts there).  Both give the
 * intercommunicator between the two groups. */
hc_status_t hcomm_comm_accept(const char *port, hcomm_comm_t *comm, int root,
                              hcomm_comm_t **newcomm);
hc_status_t hcomm_comm_connect(const char *port, hcomm_comm_t *comm, int root,
                               hcomm_comm_t **newcomm);
/* The intercommunicator of this process and the one at the other end of
 * fd, a connected socket (used for the set-up only; it stays the
 * caller's). */
hc_status_t hcomm_comm_join(int fd, hcomm_comm_t **newcomm);
/* The name service (MPI_Publish_name): service names that map to port
 * names across jobs.  HC_ERR_SERVICE: publish of a name taken, unpublish
 * of one not published with that port; HC_ERR_NAME: lookup of a name not
 * published. */
hc_status_t hcomm_name_publish(const char *service, const char *port);
hc_status_t hcomm_name_unpublish(const char *service, const char *port);
hc_status_t hcomm_name_lookup(const char *service, char *port, size_t len);
/* Collective over comm (cmds and ncmds matter at root only): the launcher
 * starts the commands' processes as a new job, which connects back; the
 * result is the intercommunicator with them.  HC_ERR_SPAWN when the
 * launcher could not start them (nothing started), HC_ERR_NOT_SUPPORTED
 * when it cannot spawn (hcomm_launcher_name says which it is). */
typedef struct hcomm_spawn_cmd {
  const char *const *argv; /* program and arguments, NULL-terminated */
  int nprocs;
  const char *wdir; /* the processes' working directory; NULL: the launcher's */
} hcomm_spawn_cmd_t;
hc_status_t hcomm_comm_spawn(const hcomm_spawn_cmd_t *cmds, int ncmds,
                             hcomm_comm_t *comm, int root,
                             hcomm_comm_t **newcomm);
/* In a spawned process, the intercommunicator with the parents; NULL in
 * the others and once it was freed. */
hcomm_comm_t *hcomm_comm_parent(void);
/* The bootstrap backend the launcher spoke (pmi1, pmi2, pmix, singleton). */
const char *hcomm_launcher_name(void);
/* The world ranks in use: the launcher's world and the processes met
 * since. */
int hcomm_process_count(void);

/* ---- point-to-point ------------------------------------------------------ */

/* buf is not read after the request completes.  dest may be HCOMM_PROC_NULL
 * (completes at once).  mode is an hcomm_send_mode. */
hc_status_t hcomm_isend(const void *buf, size_t bytes, int dest, int tag,
                        hcomm_comm_t *comm, int mode, hcomm_request_t **req);
hc_status_t hcomm_irecv(void *buf, size_t bytes, int source, int tag,
                        hcomm_comm_t *comm, hcomm_request_t **req);
/* A standard-mode send that needs no request: HC_OK when the message of
 * host memory left whole right now (buf reusable; nothing to wait for).
 * Any other answer means "not this way", never a failure: the caller then
 * starts it with hcomm_isend, which also reports any error.  Cheap enough
 * to try before every small send.  For a caller that checked the
 * arguments already (the MPI face), which are not checked again: comm a
 * communicator of the running engine, dest a member of comm (not
 * HCOMM_PROC_NULL), tag valid. */
hc_status_t hcomm_send_now(const void *buf, size_t bytes, int dest, int tag,
                           hcomm_comm_t *comm);
/* A receive that needs no request: HC_OK and *status filled when a
 * message it accepts has already arrived whole (eager), fits in bytes of
 * host memory at buf, and was copied there.  Any other answer means "not
 * this way": start it with hcomm_irecv, which also reports any error. */
hc_status_t hcomm_recv_now(void *buf, size_t bytes, int source, int tag,
                           hcomm_comm_t *comm, hcomm_status_t *status);
/* Non-blocking probe; *flag 1 and *status filled when a message matches. */
hc_status_t hcomm_iprobe(int source, int tag, hcomm_comm_t *comm, int *flag,
                         hcomm_status_t *status);
hc_status_t hcomm_probe(int source, int tag, hcomm_comm_t *comm,
                        hcomm_status_t *status);
/* Matched probe: the message is removed from matching and owned by *msg
 * until hcomm_imrecv.  source HCOMM_PROC_NULL gives a *msg that receives
 * nothing. */
hc_status_t hcomm_improbe(int source, int tag, hcomm_comm_t *comm, int *flag,
                          hcomm_message_t **msg, hcomm_status_t *status);
hc_status_t hcomm_mprobe(int source, int tag, hcomm_comm_t *comm,
                         hcomm_message_t **msg, hcomm_status_t *status);
hc_status_t hcomm_imrecv(void *buf, size_t bytes, hcomm_message_t *msg,
                         hcomm_request_t **req);

/* A message whose bytes are produced and consumed in slices instead of
 * living at one address (e.g. a non-contiguous datatype): pack writes the
 * message bytes [off, off + len) to dst; unpack stores them from src.
 * The engine copies the struct; ctx must stay valid until the request
 * completes.  Calls come from inside the engine, under its lock: they must
 * not call hcomm.  An accessor send never offers a single-copy get: its
 * rendezvous always streams fragments. */
typedef struct hcomm_accessor {
  void (*pack)(void *ctx, size_t off, void *dst, size_t len);
  void (*unpack)(void *ctx, size_t off, const void *src, size_t len);
  void *ctx;
} hcomm_accessor_t;

/* A place for an engine request inside an object of the caller (the MPI
 * face keeps one in each pooled request), so that one allocation serves
 * both layers.  hcomm_request_home_init prepares it once; each
 * hcomm_isend_at / hcomm_irecv_at then makes *req the request kept there,
 * for one operation at a time.  When the engine is done with it (completed
 * and hcomm_request_free'd, in either order) it calls drop, on whichever
 * thread released it and under the engine's lock (drop must not call
 * hcomm); until then the memory stays the engine's.  A call that returns
 * an error leaves the home unused and drop uncalled. */
#define HCOMM_REQUEST_HOME_BYTES 384
typedef struct hcomm_request_home {
  _Alignas(16) unsigned char bytes[HCOMM_REQUEST_HOME_BYTES];
} hcomm_request_home_t;
typedef void (*hcomm_request_drop_fn)(hcomm_request_home_t *home);
void hcomm_request_home_init(hcomm_request_home_t *home,
                             hcomm_request_drop_fn drop);
hc_status_t hcomm_isend_at(hcomm_request_home_t *home, const void *buf,
                           size_t bytes, int dest, int tag, hcomm_comm_t *comm,
                           int mode, hcomm_request_t **req);
hc_status_t hcomm_irecv_at(hcomm_request_home_t *home, void *buf, size_t bytes,
                           int source, int tag, hcomm_comm_t *comm,
                           hcomm_request_t **req);
/* hcomm_recv_now, else hcomm_irecv_at, under one taking of the engine's
 * lock (MPI_Irecv of dense data): a message already here that lands at
 * once fills *status and sets *req to NULL, home left unused; otherwise
 * the receive is posted in home and *status is untouched.  For a caller
 * that checked the arguments already (the MPI face), which are not
 * checked again: home, status and req non-NULL, comm a communicator of
 * the running engine, source a member of comm or HCOMM_ANY_SOURCE (not
 * HCOMM_PROC_NULL), tag valid or HCOMM_ANY_TAG.  An engine no longer
 * running (HC_ERR_STATE) and a NULL buf for bytes > 0 (HC_ERR_ARG) still
 * fail as in hcomm_irecv_at. */
hc_status_t hcomm_irecv_now_at(hcomm_request_home_t *home, void *buf,
                               size_t bytes, int source, int tag,
                               hcomm_comm_t *comm, hcomm_status_t *status,
                               hcomm_request_t **req);
/* hcomm_imrecv with the request kept in home (MPI_Mrecv, MPI_Imrecv). */
hc_status_t hcomm_imrecv_at(hcomm_request_home_t *home, void *buf, size_t bytes,
                            hcomm_message_t *msg, hcomm_request_t **req);

/* hcomm_isend / hcomm_irecv of a message of bytes bytes reached through
 * acc (pack for a send, unpack for a receive). */
hc_status_t hcomm_isend_acc(const hcomm_accessor_t *acc, size_t bytes, int dest,
                            int tag, hcomm_comm_t *comm, int mode,
                            hcomm_request_t **req);
hc_status_t hcomm_irecv_acc(const hcomm_accessor_t *acc, size_t bytes,
                            int source, int tag, hcomm_comm_t *comm,
                            hcomm_request_t **req);

/* ---- requests ------------------------------------------------------------ */

/* Drives every transport once. */
void hcomm_progress(void);
/* One round of a loop that waits for work done elsewhere (another
 * thread's requests): progresses; when nothing moved for a while, applies
 * peer failures to the requests they doom, as blocking waits do, and
 * pauses briefly.  *spins starts at 0 and is the loop's own. */
void hcomm_progress_idle(long *spins);
/* Makes the engine's lock (and the library's) real for good, as
 * HCOMM_THREAD_MULTIPLE does: for a thread of the library's own that will
 * complete requests (the MPI-IO worker).  Call while no other thread is
 * inside the library, before that thread starts. */
void hcomm_threads_enable(void);
/* Progresses once; *done 1 when req is complete (status filled if non-NULL).
 * Does not release req.  Not complete: HC_ERR_PEER_DEAD_PENDING when req
 * is failure-pending (hcomm_request_failure_pending), else HC_OK. */
hc_status_t hcomm_test(hcomm_request_t *req, int *done, hcomm_status_t *status);
/* Blocks (spin, then sleep) until req completes; does not release it.
 * Returns the request's own error.  A failure-pending receive is given up
 * (completed with the failure): the blocking receive's outcome. */
hc_status_t hcomm_wait(hcomm_request_t *req, hcomm_status_t *status);
/* Blocks until at least min_done of the non-NULL reqs[0..n) are complete
 * or failure-pending (all of them for min_done >= n, which is cheapest
 * when that is what the caller wants). */
hc_status_t hcomm_wait_some(int n, hcomm_request_t *const *reqs, int min_done);
/* Cheap check without progress. */
int hcomm_request_done(const hcomm_request_t *req);
/* 1 when req is complete, with *status its outcome (hcomm_wait's, without
 * the engine lock: a complete request's status is written before it is
 * marked done and not again until a persistent request is restarted); 0
 * when it is not complete yet. */
int hcomm_request_done_status(const hcomm_request_t *req,
                              hcomm_status_t *status);
/* hcomm_request_done_status for a caller that wants the error alone: 1
 * with *error the outcome's error when req is complete, 0 when it is not
 * yet.  No copy of the status: an MPI_Wait with MPI_STATUS_IGNORE of a
 * persistent collective (bench/NOTES.md, face18). */
int hcomm_request_done_error(const hcomm_request_t *req, hc_status_t *error);
/* 1 when req is an HCOMM_ANY_SOURCE receive, not matched yet, on a
 * communicator with a member whose failure was not acknowledged
 * (hcomm_comm_ack_failed): it stays posted, as a live sender may still
 * match it, and no wait on it ends by itself until the acknowledgement
 * (ULFM's MPIX_ERR_PROC_FAILED_PENDING).  hcomm_cancel ends it. */
int hcomm_request_failure_pending(const hcomm_request_t *req);
/* Of the non-NULL reqs[0..n), replaces by NULL each that is complete or
 * failure-pending (hcomm_request_failure_pending): the ones left are those
 * a wait for all of them waits for.  Returns how many are left.  One
 * taking of the engine's lock for the array. */
int hcomm_requests_keep_pending(int n, hcomm_request_t **reqs);
/* Releases req.  If it is still active it is released when it completes.
 * Returns 1 when it was released now, 0 when it goes at its completion. */
int hcomm_request_free(hcomm_request_t *req);
/* hcomm_wait_free of a request that is complete: returns 1, *status
 * filled (error included) and req released.  0 when req is not complete
 * yet: nothing is done (no progress, no wait). */
int hcomm_request_reap(hcomm_request_t *req, hcomm_status_t *status);
/* A request kept in a home (hcomm_isend_at and the other _at calls) is
 * released by the two calls below without its home's drop: the caller,
 * which waited on it, is its owner and takes the home back itself (the
 * drop is for a release that may race the owner's own free). */
/* hcomm_request_reap of each non-NULL reqs[i] of reqs[0..n) under one
 * taking of the engine's lock: each complete one has statuses[i] filled
 * and is released, and reqs[i] becomes NULL; the others are left as they
 * are.  Returns how many were reaped.  What a wait for an array does
 * last. */
int hcomm_requests_reap(int n, hcomm_request_t **reqs,
                        hcomm_status_t *statuses);
/* hcomm_wait, then hcomm_request_free, under one taking of the engine's
 * lock: what a blocking operation or a completing wait does last. */
hc_status_t hcomm_wait_free(hcomm_request_t *req, hcomm_status_t *status);
/* Receives not yet matched are cancelled at once; sends not yet handed to a
 * transport too; otherwise the request completes normally and
 * status.cancelled stays 0. */
hc_status_t hcomm_cancel(hcomm_request_t *req);

/* One request for a send and a receive started together (MPI_Isendrecv):
 * it completes once both parts have, with the receive's status and the
 * first error of either.  A NULL part counts as done; with no receive the
 * status is that of one from HCOMM_PROC_NULL.  The engine takes over the
 * parts (the caller no longer frees or waits on them).  done_fn(arg), when
 * not NULL, runs once as the request completes, with the engine lock held
 * (it must not call hcomm_*), to free what the parts used.  On failure
 * (HC_ERR_NOMEM) nothing is taken over. */
hc_status_t hcomm_request_join(hcomm_request_t *send, hcomm_request_t *recv,
                               void (*done_fn)(void *arg), void *arg,
                               hcomm_request_t **req);
/* The same with the joined request kept in home (as hcomm_isend_at). */
hc_status_t hcomm_request_join_at(hcomm_request_home_t *home,
                                  hcomm_request_t *send, hcomm_request_t *recv,
                                  void (*done_fn)(void *arg), void *arg,
                                  hcomm_request_t **req);
/* A request that the caller completes itself (used for operations the
 * engine runs on the caller's behalf, e.g. buffered sends). */
hc_status_t hcomm_request_new_completed(const hcomm_status_t *status,
                                        hcomm_request_t **req);
/* A request that stays pending until hcomm_request_user_complete: work the
 * caller finishes itself, at a time of its choosing (MPI generalized
 * requests).  Waits and tests on it behave as on any request; once
 * hcomm_request_free'd while pending, no wait watches for it, and one
 * never completed costs nothing after (finalize does not wait for it). */
hc_status_t hcomm_request_new_pending(hcomm_request_t **req);
/* Completes a request of hcomm_request_new_pending with status (NULL: an
 * empty one); callable from any thread.  *freed (freed may be NULL) says
 * whether hcomm_request_free came first, which makes this completion
 * release it.  HC_ERR_REQUEST when req is not such a request or is
 * already complete. */
hc_status_t hcomm_request_user_complete(hcomm_request_t *req,
                                        const hcomm_status_t *status,
                                        int *freed);

/* ---- fault tolerance (User-Level Failure Mitigation) ----------------------
 * For survivors of a peer's death (docs/ft.md).  Revoke is local and
 * reaches every member: their pending and later operations on comm (not
 * these calls) fail with HC_ERR_REVOKED.  Agreement and shrink are
 * collective over the members still alive and complete despite failures
 * during them; the request is released with hcomm_request_free.
 * hcomm_comm_iagree ANDs *flag over the live members and writes it back
 * when the request completes, with HC_ERR_PEER_DEAD as its error when the
 * agreed failed set holds a member whose failure this process did not
 * acknowledge on comm.  hcomm_comm_ishrink writes *newcomm, the
 * survivors in comm's order on a context id agreed among them alone.
 * On an intercommunicator both groups agree together and the shrunken one
 * is an intercommunicator of each group's survivors (HC_ERR_PEER_DEAD
 * when the whole remote group failed); one between jobs met at run time
 * is refused (HC_ERR_NOT_SUPPORTED). */
hc_status_t hcomm_comm_revoke(hcomm_comm_t *comm);
int hcomm_comm_is_revoked(const hcomm_comm_t *comm);
hc_status_t hcomm_comm_iagree(hcomm_comm_t *comm, uint32_t *flag,
                              hcomm_request_t **req);
hc_status_t hcomm_comm_ishrink(hcomm_comm_t *comm, hcomm_comm_t **newcomm,
                               hcomm_request_t **req);
/* Members of comm (both groups of an intercommunicator) known here to
 * have failed, as world ranks in the order this process learnt of them:
 * returns how many, writes the first max. */
int hcomm_comm_failed(hcomm_comm_t *comm, int *world_ranks, int max);
/* Acknowledges the first count of them (count < 0: all known now; never
 * fewer than before); returns how many are acknowledged.  ANY_SOURCE
 * receives on comm are no longer failure-pending for acknowledged
 * failures. */
int hcomm_comm_ack_failed(hcomm_comm_t *comm, int count);

/* ---- partitioned point-to-point (MPI-4.0 chapter 4) ----------------------
 * One message of partitions * part_bytes bytes at buf, sent and received
 * in partitions.  hcomm_psend_init / hcomm_precv_init are local and give
 * an inactive persistent request (hcomm_test says done); a send and a
 * receive on comm with the same (peer, tag) pair in the order of their
 * inits, once, for the request's whole life.  The two sides may cut the
 * message into different partition counts; the receiver's capacity must
 * hold the sender's message (else HC_ERR_TRUNCATE).  hcomm_start begins a
 * round; a send round completes once every partition was made ready and
 * has left, a receive round once every byte landed.  buf may be device
 * memory.  peer HCOMM_PROC_NULL: rounds complete at once.  Wildcards are
 * not accepted (HC_ERR_RANK / HC_ERR_TAG). */
hc_status_t hcomm_psend_init(const void *buf, size_t part_bytes, int partitions,
                             int dest, int tag, hcomm_comm_t *comm,
                             hcomm_request_t **req);
hc_status_t hcomm_precv_init(void *buf, size_t part_bytes, int partitions,
                             int source, int tag, hcomm_comm_t *comm,
                             hcomm_request_t **req);
/* Partition (0-based) of a started send round leaves now, without waiting
 * for the others.  HC_ERR_REQUEST when req is not a partitioned send,
 * HC_ERR_ARG when partition is out of range or already ready this round. */
hc_status_t hcomm_pready(hcomm_request_t *req, int partition);
/* Progresses once; *flag 1 when every byte of the receiver's partition
 * has landed in this round (the sender's partitions it overlaps all
 * arrived).  HC_ERR_REQUEST when req is not a partitioned receive,
 * HC_ERR_ARG when partition is out of range. */
hc_status_t hcomm_parrived(hcomm_request_t *req, int partition, int *flag);

/* ---- HCCL's own collectives on Ascend device buffers (coll_hccl.c) -------
 * One HcclComm per communicator, made at its first HCCL collective (the
 * root info broadcast over the communicator's host path) and destroyed
 * with it.  Counts are in elements of dtype, HCCL's HcclDataType code; op
 * is HCCL's HcclReduceOp code. */
typedef enum hcomm_hccl_kind {
  HCOMM_HCCL_ALLREDUCE,      /* send, recv, count, dtype, op */
  HCOMM_HCCL_BCAST,          /* recv (in at the root, out elsewhere), count,
                                dtype, root */
  HCOMM_HCCL_ALLGATHER,      /* send, recv, count (per rank), dtype */
  HCOMM_HCCL_REDUCE_SCATTER, /* send, recv, count (per rank), dtype, op */
  HCOMM_HCCL_REDUCE,         /* send, recv, count, dtype, op, root */
  HCOMM_HCCL_ALLTOALLV       /* send, recv, dtype, the four vectors */
} hcomm_hccl_kind_t;

typedef struct hcomm_hccl_coll {
  hcomm_hccl_kind_t kind;
  const void *send;
  void *recv;
  uint64_t count;
  int dtype, op;
  uint32_t root;
  /* ALLTOALLV: comm size entries each, in elements */
  const uint64_t *scounts, *sdispls, *rcounts, *rdispls;
} hcomm_hccl_coll_t;

/* 1 when HCMPI_COLL_HCCL is on and HCCL with its collectives loaded.  The
 * answer must be the same at every rank (one environment for the job):
 * where it is 1, every rank of an intracommunicator calls
 * hcomm_hccl_coll for each collective the MPI face could hand to HCCL. */
int hcomm_hccl_coll_enabled(void);
/* Collective a on comm (an intracommunicator, not in use by another
 * thread) through HCCL, if every rank can: usable says this rank can (its
 * buffers are ACL memory of device, its arguments map to HCCL's); the
 * ranks agree over comm's host path (and make comm's HcclComm at the
 * first such call).  *taken 0: some rank could not, nothing ran (the
 * caller uses its own path).  Else runs it on comm's HcclComm and waits
 * for it. */
hc_status_t hcomm_hccl_coll(hcomm_comm_t *comm, const hcomm_hccl_coll_t *a,
                            int usable, int device, int *taken);
/* 1 when comm has its HcclComm (the same answer at every rank): only then
 * may a non-blocking collective be handed to hcomm_hccl_icoll, since
 * making the HcclComm blocks until every rank joined. */
int hcomm_hccl_coll_ready(hcomm_comm_t *comm);
/* Readies the input of a staged plan before it runs (the face's copies of
 * device memory into its host views); called with the engine lock held. */
typedef hc_status_t (*hcomm_hccl_load_fn)(void *arg);
/* on 1: the next schedule built on comm (the next hcomm_*_init call,
 * made right after) is the plan of an hcomm_hccl_icoll: it takes no
 * persistent tag and no shared-memory lane of its own, as it lives for one
 * call.  on 0 (right after that call, whatever it returned): no schedule
 * is. */
hc_status_t hcomm_hccl_plan_next(hcomm_comm_t *comm, int on);
/* The non-blocking form of hcomm_hccl_coll, called where
 * hcomm_hccl_coll_ready: *req completes when a ran through HCCL, or, when
 * some rank cannot take it, when plan ran instead (load(load_arg) first).
 * plan is the same collective as an inactive persistent request
 * (hcomm_*_init) and is taken by the call, whatever it returns. */
hc_status_t hcomm_hccl_icoll(hcomm_comm_t *comm, const hcomm_hccl_coll_t *a,
                             int usable, int device, hcomm_request_t *plan,
                             hcomm_hccl_load_fn load, void *load_arg,
                             hcomm_request_t **req);
/* The persistent form (MPI_*_init, which may block): the ranks agree now,
 * once, and make comm's HcclComm if needed.  *taken 1: *req is an inactive
 * persistent request that runs a through HCCL at each hcomm_start (buffers
 * read then). *taken 0: nothing made (the caller builds its own). */
hc_status_t hcomm_hccl_coll_init(hcomm_comm_t *comm, const hcomm_hccl_coll_t *a,
                                 int usable, int device, int *taken,
                                 hcomm_request_t **req);

/* ---- memory kinds: what a pointer is, and copies that reach device memory
 * (the MPI face stages typed or reduced data of device buffers through the
 * host with these; it never dereferences device memory itself). ---------- */

enum hcomm_mem_kind {
  HCOMM_MEM_HOST = 0,
  HCOMM_MEM_ACL = 1, /* Ascend NPU memory */
  HCOMM_MEM_CUDA = 2 /* NVIDIA GPU memory */
};

typedef struct hcomm_mem_info {
  int kind;   /* an hcomm_mem_kind */
  int device; /* device ordinal; -1 for host memory */
  uintptr_t base;
  size_t size; /* of the whole allocation when known, else 0 */
} hcomm_mem_info_t;

/* 1 and *info filled when ptr is device memory; 0 for host memory (info
 * then says host).  Results are cached by allocation range. */
int hcomm_mem_classify(const void *ptr, hcomm_mem_info_t *info);
/* 1 when some device runtime is loaded: else every pointer is host memory
 * (one load, for paths that would classify several pointers). */
int hcomm_mem_any_device(void);
/* 1 when memory of kind (an hcomm_mem_kind) can be used: host always, a
 * device kind when its runtime was found and loaded (at init, or at the
 * first call that needs it). */
int hcomm_mem_kind_available(int kind);
/* len bytes of device memory of kind (a device hcomm_mem_kind) on the
 * device the application made current on the calling thread (else device
 * 0), for memory MPI allocates (MPI_Win_allocate).  HC_ERR_NOT_SUPPORTED
 * when that runtime is not loaded or cannot allocate; hcomm_mem_free
 * releases it (and forgets its classification and any export). */
hc_status_t hcomm_mem_alloc(int kind, size_t len, void **ptr);
void hcomm_mem_free(int kind, void *ptr);
/* Synchronous copy of len bytes between any two pointers described by
 * their classifications. */
hc_status_t hcomm_mem_copy(void *dst, const hcomm_mem_info_t *dinfo,
                           const void *src, const hcomm_mem_info_t *sinfo,
                           size_t len);

/* ---- application streams (MPIX streams): stream-ordered work -------------
 * An application's device stream (aclrtStream, CUstream) on which the MPI
 * face queues copies to and from pinned host staging and host functions
 * that run operations once the stream reaches them. */

typedef struct hcomm_stream hcomm_stream_t;

/* Wraps app_stream, a stream of memory kind (HCOMM_MEM_ACL or
 * HCOMM_MEM_CUDA) on the device the calling thread is bound to; the
 * application keeps owning it.  Turns the engine's locks on (host
 * functions run on the runtime's threads).  HC_ERR_NOT_SUPPORTED when
 * that runtime is not loaded. */
hc_status_t hcomm_stream_adopt(int kind, void *app_stream,
                               hcomm_stream_t **out);
/* Forgets the wrapper and its flag (call hcomm_stream_drain first). */
void hcomm_stream_release(hcomm_stream_t *s);
/* Queues fn(arg) in stream order; later work on the stream waits until it
 * returned.  fn may block on messages but must not call the runtime.
 * HC_ERR_NOT_SUPPORTED when the runtime has no host functions. */
hc_status_t hcomm_stream_launch(hcomm_stream_t *s, void (*fn)(void *arg),
                                void *arg);
/* Queues a copy of len bytes between pinned host staging (from
 * hcomm_stream_host_alloc) and device memory: host to device when
 * to_device, else device to host. */
hc_status_t hcomm_stream_copy(hcomm_stream_t *s, void *dst, const void *src,
                              size_t len, int to_device);
hc_status_t hcomm_stream_host_alloc(hcomm_stream_t *s, size_t len, void **ptr);
void hcomm_stream_host_free(hcomm_stream_t *s, void *ptr);
/* Returns once everything queued on s so far has run, progressing the
 * engine meanwhile; the error of a failed stream otherwise. */
hc_status_t hcomm_stream_drain(hcomm_stream_t *s);
/* 1 when s has a flag: a counter, 0 at first, that later work on s can
 * wait for (hcomm_stream_flag_wait) and a host thread raises when an
 * operation completed (hcomm_stream_flag_raise), so no host function
 * holds the stream meanwhile.  0 where the runtime has no stream waits
 * on memory values, or HCMPI_STREAM_WAIT=hostfn. */
int hcomm_stream_has_flag(const hcomm_stream_t *s);
/* 1 when the engine's device paths may move an enqueued operation's device
 * buffer while the stream waits on its flag; 0 where closing the IPC
 * import that takes would wait for that very stream (CUDA). */
int hcomm_stream_paths_safe(const hcomm_stream_t *s);
/* Queues on s a wait until its flag reached value (flag values are
 * handed out in increasing order). */
hc_status_t hcomm_stream_flag_wait(hcomm_stream_t *s, uint64_t value);
/* Raises s's flag to value, larger than any raised before.  From an
 * ordinary thread, never inside a host function (it may call the
 * runtime). */
hc_status_t hcomm_stream_flag_raise(hcomm_stream_t *s, uint64_t value);

/* ---- collectives (on a context of their own: never match user traffic) -- */

/* Element-wise inout[i] = in[i] op inout[i] for count elements. */
typedef void (*hcomm_reduce_fn)(const void *in, void *inout, size_t count,
                                void *ctx);

typedef struct hcomm_reduce_op {
  hcomm_reduce_fn fn;
  void *ctx;
  size_t elem_size; /* bytes of one element */
  int commutative;  /* 0: combined strictly in rank order */
} hcomm_reduce_op_t;

hc_status_t hcomm_barrier(hcomm_comm_t *comm);
hc_status_t hcomm_bcast(void *buf, size_t bytes, int root, hcomm_comm_t *comm);
/* sendbuf may be HCOMM_IN_PLACE at the root (data in recvbuf). */
hc_status_t hcomm_reduce(const void *sendbuf, void *recvbuf, size_t count,
                         const hcomm_reduce_op_t *op, int root,
                         hcomm_comm_t *comm);
hc_status_t hcomm_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                            const hcomm_reduce_op_t *op, hcomm_comm_t *comm);
/* bytes per rank; recvbuf significant at root only.  sendbuf may be
 * HCOMM_IN_PLACE at the root. */
hc_status_t hcomm_gather(const void *sendbuf, size_t bytes, void *recvbuf,
                         int root, hcomm_comm_t *comm);
/* The v-form (tables significant at the root, as hcomm_igatherv's), and
 * the scatters (recvbuf may be HCOMM_IN_PLACE at the root); on one node
 * they run through comm's shared segment where
 * hcomm_rooted_in_segment says so. */
hc_status_t hcomm_gatherv(const void *sendbuf, size_t sbytes, void *recvbuf,
                          const size_t *rbytes, const size_t *rdispls,
                          int root, hcomm_comm_t *comm);
hc_status_t hcomm_scatter(const void *sendbuf, size_t bytes, void *recvbuf,
                          int root, hcomm_comm_t *comm);
hc_status_t hcomm_scatterv(const void *sendbuf, const size_t *sbytes,
                           const size_t *sdispls, void *recvbuf, size_t rbytes,
                           int root, hcomm_comm_t *comm);
/* 1 when the blocking gather or scatter (vform: with tables; bytes: the
 * fixed form's block) runs in comm's shared segment, every rank alike (a
 * collective call: it makes the segment if comm has none yet).  Then no
 * rank may move its blocks another way (hcomm_gatherv_acc): each hands it
 * packed views (hcomm_gather, hcomm_gatherv) or, in the v-forms, its
 * sides' streams (hcomm_gatherv_stream). */
int hcomm_rooted_in_segment(hcomm_comm_t *comm, int vform, size_t bytes);
/* The blocking v-forms with each side through an accessor, as
 * hcomm_gatherv_acc's and hcomm_scatterv_acc's (vform 1): in comm's
 * segment where hcomm_rooted_in_segment(comm, 1, 0), a rank's small
 * blocks packed into it or unpacked out of it and its large ones moved as
 * messages in fragments; else as those schedules. */
hc_status_t hcomm_gatherv_stream(const hcomm_accessor_t *sacc, size_t sbytes,
                                 const hcomm_accessor_t *racc,
                                 const size_t *rbytes, const size_t *roffs,
                                 int root, hcomm_comm_t *comm);
hc_status_t hcomm_scatterv_stream(const hcomm_accessor_t *sacc,
                                  const size_t *sbytes, const size_t *soffs,
                                  const hcomm_accessor_t *racc, size_t rbytes,
                                  int root, hcomm_comm_t *comm);
/* sendbuf may be HCOMM_IN_PLACE (own block already in recvbuf). */
hc_status_t hcomm_allgather(const void *sendbuf, size_t bytes, void *recvbuf,
                            hcomm_comm_t *comm);
/* Makes comm's shared-memory collective segment now, where every member
 * is reached through a transport of this node, instead of at its first
 * blocking collective, so that the I- and persistent forms started before
 * any blocking one use it too.  A collective call: every member calls it,
 * in order with comm's other collectives.  HC_OK also where comm gets no
 * segment (HCMPI_COLL_SHM=0, members on other nodes, one member). */
hc_status_t hcomm_coll_shm_setup(hcomm_comm_t *comm);
/* While deferred is 1, comm's blocking collectives run the point-to-point
 * schedules and make no shared-memory segment (one it has already stays
 * in use); 0 lets the next blocking collective make one as usual.  For a
 * communicator that runs a few small collectives at its creation and its
 * end, such as a window's: a segment costs every member its pages, about
 * 2.5 MB on 2 ranks, each time.  Every member sets the same value at the
 * same point of comm's collectives. */
void hcomm_coll_shm_defer(hcomm_comm_t *comm, int deferred);
/* The blocking forms of hcomm_iallgatherv, hcomm_ialltoall(v) and
 * hcomm_ireduce_scatter (below: the same arguments). */
hc_status_t hcomm_allgatherv(const void *sendbuf, size_t sbytes, void *recvbuf,
                             const size_t *rbytes, const size_t *rdispls,
                             hcomm_comm_t *comm);
hc_status_t hcomm_alltoall(const void *sendbuf, size_t bytes, void *recvbuf,
                           hcomm_comm_t *comm);
hc_status_t hcomm_alltoallv(const void *sendbuf, const size_t *sbytes,
                            const size_t *sdispls, void *recvbuf,
                            const size_t *rbytes, const size_t *rdispls,
                            hcomm_comm_t *comm);
hc_status_t hcomm_reduce_scatter(const void *sendbuf, void *recvbuf,
                                 const size_t *counts,
                                 const hcomm_reduce_op_t *op,
                                 hcomm_comm_t *comm);
/* hcomm_reduce_scatter with every block count elements. */
hc_status_t hcomm_reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                       size_t count,
                                       const hcomm_reduce_op_t *op,
                                       hcomm_comm_t *comm);

/* ---- non-blocking collectives ---------------------------------------------
 * Each call starts the collective and returns at once; *req completes
 * through hcomm_wait / hcomm_test / hcomm_wait_some like any request and is
 * released with hcomm_request_free.  The engine's progress advances it.
 * Buffers stay in use until completion; count and displacement arrays are
 * read during the call only.  Every rank of comm starts its collectives on
 * comm (blocking ones included) in the same order; any number may be
 * outstanding at once.  The blocking form of each is the call followed by
 * hcomm_wait.  Sizes and displacements are in bytes, except the counts of
 * reductions (elements of op->elem_size bytes).  HCOMM_IN_PLACE: as for the
 * blocking calls; for scatter(v) recvbuf at the root; for alltoall(v) and
 * reduce_scatter sendbuf (the input is taken from recvbuf). */
hc_status_t hcomm_ibarrier(hcomm_comm_t *comm, hcomm_request_t **req);
hc_status_t hcomm_ibcast(void *buf, size_t bytes, int root, hcomm_comm_t *comm,
                         hcomm_request_t **req);
/* hcomm_ibcast (and hcomm_bcast_acc_init: hcomm_bcast_init) of bytes bytes
 * reached through acc instead of one buffer (a derived datatype): the
 * root needs pack, the others unpack and pack (they may forward what they
 * received); the messages move in packed fragments, so no rank holds the
 * whole message in a temporary.  The engine copies *acc; acc->ctx must
 * stay valid until the request completes (until it is freed, for _init). */
hc_status_t hcomm_ibcast_acc(const hcomm_accessor_t *acc, size_t bytes,
                             int root, hcomm_comm_t *comm,
                             hcomm_request_t **req);
hc_status_t hcomm_bcast_acc_init(const hcomm_accessor_t *acc, size_t bytes,
                                 int root, hcomm_comm_t *comm,
                                 hcomm_request_t **req);
hc_status_t hcomm_ireduce(const void *sendbuf, void *recvbuf, size_t count,
                          const hcomm_reduce_op_t *op, int root,
                          hcomm_comm_t *comm, hcomm_request_t **req);
hc_status_t hcomm_iallreduce(const void *sendbuf, void *recvbuf, size_t count,
                             const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                             hcomm_request_t **req);
/* Inclusive prefix reduction in rank order. */
hc_status_t hcomm_iscan(const void *sendbuf, void *recvbuf, size_t count,
                        const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                        hcomm_request_t **req);
/* Exclusive prefix: recvbuf of rank 0 is left untouched. */
hc_status_t hcomm_iexscan(const void *sendbuf, void *recvbuf, size_t count,
                          const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                          hcomm_request_t **req);
/* Reduces the vector of sum(counts) elements, rank r receiving block r of
 * counts[r] elements (blocks consecutive in sendbuf). */
hc_status_t hcomm_ireduce_scatter(const void *sendbuf, void *recvbuf,
                                  const size_t *counts,
                                  const hcomm_reduce_op_t *op,
                                  hcomm_comm_t *comm, hcomm_request_t **req);
hc_status_t hcomm_igather(const void *sendbuf, size_t bytes, void *recvbuf,
                          int root, hcomm_comm_t *comm, hcomm_request_t **req);
/* rbytes/rdispls (significant at the root): rank r's block lands at
 * recvbuf + rdispls[r]. */
hc_status_t hcomm_igatherv(const void *sendbuf, size_t sbytes, void *recvbuf,
                           const size_t *rbytes, const size_t *rdispls,
                           int root, hcomm_comm_t *comm, hcomm_request_t **req);
/* hcomm_igather(v) (persistent: hcomm_gather(v)_init) with each side a
 * packed stream reached through an accessor (a derived datatype), moved
 * in fragments as hcomm_ibcast_acc does: sacc's bytes [0, sbytes) are
 * this rank's block (NULL at the root: in place); at the root, rank r's
 * block lands at bytes [roffs[r], roffs[r] + rbytes[r]) of racc's stream
 * (vform 0: the tables are NULL and block r is at r * sbytes).  The
 * messages are those of the linear plain schedule, so ranks may mix this
 * with hcomm_igather(v); HC_ERR_NOT_SUPPORTED (nothing done) for a gather
 * that would not be linear there.  The engine copies the accessors; their
 * ctx must stay valid as for hcomm_ibcast_acc. */
hc_status_t hcomm_gatherv_acc(const hcomm_accessor_t *sacc, size_t sbytes,
                              const hcomm_accessor_t *racc, int vform,
                              const size_t *rbytes, const size_t *roffs,
                              int root, hcomm_comm_t *comm, int persistent,
                              hcomm_request_t **req);
/* The mirror: at the root, rank r's block is bytes [soffs[r], soffs[r] +
 * sbytes[r]) of sacc's stream (vform 0: at r * rbytes); racc's bytes [0,
 * rbytes) receive this rank's (NULL at the root: in place). */
hc_status_t hcomm_scatterv_acc(const hcomm_accessor_t *sacc, int vform,
                               const size_t *sbytes, const size_t *soffs,
                               const hcomm_accessor_t *racc, size_t rbytes,
                               int root, hcomm_comm_t *comm, int persistent,
                               hcomm_request_t **req);
hc_status_t hcomm_iscatter(const void *sendbuf, size_t bytes, void *recvbuf,
                           int root, hcomm_comm_t *comm, hcomm_request_t **req);
hc_status_t hcomm_iscatterv(const void *sendbuf, const size_t *sbytes,
                            const size_t *sdispls, void *recvbuf, size_t rbytes,
                            int root, hcomm_comm_t *comm,
                            hcomm_request_t **req);
hc_status_t hcomm_iallgather(const void *sendbuf, size_t bytes, void *recvbuf,
                             hcomm_comm_t *comm, hcomm_request_t **req);
hc_status_t hcomm_iallgatherv(const void *sendbuf, size_t sbytes, void *recvbuf,
                              const size_t *rbytes, const size_t *rdispls,
                              hcomm_comm_t *comm, hcomm_request_t **req);
/* What to do once a collective started with hcomm_i* has finished (status:
 * its error): e.g. unpack what it received.  Runs with the engine lock
 * held, before hcomm_test/hcomm_wait can report the request complete, so
 * it must not call hcomm_* functions. */
typedef void (*hcomm_coll_done_fn)(void *arg, hc_status_t status);
/* Attaches fn to req (one per request); runs it in this call when req has
 * already finished.  HC_ERR_REQUEST when req is not such a request or
 * already has one. */
hc_status_t hcomm_icoll_on_complete(hcomm_request_t *req, hcomm_coll_done_fn fn,
                                    void *arg);
/* bytes per pair: block r of sendbuf goes to rank r. */
hc_status_t hcomm_ialltoall(const void *sendbuf, size_t bytes, void *recvbuf,
                            hcomm_comm_t *comm, hcomm_request_t **req);
hc_status_t hcomm_ialltoallv(const void *sendbuf, const size_t *sbytes,
                             const size_t *sdispls, void *recvbuf,
                             const size_t *rbytes, const size_t *rdispls,
                             hcomm_comm_t *comm, hcomm_request_t **req);

/* A neighbourhood collective's one side: n messages, message i of
 * bytes[i] bytes at offs[i] from the buffer, to or from peers[i] (a rank
 * of the communicator, or HCOMM_PROC_NULL: nothing moves).  Messages are
 * posted in list order, so those between one pair of ranks match in it. */
typedef struct hcomm_neighbors {
  int n;
  const int *peers;
  const size_t *bytes;
  const size_t *offs;
} hcomm_neighbors_t;
/* Every receive of recv and every send of send, as one collective. */
hc_status_t hcomm_ineighbor(const void *sendbuf, const hcomm_neighbors_t *send,
                            void *recvbuf, const hcomm_neighbors_t *recv,
                            hcomm_comm_t *comm, hcomm_request_t **req);

/* ---- persistent collectives -----------------------------------------------
 * hcomm_X_init takes the arguments of hcomm_iX and builds the same
 * schedule once, without starting it: *req is an inactive persistent
 * request (hcomm_test says done).  hcomm_start runs the schedule again,
 * with no allocation of its own, reading the buffers as they are then;
 * it completes like any request and stays valid for the next
 * hcomm_start.  Every rank starts its collectives on comm, persistent or
 * not, in one order.  hcomm_request_free of an inactive one frees it; of
 * an active one, when it completes. */
hc_status_t hcomm_barrier_init(hcomm_comm_t *comm, hcomm_request_t **req);
hc_status_t hcomm_bcast_init(void *buf, size_t bytes, int root,
                             hcomm_comm_t *comm, hcomm_request_t **req);
hc_status_t hcomm_reduce_init(const void *sendbuf, void *recvbuf, size_t count,
                              const hcomm_reduce_op_t *op, int root,
                              hcomm_comm_t *comm, hcomm_request_t **req);
hc_status_t hcomm_allreduce_init(const void *sendbuf, void *recvbuf,
                                 size_t count, const hcomm_reduce_op_t *op,
                                 hcomm_comm_t *comm, hcomm_request_t **req);
hc_status_t hcomm_scan_init(const void *sendbuf, void *recvbuf, size_t count,
                            const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                            hcomm_request_t **req);
hc_status_t hcomm_exscan_init(const void *sendbuf, void *recvbuf, size_t count,
                              const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                              hcomm_request_t **req);
hc_status_t hcomm_reduce_scatter_init(const void *sendbuf, void *recvbuf,
                                      const size_t *counts,
                                      const hcomm_reduce_op_t *op,
                                      hcomm_comm_t *comm,
                                      hcomm_request_t **req);
hc_status_t hcomm_gather_init(const void *sendbuf, size_t bytes, void *recvbuf,
                              int root, hcomm_comm_t *comm,
                              hcomm_request_t **req);
hc_status_t hcomm_gatherv_init(const void *sendbuf, size_t sbytes,
                               void *recvbuf, const size_t *rbytes,
                               const size_t *rdispls, int root,
                               hcomm_comm_t *comm, hcomm_request_t **req);
hc_status_t hcomm_scatter_init(const void *sendbuf, size_t bytes, void *recvbuf,
                               int root, hcomm_comm_t *comm,
                               hcomm_request_t **req);
hc_status_t hcomm_scatterv_init(const void *sendbuf, const size_t *sbytes,
                                const size_t *sdispls, void *recvbuf,
                                size_t rbytes, int root, hcomm_comm_t *comm,
                                hcomm_request_t **req);
hc_status_t hcomm_allgather_init(const void *sendbuf, size_t bytes,
                                 void *recvbuf, hcomm_comm_t *comm,
                                 hcomm_request_t **req);
hc_status_t hcomm_allgatherv_init(const void *sendbuf, size_t sbytes,
                                  void *recvbuf, const size_t *rbytes,
                                  const size_t *rdispls, hcomm_comm_t *comm,
                                  hcomm_request_t **req);
hc_status_t hcomm_alltoall_init(const void *sendbuf, size_t bytes,
                                void *recvbuf, hcomm_comm_t *comm,
                                hcomm_request_t **req);
hc_status_t hcomm_alltoallv_init(const void *sendbuf, const size_t *sbytes,
                                 const size_t *sdispls, void *recvbuf,
                                 const size_t *rbytes, const size_t *rdispls,
                                 hcomm_comm_t *comm, hcomm_request_t **req);
hc_status_t hcomm_neighbor_init(const void *sendbuf,
                                const hcomm_neighbors_t *send, void *recvbuf,
                                const hcomm_neighbors_t *recv,
                                hcomm_comm_t *comm, hcomm_request_t **req);
/* Starts an inactive persistent collective or partitioned operation;
 * HC_ERR_REQUEST when req is active or neither. */
hc_status_t hcomm_start(hcomm_request_t *req);
/* hcomm_start that tells how the start went: HCOMM_START_FINISHED when
 * the run finished inside it with HC_OK (req is done and stays so until
 * the next start: a wait needs not look at it), HC_OK when it runs on,
 * else the error (negative).  For MPI_Start of a persistent collective,
 * whose MPI_Wait then completes in a few loads. */
#define HCOMM_START_FINISHED 1
int hcomm_start_told(hcomm_request_t *req);
/* Hooks of an inactive persistent collective, set once: fn(arg, status)
 * after every run, as for hcomm_icoll_on_complete; release(arg) when the
 * request is freed.  HC_ERR_REQUEST when req is not such a request or
 * already has hooks. */
hc_status_t hcomm_coll_init_hooks(hcomm_request_t *req, hcomm_coll_done_fn fn,
                                  void (*release)(void *arg), void *arg);
/* ---- collectives on intercommunicators -----------------------------------
 * As the hcomm_i* calls above (persistent 0), or the hcomm_*_init ones
 * (persistent 1: kept inactive for hcomm_start), with MPI's
 * intercommunicator meaning
 * (MPI 4.0 section 6.2.2): each group receives what the other group
 * contributes, and arrays per peer index the remote group.  Rooted calls:
 * in the root's group the root passes root HCOMM_ROOT and the others
 * HCOMM_PROC_NULL (they take no part); in the other group root is the
 * root's rank in the remote group.  HCOMM_IN_PLACE is not accepted.
 * HC_ERR_COMM on an intracommunicator. */
hc_status_t hcomm_inter_barrier(hcomm_comm_t *comm, int persistent, hcomm_request_t **req);
hc_status_t hcomm_inter_bcast(void *buf, size_t bytes, int root,
                               hcomm_comm_t *comm, int persistent, hcomm_request_t **req);
hc_status_t hcomm_inter_reduce(const void *sendbuf, void *recvbuf,
                                size_t count, const hcomm_reduce_op_t *op,
                                int root, hcomm_comm_t *comm,
                                int persistent, hcomm_request_t **req);
hc_status_t hcomm_inter_allreduce(const void *sendbuf, void *recvbuf,
                                   size_t count, const hcomm_reduce_op_t *op,
                                   hcomm_comm_t *comm, int persistent, hcomm_request_t **req);
/* counts: one block per local rank; the sums agree between the groups. */
hc_status_t hcomm_inter_reduce_scatter(const void *sendbuf, void *recvbuf,
                                        const size_t *counts,
                                        const hcomm_reduce_op_t *op,
                                        hcomm_comm_t *comm,
                                        int persistent, hcomm_request_t **req);
hc_status_t hcomm_inter_gather(const void *sendbuf, size_t bytes,
                                void *recvbuf, int root, hcomm_comm_t *comm,
                                int persistent, hcomm_request_t **req);
hc_status_t hcomm_inter_gatherv(const void *sendbuf, size_t sbytes,
                                 void *recvbuf, const size_t *rbytes,
                                 const size_t *rdispls, int root,
                                 hcomm_comm_t *comm, int persistent, hcomm_request_t **req);
hc_status_t hcomm_inter_scatter(const void *sendbuf, size_t bytes,
                                 void *recvbuf, int root, hcomm_comm_t *comm,
                                 int persistent, hcomm_request_t **req);
hc_status_t hcomm_inter_scatterv(const void *sendbuf, const size_t *sbytes,
                                  const size_t *sdispls, void *recvbuf,
                                  size_t rbytes, int root, hcomm_comm_t *comm,
                                  int persistent, hcomm_request_t **req);
/* sbytes from each member, rbytes per member of the other group. */
hc_status_t hcomm_inter_allgather(const void *sendbuf, size_t sbytes,
                                   void *recvbuf, size_t rbytes,
                                   hcomm_comm_t *comm, int persistent, hcomm_request_t **req);
hc_status_t hcomm_inter_allgatherv(const void *sendbuf, size_t sbytes,
                                    void *recvbuf, const size_t *rbytes,
                                    const size_t *rdispls, hcomm_comm_t *comm,
                                    int persistent, hcomm_request_t **req);
hc_status_t hcomm_inter_alltoallv(const void *sendbuf, const size_t *sbytes,
                                   const size_t *sdispls, void *recvbuf,
                                   const size_t *rbytes, const size_t *rdispls,
                                   hcomm_comm_t *comm, int persistent, hcomm_request_t **req);

/* ---- one-sided communication (rma.c, rma_sync.c; docs/rma.md) ----------- */

/* A window: memory of every member of a communicator that the others read
 * and write.  Operations travel as active messages on the window's own
 * communicator and are applied by the target's progress engine, one at a
 * time, in the order each origin issued them. */
typedef struct hcomm_win hcomm_win_t;

/* Combines bytes of the packed stream in into inout under op on elements of
 * type (both opaque to the engine: the MPI face's handles).  Called by the
 * target under the engine lock; must not call hcomm. */
typedef hc_status_t (*hcomm_rma_combine_fn)(int op, int type, const void *in,
                                           void *inout, size_t bytes);

/* One contiguous piece of the target's data: len bytes at off bytes from
 * the operation's target address, in stream order. */
typedef struct hcomm_rma_seg {
  size_t off;
  size_t len;
} hcomm_rma_seg_t;

enum hcomm_rma_kind {
  HCOMM_RMA_PUT = 1,
  HCOMM_RMA_GET = 2,
  HCOMM_RMA_ACC = 3,     /* op applied element-wise, atomic per element */
  HCOMM_RMA_GET_ACC = 4, /* the old data comes back, then op applies */
  HCOMM_RMA_CAS = 5      /* data: new value then compare value */
};

/* What an operation moves.  data (bytes) is the origin's packed stream,
 * copied before hcomm_rma_issue returns; result (result_bytes) receives the
 * target's old data as a packed stream.  done(arg), when set, runs once the
 * result landed (or the operation failed), under the engine lock, and must
 * not call hcomm. */
typedef struct hcomm_rma_op {
  int kind;   /* an hcomm_rma_kind */
  int target; /* rank in the window's communicator */
  size_t disp; /* bytes from the target's base (dynamic: an address) */
  const hcomm_rma_seg_t *segs;
  size_t nsegs;
  const void *data;
  size_t bytes;
  void *result;
  size_t result_bytes;
  int op, type; /* for hcomm_rma_combine_fn */
  /* GET only: an atomic read (MPI_Get_accumulate or MPI_Fetch_and_op with
   * MPI_NO_OP), which must not see an accumulate half applied. */
  int atomic_read;
  /* On a window with NIC atomics (hcomm_win_nic_atomics), what every
   * accumulate kind and atomic read must name: the device operation its
   * 8-byte elements take (an hcomm_rma_nic; 0 elsewhere). */
  int nic;
  /* Runs (under the engine lock) once the operation completed, with its
   * status: a failed one returned no data at result. */
  void (*done)(void *arg, hc_status_t status);
  void *arg;
} hcomm_rma_op_t;

/* The device operation of an accumulate on a window with NIC atomics:
 * fetch-and-add (MPI_SUM; MPI_NO_OP and atomic reads add 0), a
 * compare-and-swap loop (MPI_REPLACE), one compare-and-swap. */
enum hcomm_rma_nic {
  HCOMM_RMA_NIC_ADD = 1,
  HCOMM_RMA_NIC_REPLACE = 2,
  HCOMM_RMA_NIC_CAS = 3
};

/* hcomm_win_create's flags. */
#define HCOMM_WIN_DYNAMIC 0x1u /* no memory until hcomm_win_attach */
/* This member promises that every accumulate kind on the window will
 * name an hcomm_rma_nic (hcomm_win_nic_atomics). */
#define HCOMM_WIN_NIC_ATOMICS 0x2u

/* Collective over comm, which the window uses for all its traffic (the
 * caller gives it a communicator of its own and frees it after
 * hcomm_win_free).  flags: HCOMM_WIN_*. */
hc_status_t hcomm_win_create(hcomm_comm_t *comm, void *base, size_t size,
                             int disp_unit, unsigned flags,
                             hcomm_rma_combine_fn combine, hcomm_win_t **out);
/* Collective, after hcomm_win_create (and hcomm_win_share): *granted 1
 * when every member created the window with HCOMM_WIN_NIC_ATOMICS and
 * every member reaches every member, itself included, by one
 * transport's 8-byte atomics into its registered window.  Then every
 * accumulate kind on it moves as one device atomic per element, complete
 * at issue, and one outside the contract fails with HC_ERR_ARG.  No
 * communication unless every member asked. */
hc_status_t hcomm_win_nic_atomics(hcomm_win_t *win, int *granted);
/* Collective: completes every operation on the window, then frees it. */
hc_status_t hcomm_win_free(hcomm_win_t *win);
/* Bytes of a shared window's lock area per member (hcomm_win_share) in a
 * window of members members. */
size_t hcomm_win_lock_bytes(int members);
/* Collective, right after hcomm_win_create, for a window whose members'
 * memory is one mapping of this node: bases[i] is member i's window
 * memory as this process maps it; locks, in the same shared mapping and
 * zeroed at first, holds hcomm_win_lock_bytes(size) per member.  Unless
 * HCMPI_RMA_DIRECT=0 on any member, every operation then moves by loads
 * and stores, accumulates under the target's word of locks.  bases NULL:
 * this member takes part, and the window stays on active messages. */
hc_status_t hcomm_win_share(hcomm_win_t *win, char *const *bases, void *locks);
/* A target's window size and displacement unit (0 for dynamic windows). */
size_t hcomm_win_target_size(const hcomm_win_t *win, int rank);
int hcomm_win_target_disp_unit(const hcomm_win_t *win, int rank);
int hcomm_win_is_dynamic(const hcomm_win_t *win);
/* Where rank's device window is mapped in this process (an IPC import of
 * another local member's window memory, made at creation), or NULL when
 * it is not: this rank itself, host memory, another node, no import. */
void *hcomm_win_device_import(const hcomm_win_t *win, int rank);
/* Dynamic windows: local memory others may reach from now on / no more. */
hc_status_t hcomm_win_attach(hcomm_win_t *win, void *base, size_t size);
hc_status_t hcomm_win_detach(hcomm_win_t *win, const void *base);
/* Starts one operation; HC_ERR_RMA_SYNC outside an access epoch to the
 * target.  req NULL: completed by the next synchronisation; else *req is a
 * request that completes once the result landed (get kinds) or the data
 * was taken (others). */
hc_status_t hcomm_rma_issue(hcomm_win_t *win, const hcomm_rma_op_t *op,
                            hcomm_request_t **req);
/* One element of elem bytes at disp units (the target's displacement
 * unit) of target's window, for the
 * accumulate kinds' common case: kernel (ACC, GET_ACC: one element of
 * in combined into the target's) or, with kernel NULL, a compare and swap
 * (in replaces the element when it equals compare).  old, when not NULL,
 * receives the element as it was. */
typedef struct hcomm_rma_atomic {
  int target;
  size_t disp;
  size_t elem;
  const hcomm_reduce_op_t *kernel;
  const void *in;
  const void *compare;
  void *old;
} hcomm_rma_atomic_t;
/* Applies a at once, complete on return, where the target's memory is
 * mapped here (shared windows) and the access lies inside the window and
 * an epoch; HC_ERR_NOT_SUPPORTED otherwise (the caller issues it with
 * hcomm_rma_issue, which knows every other case).  Atomic against every
 * other accumulate kind on the window. */
hc_status_t hcomm_rma_atomic(hcomm_win_t *win, const hcomm_rma_atomic_t *a);
/* A put (put 1: local's len bytes written at disp bytes of target's
 * window) or get (put 0: read into local) of one contiguous piece, for
 * the common case of dense data at both ends: done at once (complete on
 * return but for the device copies below), where the target's memory is
 * mapped here (shared windows, this rank's own, host or device memory),
 * or, for local in device memory
 * (local_mem as hcomm_mem_classify filled it; NULL: host), where the
 * target's device window is imported here (another rank of this node),
 * and the access lies inside the window and an epoch;
 * HC_ERR_NOT_SUPPORTED otherwise (the caller issues it with
 * hcomm_rma_issue), or a failed device copy's status.  A copy between
 * device memory at local and a peer's imported device window is queued
 * on the device, not waited for: the window's completing calls (flush,
 * unlock, fence, complete, free) wait for it, and with req (not NULL)
 * *req is a request that completes once it is done (others complete
 * before this returns); local must stay as it is until then. */
hc_status_t hcomm_rma_copy(hcomm_win_t *win, int target, size_t disp,
                           void *local, const hcomm_mem_info_t *local_mem,
                           size_t len, int put, hcomm_request_t **req);
/* Synchronisation; each returns HC_ERR_RMA_SYNC when called out of turn.
 * assert is MPI's MPI_MODE_* bit set (hcomm_win_fence: NOPRECEDE skips the
 * completion of the epoch, NOSUCCEED opens none). */
#define HCOMM_RMA_MODE_NOCHECK 1024
#define HCOMM_RMA_MODE_NOPRECEDE 8192
#define HCOMM_RMA_MODE_NOSUCCEED 16384
hc_status_t hcomm_win_fence(hcomm_win_t *win, int assert);
hc_status_t hcomm_win_post(hcomm_win_t *win, int n, const int *ranks,
                           int assert);
hc_status_t hcomm_win_start(hcomm_win_t *win, int n, const int *ranks,
                            int assert);
hc_status_t hcomm_win_complete(hcomm_win_t *win);
hc_status_t hcomm_win_wait(hcomm_win_t *win);
hc_status_t hcomm_win_test(hcomm_win_t *win, int *flag);
enum { HCOMM_LOCK_SHARED = 1, HCOMM_LOCK_EXCLUSIVE = 2 };
hc_status_t hcomm_win_lock(hcomm_win_t *win, int type, int rank);
hc_status_t hcomm_win_unlock(hcomm_win_t *win, int rank);
hc_status_t hcomm_win_lock_all(hcomm_win_t *win);
hc_status_t hcomm_win_unlock_all(hcomm_win_t *win);
/* rank -1: every target.  local: only the origin's buffers are done. */
hc_status_t hcomm_win_flush(hcomm_win_t *win, int rank, int local);
/* 1 when a flush of rank (a member) has nothing to do: the common case
 * after direct operations (target in a passive epoch, nothing in flight or
 * sent to it, no failure known), on a process of one thread; a flush
 * would return HC_OK at once.  0: call hcomm_win_flush. */
int hcomm_win_flush_done(const hcomm_win_t *win, int rank);

#ifdef __cplusplus
}
#endif
#endif /* HCOMM_H */
