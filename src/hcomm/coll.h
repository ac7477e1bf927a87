/*
 * Internal helpers of the engine's collectives (src/hcomm/coll.c), exposed
 * so that the partitioning and the algorithm choices can be unit-tested
 * without processes.  The collectives themselves are declared in
 * include/hcomm.h.
 */
#ifndef HC_COLL_H
#define HC_COLL_H

#include <stddef.h>

/* Messages above this many bytes are broadcast by scatter + ring allgather
 * (van de Geijn) instead of a binomial tree. */
#define HC_COLL_BCAST_LARGE ((size_t)512 * 1024)
/* Allreduces of more bytes than this use a ring reduce-scatter + allgather
 * (commutative ops) or reduce + bcast (non-commutative ones). */
#define HC_COLL_ALLREDUCE_LARGE ((size_t)64 * 1024)
/* Allgathers whose total result exceeds this use the ring. */
#define HC_COLL_ALLGATHER_LARGE ((size_t)256 * 1024)
/* Gathers on communicators up to this size post every receive at the root. */
#define HC_COLL_GATHER_LINEAR_MAX 4

enum hc_coll_alg {
  HC_COLL_ALG_TRIVIAL = 0, /* one rank or nothing to move: local copy only */
  HC_COLL_ALG_BINOMIAL,
  HC_COLL_ALG_SCATTER_RING,
  HC_COLL_ALG_RECURSIVE_DOUBLING,
  HC_COLL_ALG_RING,
  HC_COLL_ALG_REDUCE_BCAST,
  HC_COLL_ALG_LINEAR
};

/* Block i of n equal-as-possible blocks of total units: the first total % n
 * blocks get one more unit.  Sets *off and *len in units. */
void hc_coll_block(size_t total, int n, int i, size_t *off, size_t *len);
/* Byte range [lo, hi) of a contiguous run of blocks of blk bytes each,
 * clamped to total bytes: blocks first .. first+nblocks-1. */
void hc_coll_span(size_t total, size_t blk, int first, int nblocks, size_t *lo,
                  size_t *hi);
/* Largest power of two <= n (n >= 1). */
int hc_coll_pof2_floor(int n);

/* The algorithm each collective picks for these arguments. */
enum hc_coll_alg hc_coll_bcast_alg(size_t bytes, int size);
enum hc_coll_alg hc_coll_allreduce_alg(size_t count, size_t elem_size,
                                       int commutative, int size);
enum hc_coll_alg hc_coll_gather_alg(size_t bytes, int size);
enum hc_coll_alg hc_coll_allgather_alg(size_t bytes, int size);

#endif /* HC_COLL_H */
