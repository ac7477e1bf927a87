/*
 * The defaults of the shared-memory thresholds whose best value depends on
 * the processor: which copy outruns which (a CMA read against two
 * overlapped copies through cells, cached against non-temporal stores)
 * turns on the caches and how lines move between cores, which differ by
 * vendor.  One profile per processor family measured (bench/NOTES.md);
 * every other machine gets the generic profile.  An explicit environment
 * setting of a threshold always wins over its profile's default: the
 * readers call hc_env_size(name, profile value).
 */
#ifndef HC_CPU_PROFILE_H
#define HC_CPU_PROFILE_H

#include <stddef.h>

typedef struct hc_cpu_profile {
  const char *name;   /* "amd", "intel", "generic": what hcmpi_info prints */
  size_t shm_cma_min; /* HCMPI_SHM_CMA_MIN */
  size_t shm_cma_help_min;    /* HCMPI_SHM_CMA_HELP_MIN */
  size_t coll_shm_stream_min; /* HCMPI_COLL_SHM_STREAM_MIN */
  /* The largest eager message between ranks of a node while
   * HCMPI_EAGER_LIMIT is unset (the shm transport's eager_max). */
  size_t shm_eager_max;
  /* HCMPI_SHM_EAGER_BUSY_MAX: the largest eager message between ranks of
   * a node while the pair is busy (the shm transport's eager_max_now). */
  size_t shm_eager_busy_max;
  /* HCMPI_SHM_LONE_READ_MIN: a lone rendezvous of at least this many
   * bytes is read with CMA even below shm_cma_min (the shm transport's
   * get_min and eager_max_now); as large as shm_cma_min turns it off. */
  size_t shm_lone_read_min;
  /* HCMPI_SHM_FAR_READ_MIN: where the two ranks of a node sit on cores
   * that a cache line crosses slowly between (the shm transport's
   * placement probe at connect), every rendezvous of at least this many
   * bytes is read with CMA, lone or in a stream; as large as shm_cma_min
   * turns the probe off. */
  size_t shm_far_read_min;
  /* HCMPI_SHM_FAR_CELL_STREAM_MIN: where the placement probe found the two
   * ranks far apart (as above), a sender fills its pool's cells of at
   * least this many bytes with non-temporal stores; 0 never. */
  size_t shm_far_cell_stream_min;
  /* HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN: on a node with more ranks than
   * CPUs, Bcasts of more than two ranks read the root's buffer from this
   * many bytes on (and from HCMPI_COLL_SHM_BCAST_READ_MIN); 0 never. */
  size_t coll_shm_crowded_bcast_read_min;
  /* HCMPI_COLL_SHM_CROWDED_YIELDS: on a node with more ranks than CPUs, the
   * polls (each a yield) after which a blocking collective's wait on the
   * segment sleeps where no rank it waits for last ran on its CPU; 0: the
   * engine's (HCMPI_SPIN). */
  size_t coll_shm_crowded_yields;
  /* Where two ranks of a node read each other's buffers in a collective
   * (process_vm_readv/writev) instead of copying through the segment: the
   * smallest such read; 0 never.  HCMPI_COLL_SHM_PAIR_READ_MIN (Allgather
   * and Alltoall(v) blocks), HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN (Bcasts),
   * HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN (Reduces and Allreduces),
   * HCMPI_COLL_SHM_ROOTED_READ_MIN (Gather blocks, any number of ranks). */
  size_t coll_shm_pair_read_min;
  size_t coll_shm_pair_bcast_read_min;
  size_t coll_shm_pair_reduce_read_min;
  size_t coll_shm_rooted_read_min;
  /* HCMPI_COLL_SHM_PAIR_CACHED_MIN: on two ranks, collectives whose
   * largest block (Allgather, Alltoall(v)) or whose vector (reductions)
   * has at least this many bytes copy through the segment's cache: their
   * blocks are not read from the other rank's buffer, and their copies
   * into the segment are not streamed past the cache; 0 never. */
  size_t coll_shm_pair_cached_min;
  /* HCMPI_COLL_SHM_CROWDED_REDUCE_CACHED_MIN: on a node with more ranks
   * than CPUs, Reduces and Allreduces of more than two ranks whose vector
   * has at least this many bytes copy their inputs into the segment
   * through the cache; 0 never. */
  size_t coll_shm_crowded_reduce_cached_min;
  /* 1: shm sends ask for the lines their next packet goes to for writing
   * (hc_prefetch_write): a push into a pair's ring the next cell's,
   * an empty poll after a sparse pooled send the pool's next cell's,
   * instead of demoting the cell sent.  No variable sets it. */
  int shm_prefetch_next;
} hc_cpu_profile_t;

/* A threshold no message reaches: the profile turns that rule off. */
#define HC_CPU_PROFILE_NEVER ((size_t)64 << 30)

/* The profile of the processor this process runs on, identified by cpuid
 * (x86: the vendor string, and on AMD the family and AVX-512);
 * HCMPI_CPU_PROFILE=amd|amd-zen4|amd26|intel|generic, meant for tests,
 * names one instead.  Never NULL; may be called from any thread. */
const hc_cpu_profile_t *hc_cpu_profile(void);

/* The x86 family number (base plus extended, as cpuid leaf 1 gives them);
 * 0 where unknown and on other architectures. */
unsigned hc_cpu_family(void);

/* The default hc_cpu_profile() gives the variable name (one of the
 * thresholds above, whose env table entry reads "auto: ..."): 0 and
 * *bytes, or -1, *bytes untouched, for any other name. */
int hc_cpu_profile_default(const char *name, size_t *bytes);

#endif /* HC_CPU_PROFILE_H */
