/*
 * Internal helpers of the engine's collectives (src/hcomm/coll.c), exposed
 * so that the partitioning and the algorithm choices can be unit-tested
 * without processes.  The collectives themselves are declared in
 * include/hcomm.h.
 */
#ifndef HC_COLL_H
#define HC_COLL_H

#include <stddef.h>

#include "hcomm.h"

/* The elementwise maximum of int32_t: the engine's "did any member fail"
 * votes (each contributes 0 or 1) with hcomm_allreduce. */
extern const hcomm_reduce_op_t hc_coll_max_int32;

/* The defaults of the thresholds below (HCMPI_COLL_* override them). */
#define HC_COLL_BCAST_LARGE ((size_t)512 * 1024)
#define HC_COLL_ALLREDUCE_LARGE ((size_t)64 * 1024)
#define HC_COLL_ALLGATHER_LARGE ((size_t)256 * 1024)
#define HC_COLL_ALLTOALL_LINEAR ((size_t)32 * 1024)
#define HC_COLL_ALLTOALL_BRUCK ((size_t)256)
#define HC_COLL_GATHER_LINEAR_MAX 4
#define HC_COLL_GATHER_RECV_FIRST_MAX ((size_t)512 * 1024)

/* Where the algorithm choices switch; the same on every rank (a mismatch
 * would pair different schedules), so only the environment sets them. */
typedef struct hc_coll_tuning {
  /* Messages above this many bytes are broadcast by scatter + ring
   * allgather (van de Geijn) instead of a binomial tree. */
  size_t bcast_large;
  /* Allreduces of more bytes than this use a reduce-scatter + allgather
   * (commutative ops: Rabenseifner on power-of-two sizes, else the ring)
   * or reduce + bcast (non-commutative ones). */
  size_t allreduce_large;
  /* Allgathers whose total result exceeds this use the ring. */
  size_t allgather_large;
  /* Alltoalls whose largest block is at most this post every message at
   * once; larger ones exchange pairwise, one partner per round. */
  size_t alltoall_linear;
  /* Alltoalls of equal blocks of at most this many bytes on more than 4
   * ranks use Bruck's algorithm (log p rounds). */
  size_t alltoall_bruck;
  /* Gathers and scatters on communicators up to this size post every
   * message at the root; larger ones use a binomial tree. */
  int gather_linear_max;
  /* A linear gather's root whose largest incoming block is at most this
   * posts its receives before it copies its own block; larger ones copy
   * first (0: always copy first). */
  size_t gather_recv_first_max;
} hc_coll_tuning_t;

extern hc_coll_tuning_t hc_coll_tuning;
/* Reads HCMPI_COLL_* (engine init). */
void hc_coll_tuning_load(void);

enum hc_coll_alg {
  HC_COLL_ALG_TRIVIAL = 0, /* one rank or nothing to move: local copy only */
  HC_COLL_ALG_BINOMIAL,
  HC_COLL_ALG_SCATTER_RING,
  HC_COLL_ALG_RECURSIVE_DOUBLING,
  HC_COLL_ALG_RING,
  HC_COLL_ALG_REDUCE_BCAST,
  HC_COLL_ALG_LINEAR,
  HC_COLL_ALG_RABENSEIFNER, /* reduce-scatter by halving + allgather */
  HC_COLL_ALG_PAIRWISE,
  HC_COLL_ALG_BRUCK
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
/* Trees rooted at base: virtual rank v is rank (v + base) % size. */
int hc_coll_real(int v, int base, int size);
int hc_coll_virtual(int rank, int base, int size);
/* The binomial parent of virtual rank v is v minus its lowest set bit;
 * at the root that bit is the smallest power of two >= size. */
int hc_coll_lowbit(int v, int size);

/* The algorithm each collective picks for these arguments. */
enum hc_coll_alg hc_coll_bcast_alg(size_t bytes, int size);
enum hc_coll_alg hc_coll_allreduce_alg(size_t count, size_t elem_size,
                                       int commutative, int size);
enum hc_coll_alg hc_coll_gather_alg(size_t bytes, int size);
enum hc_coll_alg hc_coll_allgather_alg(size_t bytes, int size);
/* most: the largest block in bytes; equal: every block is most bytes (the
 * regular form; Bruck only then). */
enum hc_coll_alg hc_coll_alltoall_alg(size_t most, int size, int equal);

#endif /* HC_COLL_H */
