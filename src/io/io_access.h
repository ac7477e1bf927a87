/*
 * The one data access path of MPI-IO (io_access.c) that every read and
 * write call of io_calls.c goes through.
 */
#ifndef HC_IO_ACCESS_H
#define HC_IO_ACCESS_H

#include "io/io.h"

/* Where an access starts. */
enum {
  IO_AT_OFFSET = 0,  /* explicit offset (_at) */
  IO_AT_POINTER = 1, /* the individual file pointer */
  IO_AT_SHARED = 2,  /* the shared file pointer (_shared) */
  IO_AT_ORDERED = 3  /* the shared pointer in rank order (_ordered) */
};

typedef struct io_how {
  int write;
  int coll;  /* collective: every rank of the file calls it */
  int where; /* IO_AT_* */
} io_how_t;

/* The stream of an access and the buffers behind it. */
typedef struct hc_io_mem {
  const hc_mpi_type_t *t;
  MPI_Datatype handle;
  void *user;
  MPI_Count count;
  MPI_Offset fbytes; /* stream bytes in the file representation */
  char *stream;      /* what the file side reads or writes */
  char *packed;      /* native packed copy (owned), or NULL */
  char *conv;        /* representation copy (owned), or NULL */
} hc_io_mem_t;

/* The parts of an access (io_access.c).  Checks: MPI_SUCCESS or a raised
 * class. */
int hc_io_access_check(const char *fn, MPI_File f, const io_how_t *how,
                       const void *buf, MPI_Count count, MPI_Datatype datatype,
                       const hc_mpi_type_t **t);
/* Sets up m for an access, filling the stream of a write; a class. */
int hc_io_mem_prepare(MPI_File f, hc_io_mem_t *m, int write);
/* After a read of done stream bytes: into the user's buffer; *mem_bytes
 * the bytes of the memory representation that is.  A class. */
int hc_io_mem_finish_read(MPI_File f, hc_io_mem_t *m, MPI_Offset done,
                          MPI_Offset *mem_bytes);
/* Frees the copies and drops the access's hold on the type. */
void hc_io_mem_free(hc_io_mem_t *m);
/* Where the access starts, in etypes; moves the shared pointer it uses.
 * MPI_SUCCESS or a raised class. */
int hc_io_access_place(const char *fn, MPI_File f, const io_how_t *how,
                       MPI_Offset offset, MPI_Offset etypes, MPI_Offset *start);
/* An access's status: bytes of the memory representation. */
void hc_io_status_of(MPI_Status *status, MPI_Offset bytes);

/* The request of a non-blocking access: a generalized request whose
 * query_fn raises a failure through the file's handler, so the wait or
 * test that completes it returns the class and raises nothing more. */
int hc_io_request_new(MPI_Grequest_query_function *query_fn,
                      MPI_Grequest_free_function *free_fn,
                      MPI_Grequest_cancel_function *cancel_fn, void *extra,
                      MPI_Request *request);

/* The library's and the engine's locks become real before a thread of
 * the io layer first calls into the library (io_async.c). */
void hc_io_threads_on(void);

/* One access from its start to its end.  Starting it (calling thread)
 * checks, prepares the memory side and places it; moving it (hc_io_op_move,
 * on the calling thread or the file's thread) moves the bytes; ending it
 * (the thread that completes it) lands a read and reports. */
typedef struct hc_io_op {
  MPI_File f;
  const char *fn;
  io_how_t how;
  hc_io_mem_t m;
  int prep_cls;      /* preparing the memory side failed: nothing moves */
  int place_rc;      /* an ordered access's place failed (it goes on) */
  MPI_Offset start;  /* in etypes */
  MPI_Offset pos, n; /* stream bytes */
  /* set by hc_io_op_move */
  int err; /* a class negated (collective) or an errno */
  MPI_Offset done;
  /* the file's queue (io_collq.c) or the worker's (io_async.c) */
  struct hc_io_op *next;
  struct hc_io_ring_op *ring; /* on the ring until its runs are done */
  MPI_Request req; /* completed once moved; MPI_REQUEST_NULL for none */
  int moved;
  /* set by hc_io_op_end */
  int ended, cls;
  MPI_Offset mem_bytes;
} hc_io_op_t;

/* Moves op's bytes: the one file side of every access. */
void hc_io_op_move(hc_io_op_t *op);

/* The file's queue of collective accesses (io_collq.c).  MPI-4.0 14.6.4
 * has every rank start a file's collective accesses in the same order, so
 * running them one at a time in that order on every rank is consistent.
 * hc_io_collq_run: moves op in its turn, on the calling thread when the
 * queue is empty, and returns once it has moved.  _push: queues op for
 * the file's thread (started with the first), which completes op->req.
 * _wait: until op has moved.  (hc_io_collq_drain, _close: io.h.) */
void hc_io_collq_run(hc_io_op_t *op);
void hc_io_collq_push(hc_io_op_t *op);
void hc_io_collq_wait(hc_io_op_t *op);

/* Moves a started independent op in the background (io_async.c): on the
 * kernel's ring, or the io worker thread, or here when neither can start;
 * op->req completes once it has moved. */
void hc_io_async_push(hc_io_op_t *op);

/* A blocking access of count elements of datatype at buf; offset (in
 * etypes) is used by IO_AT_OFFSET only.  MPI_SUCCESS or a raised class. */
int hc_io_access(const char *fn, MPI_File f, const io_how_t *how,
                 MPI_Offset offset, void *buf, MPI_Count count,
                 MPI_Datatype datatype, MPI_Status *status);
/* The non-blocking form: a collective one goes on the file's queue and
 * *request completes once it has moved. */
int hc_io_start(const char *fn, MPI_File f, const io_how_t *how,
                MPI_Offset offset, void *buf, MPI_Count count,
                MPI_Datatype datatype, MPI_Request *request);
/* Split collectives: begin queues the access, end waits for it. */
int hc_io_split_begin(const char *fn, MPI_File f, const io_how_t *how,
                      MPI_Offset offset, void *buf, MPI_Count count,
                      MPI_Datatype datatype);
int hc_io_split_end(const char *fn, MPI_File f, MPI_Status *status);

#endif /* HC_IO_ACCESS_H */
