/*
 * Schedules of the collectives (the engine in src/hcomm/nbc.c, the
 * algorithms in nbc_reduce.c, nbc_gather.c, nbc_alltoall.c, nbc_scan.c;
 * nbc_impl.h is what those files share).  A started
 * collective is a list of rounds; each round runs its local steps (copies,
 * reductions) in order, posts its sends and receives on the communicator's
 * collective context, and the next round starts once all of them are
 * complete.  The engine's progress advances every active schedule; the last
 * round completes the collective's request through hc_request_complete.
 */
#ifndef HC_NBC_H
#define HC_NBC_H

/* Tags of schedules: NBC_TAG_BASE + (sequence number of the collective on
 * its communicator modulo HC_NBC_SEQS).  Below HC_COLL_TAG_ENGINE_BASE, so
 * the engine's own collectives never match them; collectives outstanding
 * at once on one communicator differ in tag (fewer than HC_NBC_SEQS of
 * them).  Blocking and non-blocking collectives share them. */
#define HC_NBC_TAG_BASE 0x10000
#define HC_NBC_SEQS 0x100000
/* A persistent collective takes its tag once, when it is initialised:
 * the init calls come in one order on every rank, the starts need not
 * (MPI-4.0 6.13), so the tag cannot come from the start.  Its own range,
 * above the other collectives' and below HC_COLL_TAG_ENGINE_BASE, so that
 * no number of later collectives wraps onto a persistent one's tag. */
#define HC_NBC_PERSIST_TAG_BASE 0x200000
#define HC_NBC_PERSIST_SEQS 0x1000000

/* Advances every active schedule once; returns how many moved.  Caller
 * holds the engine lock (called from hc_progress_locked). */
int hc_nbc_progress_locked(void);
/* Schedules active; lets an idle poll skip hc_nbc_progress_locked. */
extern int hc_nbc_nactive;
/* Schedules in a shared-memory step (hc_nbc_add_shmcoll), which wakes
 * nobody's transport: an idle wait sleeps on the segment instead. */
extern int hc_nbc_nshm;
/* Schedules in a poll step (hc_nbc_add_poll), which no transport wakes
 * either: an idle wait sleeps briefly. */
extern int hc_nbc_npoll;
/* Where the engine lock is no real lock: sleeps (the lock dropped) until
 * a publication in the segment of an active shared-memory step, at most
 * ms, and returns 1; else returns 0 at once. */
int hc_nbc_shm_sleep_locked(int ms);

/* ---- schedules built from steps (the collectives, comm.c's idup) --------
 * A schedule is built with these, then started; everything runs with the
 * engine lock held.  A call step runs local work when the schedule reaches
 * it and may append more steps (a retry), the same on every rank. */
#include "hcomm/core.h"
#include "hcomm/shmcoll.h"

/* Advances only the active schedule that completes req, if any: a wait or
 * test for one collective looks at its own step (a shared-memory step's
 * flags) before a round of every transport.  Returns 1 when req is then
 * complete.  Caller holds the engine lock. */
int hc_nbc_settle_locked(hcomm_request_t *req);

typedef struct nbc_sched hc_nbc_sched_t;
typedef void (*hc_nbc_call_fn)(hc_nbc_sched_t *s, void *arg);
/* 1 when what the step waits for is over (hc_nbc_fail for an error), 0
 * while it is under way: called at each progress pass until then. */
typedef int (*hc_nbc_poll_fn)(hc_nbc_sched_t *s, void *arg);

/* A schedule on comm whose reductions use op (NULL: none). */
hc_status_t hc_nbc_new(hcomm_comm_t *comm, const hcomm_reduce_op_t *op,
                       hc_nbc_sched_t **s);
/* The shared-memory collective *op (copied) in a round of its own: started
 * when the schedule reaches it, advanced by progress (shmcoll.h). */
void hc_nbc_add_shmcoll(hc_nbc_sched_t *s, const hc_shmcoll_op_t *op);
/* fn(s, arg) as a step of its own; it may call the hc_nbc_add_* below. */
void hc_nbc_add_call(hc_nbc_sched_t *s, hc_nbc_call_fn fn, void *arg);
/* In-place allreduce of count elements of the schedule's op in rounds of
 * their own: the steps after it see the result. */
void hc_nbc_add_allreduce(hc_nbc_sched_t *s, void *buf, size_t count);
/* fn(s, arg) in a round of its own, at every progress pass until it
 * returns 1: local work that finishes without messages (a device event). */
void hc_nbc_add_poll(hc_nbc_sched_t *s, hc_nbc_poll_fn fn, void *arg);
/* The schedule's tag (valid while it runs) and its rank in its group. */
int hc_nbc_tag(const hc_nbc_sched_t *s);
int hc_nbc_rank(const hc_nbc_sched_t *s);
/* fn(arg) when the schedule is freed, after success, failure or a failed
 * start. */
void hc_nbc_set_cleanup(hc_nbc_sched_t *s, void (*fn)(void *arg), void *arg);
/* From a call step: ends the round here, and the schedule goes on only at
 * the engine's next progress pass, so a retry that needs no messages (a
 * communicator of one) cannot spin without letting other work move. */
void hc_nbc_yield(hc_nbc_sched_t *s);
/* Ends the schedule with error (from a call step). */
void hc_nbc_fail(hc_nbc_sched_t *s, hc_status_t error);
/* Takes s (frees it on failure) and starts it; *req completes at its end. */
hc_status_t hc_nbc_start(hc_nbc_sched_t *s, hcomm_request_t **req);
/* As hc_nbc_start, or with persistent, keeps s as the inactive persistent
 * request *req that hcomm_start runs (its tag taken now: MPI_*_init). */
hc_status_t hc_nbc_launch(hc_nbc_sched_t *s, int persistent,
                          hcomm_request_t **req);
/* Frees a persistent collective's schedule (hc_request_release of its
 * request, which is complete or never started). */
void hc_nbc_plan_free(hc_nbc_sched_t *s);
/* With the lock held, from a step of another schedule: runs the inactive
 * persistent collective req under tag (that schedule's own, whose earlier
 * rounds are over at this rank); req completes as after hcomm_start. */
void hc_nbc_plan_run_locked(hcomm_request_t *req, int tag);

/* ---- building blocks (the collectives' builders, intercoll.c) -----------
 * The steps added after hc_nbc_set_comm(s, group) address the ranks of
 * group, which the schedule's communicator must keep alive (an
 * intercommunicator's local group), on group's collective context with the
 * schedule's tag; the builders below see group's rank and size.  Steps of
 * one round run in order and its messages are posted together; the next
 * round starts when they are all complete.  The hc_nbc_add_* collectives
 * take rounds of their own, so they see what the steps before them
 * received. */
void hc_nbc_set_comm(hc_nbc_sched_t *s, hcomm_comm_t *group);
void hc_nbc_add_send(hc_nbc_sched_t *s, const void *buf, size_t bytes,
                     int peer);
void hc_nbc_add_recv(hc_nbc_sched_t *s, void *buf, size_t bytes, int peer);
/* As send and recv, moving bytes [off, off + bytes) of the packed stream
 * that acc reaches (pack for the send, unpack for the receive) in
 * fragments; *acc is copied, acc->ctx must outlive the schedule's run. */
void hc_nbc_add_send_acc(hc_nbc_sched_t *s, const hcomm_accessor_t *acc,
                         size_t off, size_t bytes, int peer);
void hc_nbc_add_recv_acc(hc_nbc_sched_t *s, const hcomm_accessor_t *acc,
                         size_t off, size_t bytes, int peer);
/* bytes from src to dst (a local step). */
void hc_nbc_add_copy(hc_nbc_sched_t *s, const void *src, void *dst,
                     size_t bytes);
/* dst = src op dst over count elements of the schedule's op (src holds the
 * lower ranks' contribution). */
void hc_nbc_add_combine(hc_nbc_sched_t *s, const void *src, void *dst,
                        size_t count);
/* Ends the current round (nothing when it is empty). */
void hc_nbc_end_round(hc_nbc_sched_t *s);
/* A temporary freed with the schedule; NULL (and the schedule failed) when
 * memory ran out. */
void *hc_nbc_tmp(hc_nbc_sched_t *s, size_t bytes);
/* The collectives of the nbc_*.c builders over the current group, with their
 * arguments (buffers of bytes, reductions of count elements of the schedule's
 * op; mine may equal out). */
void hc_nbc_add_barrier(hc_nbc_sched_t *s);
void hc_nbc_add_bcast(hc_nbc_sched_t *s, void *buf, size_t bytes, int root);
void hc_nbc_add_reduce(hc_nbc_sched_t *s, const void *mine, void *out,
                       size_t count, int root);
void hc_nbc_add_gatherv(hc_nbc_sched_t *s, const void *mine, size_t bytes,
                        void *recvbuf, const size_t *rbytes,
                        const size_t *rdispls, int root);
void hc_nbc_add_scatterv(hc_nbc_sched_t *s, const void *sendbuf,
                         const size_t *sbytes, const size_t *sdispls,
                         void *recvbuf, size_t bytes, int root);

#endif /* HC_NBC_H */
