/*
 * The pool of face request objects: what MPI_Request and MPI_Message
 * handles name.
 *
 * Objects live in slabs that never move or go away, each at a fixed index.
 * A handle encodes that index and a generation:
 *
 *   kind DIRECT (2 bits) | HC_OBJ_REQUEST (4) | generation (6) | index (20)
 *
 * so a lookup is two array reads and one comparison with the handle the
 * object holds while it is live.  Freeing an object bumps its generation:
 * a stale handle (its object freed, perhaps handed out again since) reads
 * as invalid instead of as another request.  Six bits of generation catch
 * every reuse up to 64 deep.
 *
 * Each object carries the home of its engine request (hcomm_isend_at), so
 * a point-to-point operation is one object for the face and the engine.
 *
 * Free objects sit in a per-thread cache in front of a shared list, moved
 * between the two in batches under the shared lock, so threads under
 * MPI_THREAD_MULTIPLE allocate and free without meeting each other.  An
 * object may be freed on another thread than the one that allocated it: it
 * then joins the freeing thread's cache.  A thread's cache goes back to the
 * pool when the thread exits.
 */
#ifndef HC_MPI_REQPOOL_H
#define HC_MPI_REQPOOL_H

#include <stdint.h>

#include "hcomm.h"

struct hc_mpi_request;

/* hc_reqpool_alloc, hc_reqpool_free, hc_reqpool_home_take,
 * hc_reqpool_home_unused and hc_reqpool_get are inline, defined in reqpool_slot.h (which mpi_impl.h includes at its
 * end): called, they cost every MPI_Irecv, MPI_Isend and array wait
 * (bench/NOTES.md, recv18). */

/* Handle layout below the kind and object type fields. */
#define HC_REQPOOL_INDEX_BITS 20
#define HC_REQPOOL_GEN_BITS 6
#define HC_REQPOOL_CAPACITY (1u << HC_REQPOOL_INDEX_BITS)

/* A zeroed object with its handle field set to a fresh handle; NULL when
 * memory or the index space (HC_REQPOOL_CAPACITY live objects) runs out.
 * Only the fields before HC_MPI_REQUEST_RARE are cleared here: the rest
 * are cleared by hc_reqpool_free, unless the object was a plain request
 * (HC_REQ_PLAIN) without greq, which never sets them. */
static inline struct hc_mpi_request *hc_reqpool_alloc(void);
/* Clears r's rare fields (see hc_reqpool_alloc), invalidates r's handle
 * and keeps r for reuse (once the engine no longer
 * holds its home); r must be live. */
static inline void hc_reqpool_free(struct hc_mpi_request *r);
/* The home of r's engine request (hcomm_isend_at / hcomm_irecv_at), one
 * operation at a time; an engine call that failed leaves it unused: say so
 * with hc_reqpool_home_unused.  The engine gives it back by its drop (from
 * hcomm_wait_free or hcomm_request_free once the request is complete, or
 * at completion after hcomm_request_free); the slot is reused once both
 * that and hc_reqpool_free have come, in either order, on any threads.
 * After hc_reqpool_free, r belongs to the engine: free its engine request
 * after, not before, when it must stay valid until then. */
static inline hcomm_request_home_t *
hc_reqpool_home_take(struct hc_mpi_request *r);
/* The engine does not hold r's home: the call that took it failed, or
 * hcomm_request_reap released its request to r's owner (the caller). */
static inline void hc_reqpool_home_unused(struct hc_mpi_request *r);
/* Gives live r a fresh handle, returned and stored in r->handle, for a
 * new use of the same object (an MPI_Message that MPI_Imrecv turns into
 * the request of its receive): the old handle reads as stale from now. */
int hc_reqpool_renew(struct hc_mpi_request *r);
/* The live object of a handle made by hc_reqpool_alloc, else NULL (wrong
 * kind or object type, index never handed out, object freed since). */
static inline struct hc_mpi_request *hc_reqpool_get(int handle);

#endif /* HC_MPI_REQPOOL_H */
