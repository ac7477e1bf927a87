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

struct hc_mpi_request;

/* Handle layout below the kind and object type fields. */
#define HC_REQPOOL_INDEX_BITS 20
#define HC_REQPOOL_GEN_BITS 6
#define HC_REQPOOL_CAPACITY (1u << HC_REQPOOL_INDEX_BITS)

/* A zeroed object with its handle field set to a fresh handle; NULL when
 * memory or the index space (HC_REQPOOL_CAPACITY live objects) runs out. */
struct hc_mpi_request *hc_reqpool_alloc(void);
/* Invalidates r's handle and keeps r for reuse; r must be live. */
void hc_reqpool_free(struct hc_mpi_request *r);
/* The live object of a handle made by hc_reqpool_alloc, else NULL (wrong
 * kind or object type, index never handed out, object freed since). */
struct hc_mpi_request *hc_reqpool_get(int handle);

#endif /* HC_MPI_REQPOOL_H */
