/*
 * Schedules of the non-blocking collectives (src/hcomm/nbc.c).  A started
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
 * them).  Blocking, non-blocking and persistent collectives share them. */
#define HC_NBC_TAG_BASE 0x10000
#define HC_NBC_SEQS 0x100000

/* Advances every active schedule once; returns how many moved.  Caller
 * holds the engine lock (called from hc_progress_locked). */
int hc_nbc_progress_locked(void);
/* Schedules active; lets an idle poll skip hc_nbc_progress_locked. */
extern int hc_nbc_nactive;

/* ---- schedules built outside nbc.c (comm.c's non-blocking dup) ----------
 * A schedule is built with these, then started; everything runs with the
 * engine lock held.  A call step runs local work when the schedule reaches
 * it and may append more steps (a retry), the same on every rank. */
#include "hcomm/core.h"

typedef struct nbc_sched hc_nbc_sched_t;
typedef void (*hc_nbc_call_fn)(hc_nbc_sched_t *s, void *arg);

/* A schedule on comm whose reductions use op (NULL: none). */
hc_status_t hc_nbc_new(hcomm_comm_t *comm, const hcomm_reduce_op_t *op,
                       hc_nbc_sched_t **s);
/* fn(s, arg) as a step of its own; it may call the hc_nbc_add_* below. */
void hc_nbc_add_call(hc_nbc_sched_t *s, hc_nbc_call_fn fn, void *arg);
/* In-place allreduce of count elements of the schedule's op in rounds of
 * their own: the steps after it see the result. */
void hc_nbc_add_allreduce(hc_nbc_sched_t *s, void *buf, size_t count);
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
/* Frees a persistent collective's schedule (hc_request_release of its
 * request, which is complete or never started). */
void hc_nbc_plan_free(hc_nbc_sched_t *s);

#endif /* HC_NBC_H */
