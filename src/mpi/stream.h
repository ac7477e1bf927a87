/*
 * MPIX streams in the MPI face (stream.c, stream_enqueue.c): the stream
 * object behind an MPIX_Stream handle and what a stream communicator
 * holds.  A host stream (no device) is an execution context of the
 * calling thread: its operations run at the call, in call order.  A device
 * stream wraps the application's aclrtStream or CUstream: enqueued
 * operations start in a host function when the stream reaches them and
 * the stream then waits on its flag, which a watcher thread raises when
 * they completed (or, where the runtime has no such waits, the host
 * function runs them whole), with device data staged through pinned host
 * memory by copies on that stream.
 */
#ifndef HC_MPI_STREAM_H
#define HC_MPI_STREAM_H

#include <pthread.h>
#include <stdatomic.h>

#include "mpi/mpi_impl.h"

typedef struct hc_mpi_enq hc_mpi_enq_t; /* stream_enqueue.c */

typedef struct hc_mpi_stream {
  int handle;
  int kind;  /* an hcomm_mem_kind: HCOMM_MEM_HOST for a host stream */
  void *app; /* the application's stream handle */
  hcomm_stream_t *engine; /* device streams only */
  int attached;           /* communicators using it (under stream_lock) */
  /* The first error of an operation that ran on the stream, reported by
   * the next enqueue call or MPIX_Wait_enqueue on it; MPI_SUCCESS. */
  atomic_int error;
  /* Enqueued operations whose staging is freed once the stream ran them
   * (a host function may not call the runtime that would free it). */
  pthread_mutex_t lock;
  hc_mpi_enq_t *pending;
  /* Flag mode (hcomm_stream_has_flag): the flag values handed out to the
   * waits queued on the stream, and the operations behind them in that
   * order until the watcher raised the flag past them; under the
   * watcher's lock (stream_enqueue.c). */
  uint64_t tickets;
  hc_mpi_enq_t *watch_head, *watch_tail;
  /* Direct operations (device buffers, flag mode) the watcher starts
   * once the stream reached them, in stream order. */
  hc_mpi_enq_t *start_head, *start_tail;
  int direct; /* HCMPI_STREAM_DIRECT: device buffers go to the engine */
  struct hc_mpi_stream *next_watched; /* in the watcher's list */
  int in_watch;
  /* MPIX_Start_progress_thread: a thread progressing until stopped. */
  int progressing;
  atomic_int stop_progress;
  pthread_t progress_thread;
} hc_mpi_stream_t;

/* What MPIX_Stream_comm_create(_multiplex) attached to a communicator. */
typedef struct hc_mpi_stream_attach {
  int nlocal;              /* streams this rank gave (at least 1) */
  hc_mpi_stream_t **local; /* NULL entries: MPIX_STREAM_NULL */
  int *counts;             /* streams per rank */
  int width;               /* the largest count of any rank */
  MPI_Comm *pairs;         /* width > 1: width*width hidden duplicates,
                              src_index * width + dst_index */
} hc_mpi_stream_attach_t;

/* The stream object of a valid handle, else NULL. */
hc_mpi_stream_t *hc_mpi_stream_get(MPIX_Stream handle);
/* Waits until the device streams attached have run what was enqueued on
 * them (MPI_Comm_free: the operations queued name the handle). */
void hc_mpi_stream_quiesce(hc_mpi_stream_attach_t *attach);
/* Detaches comm's streams (last release of the communicator). */
void hc_mpi_stream_detach(hc_mpi_stream_attach_t *attach);
/* Frees the staging of enqueued operations the stream has finished. */
void hc_mpi_enq_reclaim(hc_mpi_stream_t *s);
/* Waits for everything enqueued on s and frees its staging. */
int hc_mpi_enq_drain(hc_mpi_stream_t *s);
/* MPI_Finalize: stops the thread that raises stream flags. */
void hc_mpi_enq_shutdown(void);

#endif /* HC_MPI_STREAM_H */
