/*
 * The engine's internal API: what other parts of src/hcomm (collectives in
 * coll.c, the MPI face's helpers) may call besides include/hcomm.h.
 *
 * Locking: every hcomm_* entry point and hc_coll_isend/hc_coll_irecv take the
 * engine lock themselves (a no-op below HCOMM_THREAD_MULTIPLE).  The lock is
 * NOT recursive: code outside the engine core (coll.c) must call only public
 * hcomm_* functions plus the two functions below, never while holding the
 * lock itself.  Blocking waits release the lock while they sleep.
 */
#ifndef HC_ENGINE_H
#define HC_ENGINE_H

#include <stddef.h>

#include "hcomm.h"

/*
 * Tags on a communicator's collective context.  coll.c uses tags in
 * [0, HC_COLL_TAG_ENGINE_BASE); the engine's own small collectives (context
 * id agreement, split, finalize barrier) use the tags above it.  Collectives
 * on one communicator run in the same order on every rank, so reusing a tag
 * across successive collectives is safe (non-overtaking order).
 */
#define HC_COLL_TAG_ENGINE_BASE 0x0ffff000
#define HC_COLL_TAG_MAX HCOMM_TAG_UB

/* Same semantics as hcomm_isend (standard mode) / hcomm_irecv, but on the
 * communicator's collective context, so they never match user traffic.
 * source may be HCOMM_ANY_SOURCE, tag HCOMM_ANY_TAG; dest/source
 * HCOMM_PROC_NULL completes at once.  Complete with hcomm_wait/hcomm_test,
 * release with hcomm_request_free. */
hc_status_t hc_coll_isend(const void *buf, size_t bytes, int dest, int tag,
                          hcomm_comm_t *comm, hcomm_request_t **req);
hc_status_t hc_coll_irecv(void *buf, size_t bytes, int source, int tag,
                          hcomm_comm_t *comm, hcomm_request_t **req);

#endif /* HC_ENGINE_H */
