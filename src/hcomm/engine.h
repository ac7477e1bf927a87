/*
 * The engine's internal API: what other parts of src/hcomm (the blocking
 * collectives in coll.c, the MPI face's helpers) may rely on besides
 * include/hcomm.h.
 *
 * Locking: every hcomm_* entry point takes the engine lock itself (a no-op
 * below HCOMM_THREAD_MULTIPLE).  The lock is NOT recursive: code outside
 * the engine core (coll.c) calls only public hcomm_* functions, never while
 * holding the lock itself.  Blocking waits release the lock while they
 * sleep.
 */
#ifndef HC_ENGINE_H
#define HC_ENGINE_H

#include <stddef.h>

#include "hcomm.h"

/*
 * Tags on a communicator's collective context.  The schedules of nbc.c use
 * tags in [0, HC_COLL_TAG_ENGINE_BASE); the engine's own small collectives
 * (context id agreement, split, finalize barrier) use the tags above it.
 * Collectives on one communicator run in the same order on every rank, so
 * reusing a tag across successive collectives is safe (non-overtaking
 * order).
 */
#define HC_COLL_TAG_ENGINE_BASE 0x0ffff000
#define HC_COLL_TAG_MAX HCOMM_TAG_UB

#endif /* HC_ENGINE_H */
