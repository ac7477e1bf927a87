/*
 * Errors of the MPI face: engine status -> MPI error class, readable class
 * text, and the one function that raises an error through a communicator's
 * error handler (hc_mpi_raise).  Argument checks live here too, so every
 * message has the same shape:
 *     "MPI_Send: invalid rank 7 for a communicator of size 4 (MPI_ERR_RANK)"
 */
#ifndef HC_MPI_ERRORS_H
#define HC_MPI_ERRORS_H

#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>

#include "hcomm.h"
#include "mpi/datatype.h"

struct hc_mpi_comm;

/* The MPI error class for an engine status (MPI_SUCCESS for HC_OK). */
int hc_mpi_class_of_status(hc_status_t status);
/* "MPI_ERR_RANK" for a class; NULL when the class is unknown. */
const char *hc_mpi_class_name(int errclass);
/* Readable text of a class; NULL when the class is unknown. */
const char *hc_mpi_class_text(int errclass);

/* User error classes and codes (errclass.c).  The largest value in use,
 * never below MPI_ERR_LASTCODE (MPI_LASTUSEDCODE). */
int hc_mpi_err_last_used(void);
/* 1 and *cls set when code is a live added class or code, else 0. */
int hc_mpi_err_user_class(int code, int *cls);
/* 1 and its string (empty when none was added) copied into buf (len
 * bytes) when code is a live added class or code, else 0. */
int hc_mpi_err_user_text(int code, char *buf, size_t len);

/* Formats the one line of an error: "fn: <fmt...> (CLASS)". */
void hc_mpi_error_line(char *line, size_t len, const char *fn, int errclass,
                       const char *fmt, va_list ap);
/* Raises errclass from call fn through comm's error handler (NULL comm:
 * MPI_COMM_WORLD's).  The message is "fn: <fmt...> (CLASS)".  Returns the
 * class when the handler returns.  MPI_SUCCESS is returned untouched. */
int hc_mpi_raise(struct hc_mpi_comm *comm, const char *fn, int errclass,
                 const char *fmt, ...)
    __attribute__((format(printf, 4, 5), cold));
/* Raises the class of an engine status, with the engine's text. */
int hc_mpi_raise_status(struct hc_mpi_comm *comm, const char *fn,
                        hc_status_t status);

/* Argument checks: MPI_SUCCESS or the raised class. */
int hc_mpi_check_count(const char *fn, struct hc_mpi_comm *comm,
                       MPI_Count count);
int hc_mpi_check_type(const char *fn, struct hc_mpi_comm *comm,
                      MPI_Datatype type, const hc_mpi_type_t **out);
/* The datatype a message of count elements of type moves as: MPI_BYTE
 * for MPI_DATATYPE_NULL with count 0, else type. */
MPI_Datatype hc_mpi_message_type(MPI_Datatype type, MPI_Count count);
/* count, datatype and buffer (NULL with data to move) together; *bytes is
 * the engine byte count. */
int hc_mpi_check_data(const char *fn, struct hc_mpi_comm *comm, const void *buf,
                      MPI_Count count, MPI_Datatype type, size_t *bytes);
/* hc_mpi_check_data that also hands out the type object. */
int hc_mpi_check_data_typed(const char *fn, struct hc_mpi_comm *comm,
                            const void *buf, MPI_Count count, MPI_Datatype type,
                            const hc_mpi_type_t **t, size_t *bytes);
/* A destination: [0,size) or MPI_PROC_NULL. */
int hc_mpi_check_dest(const char *fn, struct hc_mpi_comm *comm, int rank);
/* A source: [0,size), MPI_PROC_NULL or MPI_ANY_SOURCE. */
int hc_mpi_check_source(const char *fn, struct hc_mpi_comm *comm, int rank);
/* A root of a collective: [0,size). */
int hc_mpi_check_root(const char *fn, struct hc_mpi_comm *comm, int root);
int hc_mpi_check_send_tag(const char *fn, struct hc_mpi_comm *comm, int tag);
/* Also accepts MPI_ANY_TAG. */
int hc_mpi_check_recv_tag(const char *fn, struct hc_mpi_comm *comm, int tag);
/* MPI_ERR_ARG when ptr is NULL; what names the argument. */
int hc_mpi_check_ptr(const char *fn, struct hc_mpi_comm *comm, const void *ptr,
                     const char *what);

#endif /* HC_MPI_ERRORS_H */
