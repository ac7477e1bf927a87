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
/* The MPI error code for an engine status: its class, but for
 * HC_ERR_PARTIAL_ELEMENT a code of MPI_ERR_TYPE whose text tells the
 * bytes and element size hc_mpi_partial_element recorded on this thread. */
int hc_mpi_code_of_status(hc_status_t status);
/* hc_mpi_check_whole's rare case: a receive of st->bytes ended inside an
 * element of element_mask + 1 bytes.  Returns error when the receive
 * failed already (truncation or a failure says more); else marks st
 * HC_ERR_PARTIAL_ELEMENT, records its bytes and element size for the
 * error's text (hc_mpi_code_of_status) and returns that. */
hc_status_t hc_mpi_partial_element(hcomm_status_t *st, hc_status_t error,
                                   unsigned element_mask)
    __attribute__((cold, noinline));
/* The status a landed receive ends with: error (its engine status), or
 * HC_ERR_PARTIAL_ELEMENT (also stored in st) when the message, st->bytes,
 * ends inside a basic element of the receive type, whose element_mask
 * is given.  The engine moves bytes and cannot see that type mismatch.
 * A test and a branch per receive; a type whose elements are bytes has
 * element_mask 0, which no count fails. */
static inline hc_status_t hc_mpi_check_whole(hcomm_status_t *st,
                                             hc_status_t error,
                                             unsigned element_mask) {
  if (__builtin_expect((st->bytes & element_mask) != 0, 0))
    return hc_mpi_partial_element(st, error, element_mask);
  return error;
}

/* Error codes with a text of their own (errdetail.c).  A new code of
 * errclass whose MPI_Error_string is "CLASS: <fmt...>"; the bare class
 * when it cannot make one. */
int hc_mpi_err_detail_new(int errclass, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), cold));
/* The class of a detail code, -1 for any other value. */
int hc_mpi_err_detail_class(int code);
/* 1 and "CLASS: text" (the class's own text once the code's is gone)
 * copied into buf (len bytes) for a detail code, else 0. */
int hc_mpi_err_detail_text(int code, char *buf, size_t len);
/* The class of a detail code, else code itself. */
int hc_mpi_class_of_code(int code);

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
