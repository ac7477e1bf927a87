/*
 * Buffered-send pools: the room buffered sends (MPI_Bsend, MPI_Ibsend, a
 * started MPI_Bsend_init) copy their messages into.  One pool is what one
 * attach call gave: the process's (MPI_Buffer_attach), a session's
 * (MPI_Session_attach_buffer) or a communicator's
 * (MPI_Comm_attach_buffer), each held in a slot, the pointer its owner
 * keeps (NULL: nothing attached).  All pools and slots share one lock, so
 * a slot is read, filled and emptied only through these calls.
 */
#ifndef HC_MPI_BSEND_POOL_H
#define HC_MPI_BSEND_POOL_H

#include <stddef.h>

#include "mpi/mpi_impl.h"

typedef struct hc_mpi_bsend_pool hc_mpi_bsend_pool_t;

/* Attaches buffer (size bytes; MPI_BUFFER_AUTOMATIC: the library takes the
 * room of each message from the heap, size ignored) to an empty slot.
 * Returns MPI_SUCCESS, MPI_ERR_BUFFER when the slot holds a buffer
 * already, or MPI_ERR_NO_MEM. */
int hc_mpi_bsend_slot_attach(hc_mpi_bsend_pool_t **slot, void *buffer,
                             size_t size);

/* Empties the slot after every send through its buffer has completed
 * (blocks until then): what was attached goes to *buffer and *size
 * (NULL and 0 when nothing was; MPI_BUFFER_AUTOMATIC and 0 for automatic
 * buffering).  Either output may be NULL. */
void hc_mpi_bsend_slot_detach(hc_mpi_bsend_pool_t **slot, void **buffer,
                              size_t *size);

/* Empties the slot of an object going away without waiting: sends still
 * running finish on their own, and MPI_Finalize waits for them. */
void hc_mpi_bsend_slot_drop(hc_mpi_bsend_pool_t **slot);

/* The pool in the slot, held (hc_mpi_bsend_pool_release), or NULL. */
hc_mpi_bsend_pool_t *hc_mpi_bsend_slot_get(hc_mpi_bsend_pool_t **slot);
void hc_mpi_bsend_pool_release(hc_mpi_bsend_pool_t *pool);

/* Copies count elements of type into the pool and starts sending them on
 * comm; raises MPI_ERR_BUFFER on comm when the pool has no room. */
int hc_mpi_bsend_pool_send(const char *fn, hc_mpi_comm_t *comm,
                           hc_mpi_bsend_pool_t *pool, const void *buf,
                           MPI_Count count, const hc_mpi_type_t *type, int dest,
                           int tag);

/* Blocks until every send through the slot's buffer so far has completed
 * (nothing to do for an empty slot). */
void hc_mpi_bsend_slot_flush(hc_mpi_bsend_pool_t **slot);

/* A request that completes once every send through the slot's buffer so
 * far has (at once for an empty slot).  Raises on no object. */
int hc_mpi_bsend_slot_iflush(const char *fn, hc_mpi_bsend_pool_t **slot,
                             MPI_Request *request);

#endif /* HC_MPI_BSEND_POOL_H */
