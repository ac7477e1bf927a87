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

/* A blocking access of count elements of datatype at buf; offset (in
 * etypes) is used by IO_AT_OFFSET only.  MPI_SUCCESS or a raised class. */
int hc_io_access(const char *fn, MPI_File f, const io_how_t *how,
                 MPI_Offset offset, void *buf, MPI_Count count,
                 MPI_Datatype datatype, MPI_Status *status);
/* The non-blocking form: the access is done now and *request is a
 * complete request carrying its status. */
int hc_io_start(const char *fn, MPI_File f, const io_how_t *how,
                MPI_Offset offset, void *buf, MPI_Count count,
                MPI_Datatype datatype, MPI_Request *request);
/* Split collectives: begin does the access and keeps its status for end. */
int hc_io_split_begin(const char *fn, MPI_File f, const io_how_t *how,
                      MPI_Offset offset, void *buf, MPI_Count count,
                      MPI_Datatype datatype);
int hc_io_split_end(const char *fn, MPI_File f, MPI_Status *status);

#endif /* HC_IO_ACCESS_H */
