/*
 * HCMPI_CHECK_COLL=1: rooted collectives (Bcast, Reduce, Gather(v),
 * Scatter(v) and their I-forms) first agree their arguments across the
 * communicator, so a mismatched root, which otherwise hangs or mixes up
 * data, is reported on every rank: MPI_ERR_ROOT when the roots differ,
 * MPI_ERR_TRUNCATE when the type signature sizes of Bcast or Reduce do.
 * The agreement is one small blocking allreduce, so the I-forms
 * synchronize while it is on; off (the default) it costs one load and a
 * branch per call.
 */
#include "mpi/coll_impl.h"

#include <stdatomic.h>
#include <stdint.h>

#include "util/env.h"

/* 0 not read yet, 1 off, 2 on. */
static atomic_int coll_check_state;

int hc_mpi_coll_check_on(void) {
  int s = atomic_load_explicit(&coll_check_state, memory_order_relaxed);
  if (s == 0) {
    s = hc_env_bool("HCMPI_CHECK_COLL", 0) ? 2 : 1;
    atomic_store_explicit(&coll_check_state, s, memory_order_relaxed);
  }
  return s == 2;
}

static void coll_check_max(const void *in, void *inout, size_t count,
                           void *ctx) {
  const int64_t *a = in;
  int64_t *b = inout;
  (void)ctx;
  for (size_t i = 0; i < count; i++)
    b[i] = a[i] > b[i] ? a[i] : b[i];
}

/* The signature size of count elements of type, or -1 (unknown: the
 * argument checks after this one report a bad count or type). */
static int64_t coll_check_sig(MPI_Count count, MPI_Datatype type) {
  const hc_mpi_type_t *t =
      type != MPI_DATATYPE_NULL ? hc_mpi_type_get(type) : NULL;
  if (t == NULL || count < 0)
    return -1;
  return (int64_t)count * (int64_t)t->size;
}

/* Slots of the agreement: the maxima of root, -root, size, -size; a rank
 * whose size is unknown leaves the size slots at INT64_MIN. */
enum { CK_ROOT, CK_NROOT, CK_SIG, CK_NSIG, CK_N };

static int coll_check_agree(const char *fn, hc_mpi_comm_t *c, int root,
                            int64_t sig) {
  static const hcomm_reduce_op_t max = {coll_check_max, NULL, sizeof(int64_t),
                                        1};
  int64_t mine[CK_N] = {root, -(int64_t)root, INT64_MIN, INT64_MIN}, all[CK_N];
  if (sig >= 0) {
    mine[CK_SIG] = sig;
    mine[CK_NSIG] = -sig;
  }
  hc_status_t st = hcomm_allreduce(mine, all, CK_N, &max, c->engine);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  if (all[CK_ROOT] != -all[CK_NROOT])
    return hc_mpi_raise(c, fn, MPI_ERR_ROOT,
                        "root %d here, roots %lld to %lld across the "
                        "communicator (HCMPI_CHECK_COLL)",
                        root, (long long)-all[CK_NROOT],
                        (long long)all[CK_ROOT]);
  if (all[CK_SIG] != INT64_MIN && all[CK_SIG] != -all[CK_NSIG])
    return hc_mpi_raise(c, fn, MPI_ERR_TRUNCATE,
                        "%lld bytes of data here, %lld to %lld across the "
                        "communicator (HCMPI_CHECK_COLL)",
                        (long long)sig, (long long)-all[CK_NSIG],
                        (long long)all[CK_SIG]);
  return MPI_SUCCESS;
}

int hc_mpi_coll_enter_rooted(const char *fn, MPI_Comm comm, int root, MPI_Count count,
                             MPI_Datatype type, MPI_Request *request,
                             hc_mpi_comm_t **c) {
  int rc = hc_mpi_coll_enter(fn, comm, request != NULL, request, c);
  /* Before the root check, so a rank with a bad root agrees too and no
   * rank is left waiting in the agreement. */
  if (rc == MPI_SUCCESS && hc_mpi_coll_check_on() && !hc_mpi_coll_inter(*c))
    rc = coll_check_agree(fn, *c, root, coll_check_sig(count, type));
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_root(fn, *c, root);
  return rc;
}
