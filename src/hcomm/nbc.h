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
 * its communicator modulo HC_NBC_SEQS).  Below HC_COLL_TAG_ENGINE_BASE and
 * above the blocking collectives' tags of coll.c, so neither can match the
 * other; collectives outstanding at once on one communicator differ in
 * tag (fewer than HC_NBC_SEQS of them). */
#define HC_NBC_TAG_BASE 0x10000
#define HC_NBC_SEQS 0x100000

/* Advances every active schedule once; returns how many moved.  Caller
 * holds the engine lock (called from hc_progress_locked). */
int hc_nbc_progress_locked(void);
/* Schedules active; lets an idle poll skip hc_nbc_progress_locked. */
extern int hc_nbc_nactive;

#endif /* HC_NBC_H */
