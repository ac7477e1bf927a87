/*
 * Reduction operations of the MPI face: every predefined MPI_Op on every
 * predefined datatype the standard allows it on, and user operations
 * (MPI_Op_create).  The face's collectives turn an (op, datatype) pair into
 * the engine's hcomm_reduce_op_t with hc_mpi_op_resolve and hand that to
 * the engine's reductions.
 */
#ifndef HC_MPI_OP_H
#define HC_MPI_OP_H

#include <mpi.h>

#include "hcomm.h"
#include "mpi/weak_alias.h"

/*
 * _Float128 (MPI_REAL16, MPI_COMPLEX32) where the compiler has the type:
 * clang 14 sets __SIZEOF_FLOAT128__ for __float128 but rejects the
 * _Float128 spelling; __FLT128_MAX__ comes only with the spelling.
 */
#if defined(__FLT128_MAX__)
#define HC_HAVE_FLOAT128 1
#endif

/*
 * Fills *out with the kernel that combines count elements under op
 * (inout[i] = in[i] op inout[i]), its element size and commutativity.
 * *packed 0: the kernel combines elements of type itself, in the user's
 * buffers (a predefined type, or a user op on any type).  *packed > 0: a
 * predefined op on a derived type whose basic elements are all one
 * predefined type; the kernel combines the packed stream of the type
 * (hc_mpi_type_pack), *packed kernel elements per element of type.
 * Returns MPI_SUCCESS; MPI_ERR_OP for an invalid or freed op, or a
 * predefined op the standard does not define on type (MPI_SUM on
 * MPI_FLOAT_INT, MPI_BAND on MPI_DOUBLE, a derived type mixing basic
 * types); MPI_ERR_TYPE for an invalid datatype.  Raises nothing: the
 * caller reports the class through its communicator.  *out and *packed are
 * written only on success.  A user op's kernel stays valid until
 * MPI_Op_free, or until hc_mpi_op_release balances hc_mpi_op_retain.
 */
int hc_mpi_op_resolve(MPI_Op op, MPI_Datatype type, hcomm_reduce_op_t *out,
                      size_t *packed);

/* Keeps the user op behind a kernel hc_mpi_op_resolve gave alive until the
 * matching release, across MPI_Op_free (a reduction pending meanwhile);
 * no-ops for predefined kernels.  Returns 1 when it took a reference. */
int hc_mpi_op_retain(const hcomm_reduce_op_t *op);
void hc_mpi_op_release(const hcomm_reduce_op_t *op);

/* The name of op for error messages: "MPI_OP_NULL", "MPI_SUM", ... for
 * predefined handles, else its value in hex written into buf. */
#define HC_MPI_OP_NAME_MAX 16
const char *hc_mpi_op_name(MPI_Op op, char buf[HC_MPI_OP_NAME_MAX]);

/* One-sided accumulates.  *base: the one predefined type of every basic
 * element of type (type itself when predefined); MPI_ERR_TYPE when they
 * differ, type has no data or is invalid. */
int hc_mpi_op_basic_type(MPI_Datatype type, MPI_Datatype *base);
/* The kernel of predefined op on the packed stream of predefined type
 * base (pair types packed without padding); MPI_ERR_OP for a user op or
 * one the standard does not define on base. */
int hc_mpi_op_resolve_stream(MPI_Op op, MPI_Datatype base,
                             hcomm_reduce_op_t *out);

/* 1 when MPI_Compare_and_swap may take type: a predefined C or Fortran
 * integer, logical, multi-language (MPI_AINT ...) or byte type; else 0
 * (floating point, complex, pairs and every derived type). */
int hc_mpi_op_cas_type(MPI_Datatype type);

/* 1 for a predefined op handle (MPI_MAX .. MPI_NO_OP), else 0. */
int hc_mpi_op_is_predefined(MPI_Op op);

#endif /* HC_MPI_OP_H */
