/*
 * The per-communicator segment of the shared-memory collectives: whether a
 * communicator may have one, how its ranks agree on it, and its end.
 *
 * It is made at the first collective that may use it, by the
 * communicator's rank 0, as every hcmpi segment is (util/shmseg.h: a
 * memfd by default, so a rank killed at any moment leaves nothing), and
 * agreed on with two schedule collectives: a bcast of its name, then an
 * allreduce of whether each rank mapped it.  Only then does rank 0 close
 * the memfd (or unlink the name); any failure on any rank leaves the
 * communicator on schedules for good, on every rank alike.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hcomm/coll.h"
#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/shmcoll_impl.h"
#include "util/cpu_profile.h"
#include "util/env.h"
#include "util/fence.h"
#include "util/log.h"

/* Above this the slots shrink, so that a communicator of many ranks does
 * not reserve hundreds of megabytes. */
#define SHMCOLL_SEG_BUDGET ((size_t)8 << 20)
#define SHMCOLL_MIN_CHUNK ((size_t)4 << 10)

hc_shmcoll_tuning_t hc_shmcoll_tuning = {
    .enabled = 1,
    .max = HC_SHMCOLL_MAX,
    .chunk = HC_SHMCOLL_CHUNK,
    .allgather_max = HC_SHMCOLL_ALLGATHER_MAX,
    .pair_bcast_max = HC_SHMCOLL_PAIR_BCAST_MAX,
    .pair_bcast_seg_min = HC_SHMCOLL_PAIR_BCAST_SEG_MIN,
    .bcast_bufs = HC_SHMCOLL_BCAST_BUFS,
    .stream_min = 0, /* the processor's, from hc_shmcoll_tuning_load */
    .alltoall_max = HC_SHMCOLL_ALLTOALL_MAX,
    .pair_read_min = 0, /* the processor's, from hc_shmcoll_tuning_load */
    .alltoall_read_min = HC_SHMCOLL_ALLTOALL_READ_MIN,
    .rooted_read_min = 0,      /* likewise */
    .alltoallv_read = 1,
    .pair_bcast_read_min = 0,  /* likewise */
    .bcast_read_min = HC_SHMCOLL_BCAST_READ_MIN,
    .bcast_read_max = HC_SHMCOLL_BCAST_READ_MAX,
    .pair_reduce_read_min = 0, /* likewise */
    .pair_reduce_read_max = HC_SHMCOLL_PAIR_REDUCE_READ_MAX,
    .pair_reduce_scatter_read_min = HC_SHMCOLL_PAIR_REDUCE_SCATTER_READ_MIN,
    .pair_cached_min = 0,           /* the processor's */
    .crowded_reduce_cached_min = 0, /* likewise */
    .lane_buf = HC_SHMCOLL_LANE_BUF,
    .lane_max = HC_SHMCOLL_LANE_MAX,
    .wide_lanes = HC_SHMCOLL_WIDE_LANES,
    .depth = HC_SHMCOLL_DEPTH,
    .after = HC_SHMCOLL_AFTER};

void hc_shmcoll_tuning_load(void) {
  hc_shmcoll_tuning_t *t = &hc_shmcoll_tuning;
  const hc_cpu_profile_t *cpu = hc_cpu_profile();
  t->enabled = hc_env_bool("HCMPI_COLL_SHM", 1);
  t->max = hc_env_size("HCMPI_COLL_SHM_MAX", HC_SHMCOLL_MAX);
  t->after = (unsigned)hc_env_long("HCMPI_COLL_SHM_AFTER", HC_SHMCOLL_AFTER);
  t->chunk = hc_env_size("HCMPI_COLL_SHM_CHUNK", HC_SHMCOLL_CHUNK);
  t->allgather_max =
      hc_env_size("HCMPI_COLL_SHM_ALLGATHER_MAX", HC_SHMCOLL_ALLGATHER_MAX);
  t->pair_bcast_max =
      hc_env_size("HCMPI_COLL_SHM_PAIR_BCAST_MAX", HC_SHMCOLL_PAIR_BCAST_MAX);
  t->pair_bcast_seg_min = hc_env_size("HCMPI_COLL_SHM_PAIR_BCAST_SEG_MIN",
                                      HC_SHMCOLL_PAIR_BCAST_SEG_MIN);
  t->bcast_bufs =
      (size_t)hc_env_long("HCMPI_COLL_SHM_BCAST_BUFS", HC_SHMCOLL_BCAST_BUFS);
  /* Which copy into the segment other cores read faster, cached or
   * streamed past this core's cache, depends on the processor. */
  t->stream_min = hc_env_size("HCMPI_COLL_SHM_STREAM_MIN",
                              cpu->coll_shm_stream_min);
  t->alltoall_max =
      hc_env_size("HCMPI_COLL_SHM_ALLTOALL_MAX", HC_SHMCOLL_ALLTOALL_MAX);
  /* Whether two ranks read each other's buffers or copy through the
   * segment depends on the processor's CMA against its memcpy. */
  t->pair_read_min =
      hc_env_size("HCMPI_COLL_SHM_PAIR_READ_MIN", cpu->coll_shm_pair_read_min);
  t->alltoall_read_min = hc_env_size("HCMPI_COLL_SHM_ALLTOALL_READ_MIN",
                                     HC_SHMCOLL_ALLTOALL_READ_MIN);
  t->alltoallv_read = hc_env_bool("HCMPI_COLL_SHM_ALLTOALLV_READ", 1);
  t->rooted_read_min = hc_env_size("HCMPI_COLL_SHM_ROOTED_READ_MIN",
                                   cpu->coll_shm_rooted_read_min);
  t->cpus = hc_env_size("HCMPI_COLL_SHM_CPUS", 0);
  t->pair_bcast_read_min = hc_env_size("HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN",
                                       cpu->coll_shm_pair_bcast_read_min);
  t->bcast_read_min =
      hc_env_size("HCMPI_COLL_SHM_BCAST_READ_MIN", HC_SHMCOLL_BCAST_READ_MIN);
  t->bcast_read_max =
      hc_env_size("HCMPI_COLL_SHM_BCAST_READ_MAX", HC_SHMCOLL_BCAST_READ_MAX);
  /* Whether readers that share the root's cores beat its posted chunks
   * depends on the processor (cpu_profile.c). */
  t->crowded_bcast_read_min =
      hc_env_size("HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN",
                  cpu->coll_shm_crowded_bcast_read_min);
  t->crowded_yields = hc_env_size("HCMPI_COLL_SHM_CROWDED_YIELDS",
                                  cpu->coll_shm_crowded_yields);
  t->pair_reduce_read_min = hc_env_size("HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN",
                                        cpu->coll_shm_pair_reduce_read_min);
  t->pair_reduce_read_max = hc_env_size("HCMPI_COLL_SHM_PAIR_REDUCE_READ_MAX",
                                        HC_SHMCOLL_PAIR_REDUCE_READ_MAX);
  t->pair_reduce_scatter_read_min =
      hc_env_size("HCMPI_COLL_SHM_PAIR_REDUCE_SCATTER_READ_MIN",
                  HC_SHMCOLL_PAIR_REDUCE_SCATTER_READ_MIN);
  /* Where a large two-rank collective's lines go best, through the
   * shared cache or past it, depends on the processor's caches. */
  t->pair_cached_min = hc_env_size("HCMPI_COLL_SHM_PAIR_CACHED_MIN",
                                   cpu->coll_shm_pair_cached_min);
  t->crowded_reduce_cached_min =
      hc_env_size("HCMPI_COLL_SHM_CROWDED_REDUCE_CACHED_MIN",
                  cpu->coll_shm_crowded_reduce_cached_min);
  t->lane_buf = hc_env_size("HCMPI_COLL_SHM_LANE_BUF", HC_SHMCOLL_LANE_BUF);
  t->lane_max = hc_env_size("HCMPI_COLL_SHM_LANE_MAX", HC_SHMCOLL_LANE_MAX);
  t->wide_lanes =
      (int)hc_env_long("HCMPI_COLL_SHM_WIDE_LANES", HC_SHMCOLL_WIDE_LANES);
  long depth = hc_env_long("HCMPI_COLL_SHM_DEPTH", HC_SHMCOLL_DEPTH);
  t->depth = 1;
  while (t->depth * 2 <= depth) /* down to a power of two */
    t->depth *= 2;
}

/* A communicator whose collectives never use shared memory. */
static hc_shmcoll_t shmcoll_never;

/* Every other member is reached through a transport of the node (shm):
 * the same answer on every member. */
static int shmcoll_node_only(const hcomm_comm_t *comm) {
  for (int r = 0; r < comm->size; r++) {
    int w = comm->world_ranks[r];
    const hc_peer_t *peer = &hc_engine.peers[w];
    if (w != hc_engine.world_rank &&
        (peer->ops == NULL || peer->ops->reach != HC_TRANSPORT_REACH_NODE))
      return 0;
  }
  return 1;
}

/* Every member on this node, whatever transport reaches it (every rank
 * of comm answers alike: node placement is the bootstrap's, the same for
 * all). */
static int shmcoll_one_node(const hcomm_comm_t *comm) {
  for (int r = 0; r < comm->size; r++)
    if (!hc_engine_is_local(comm->world_ranks[r]))
      return 0;
  return 1;
}

/* What rank 0 tells the others. */
typedef struct shmcoll_offer {
  char name[HC_SHMSEG_NAME_MAX];
  uint64_t size;
  int32_t ok;
} shmcoll_offer_t;

static size_t shmcoll_chunk_for(int n) {
  size_t chunk = hc_shmcoll_tuning.chunk / SHMCOLL_LINE * SHMCOLL_LINE;
  if (chunk < SHMCOLL_MIN_CHUNK)
    chunk = SHMCOLL_MIN_CHUNK;
  while (chunk > SHMCOLL_MIN_CHUNK &&
         (2 * (size_t)n + 2) * chunk > SHMCOLL_SEG_BUDGET / 2)
    chunk /= 2;
  return chunk;
}

/* Small buffers per rank on n ranks: HCMPI_COLL_SHM_DEPTH, halved while
 * all of them would take more than a quarter of the budget. */
static int shmcoll_depth_for(int n) {
  int depth = hc_shmcoll_tuning.depth;
  while (depth > 1 && ((size_t)n + 1) * (size_t)depth * SHMCOLL_SMALL >
                          SHMCOLL_SEG_BUDGET / 4)
    depth /= 2;
  return depth;
}

/* Where the buffers start: after the header, the lines and the scatters'
 * posts (shmcoll_impl.h), on a page. */
static size_t shmcoll_data_offset(const hc_shmcoll_t *sc) {
  size_t at = SHMCOLL_LINE + (size_t)sc->size * sizeof(shmcoll_line_t) +
              (size_t)sc->size * (size_t)sc->depth * SHMCOLL_POST_STRIDE *
                  sizeof(uint32_t);
  return (at + 4095) / 4096 * 4096;
}

/* One lane's bytes: its lines, then its small buffers of small bytes. */
static size_t shmcoll_lane_bytes(int n, size_t small) {
  return (size_t)n * sizeof(shmcoll_line_t) +
         ((size_t)n + 1) * SHMCOLL_LANE_DEPTH * small;
}

/* The lanes of a segment of n ranks: *small bytes per buffer, halved from
 * HCMPI_COLL_SHM_LANE_BUF until SHMCOLL_LANES lanes fit the budget (not
 * below SHMCOLL_SMALL), then as many lanes as fit. */
static int shmcoll_lanes_for(int n, size_t *small) {
  size_t want = hc_shmcoll_tuning.lane_buf / SHMCOLL_LINE * SHMCOLL_LINE;
  *small = want > SHMCOLL_SMALL ? want : SHMCOLL_SMALL;
  while (*small > SHMCOLL_SMALL &&
         SHMCOLL_LANES * shmcoll_lane_bytes(n, *small) > SHMCOLL_LANES_BUDGET)
    *small = *small / 2 > SHMCOLL_SMALL
                 ? *small / 2 / SHMCOLL_LINE * SHMCOLL_LINE
                 : SHMCOLL_SMALL;
  size_t fit = SHMCOLL_LANES_BUDGET / shmcoll_lane_bytes(n, *small);
  return fit < SHMCOLL_LANES ? (int)fit : SHMCOLL_LANES;
}

/* The CPUs a segment counts (its header's, rank 0's count):
 * HCMPI_COLL_SHM_CPUS, else those online. */
static uint32_t shmcoll_cpus(void) {
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return hc_shmcoll_tuning.cpus > 0 ? (uint32_t)hc_shmcoll_tuning.cpus
         : online > 0               ? (uint32_t)online
                                    : 1;
}

/* Bytes of the medium buffers (shmcoll_impl.h): only on a crowded node,
 * and only where they take at most a quarter of the budget (16 ranks);
 * without them a v-form's blocks above a small buffer there are
 * messages. */
static size_t shmcoll_medium_bytes(const hc_shmcoll_t *sc) {
  size_t bytes =
      (size_t)sc->size * SHMCOLL_MEDIUM_DEPTH * SHMCOLL_ROOTED_BUFFERED_MAX;
  return sc->crowded && bytes <= SHMCOLL_SEG_BUDGET / 4 ? bytes : 0;
}

/* Where the lanes start: after the large buffers and the medium ones. */
static size_t shmcoll_lanes_offset(const hc_shmcoll_t *sc) {
  return shmcoll_data_offset(sc) + sc->small_bytes +
         (2 * (size_t)sc->size + 2) * sc->chunk + shmcoll_medium_bytes(sc);
}

static size_t shmcoll_page_up(size_t n) { return (n + 4095) / 4096 * 4096; }

/* One wide lane's bytes (shmcoll_impl.h), to the next page. */
static size_t shmcoll_wide_bytes(int n, size_t chunk) {
  return shmcoll_page_up((size_t)n * sizeof(shmcoll_line_t) +
                         ((size_t)n + 1) * SHMCOLL_LANE_DEPTH * SHMCOLL_SMALL +
                         (2 * (size_t)n + 2) * chunk);
}

/* HCMPI_COLL_SHM_WIDE_LANES, or as many as fit SHMCOLL_WIDE_BUDGET. */
static int shmcoll_wide_for(int n, size_t chunk) {
  size_t fit = SHMCOLL_WIDE_BUDGET / shmcoll_wide_bytes(n, chunk);
  int want = hc_shmcoll_tuning.wide_lanes;
  return fit < (size_t)want ? (int)fit : want;
}

/* The bytes of the lanes before lane l (l <= nlanes): a deep lane (the
 * last ndeep) takes SHMCOLL_DEEP_SPAN lanes' bytes. */
static size_t shmcoll_lanes_before(const hc_shmcoll_t *sc, int l) {
  size_t lanes = (size_t)l;
  int ordinary = sc->nlanes - sc->ndeep;
  if (l > ordinary)
    lanes = (size_t)ordinary + SHMCOLL_DEEP_SPAN * (size_t)(l - ordinary);
  return lanes * shmcoll_lane_bytes(sc->size, sc->lane_small);
}

/* Where the wide lanes start: after the lanes, on a page. */
static size_t shmcoll_wide_offset(const hc_shmcoll_t *sc) {
  return shmcoll_page_up(shmcoll_lanes_offset(sc) +
                         shmcoll_lanes_before(sc, sc->nlanes));
}

/* The lines of lane l (l >= nlanes: wide lane l - nlanes), from the
 * mapping's base. */
static shmcoll_line_t *shmcoll_lane_lines(const hc_shmcoll_t *sc, int l) {
  if (l < sc->nlanes)
    return (shmcoll_line_t *)(sc->base + shmcoll_lanes_offset(sc) +
                              shmcoll_lanes_before(sc, l));
  return (shmcoll_line_t *)(sc->base + shmcoll_wide_offset(sc) +
                            (size_t)(l - sc->nlanes) *
                                shmcoll_wide_bytes(sc->size, sc->chunk));
}

static hc_status_t shmcoll_map(hc_shmcoll_t *sc, int fd, size_t size) {
  void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED)
    return HC_ERR_SYSTEM;
  sc->base = base;
  sc->seg_size = size;
  sc->hdr = base;
  sc->lines = (shmcoll_line_t *)(sc->base + SHMCOLL_LINE);
  sc->posts = (_Atomic uint32_t *)(sc->lines + sc->size);
  return HC_OK;
}

static void shmcoll_lines_format(shmcoll_line_t *lines, int n) {
  for (int r = 0; r < n; r++) {
    for (int f = 0; f < 3; f++)
      atomic_store(&lines[r].flag[f], SHMCOLL_SEQ0);
    for (int b = 0; b < 2; b++) /* no number reaches it for 2^32 */
      atomic_store(&lines[r].box[b].seq, SHMCOLL_SEQ0);
  }
}

/* The wide lanes' pages (pcoll16m: 2 of them were 3.1 of a 2-rank
 * segment's 5.5 MB, reserved by every communicator that made a segment)
 * are taken at a wide lane's first claim: MADV_POPULATE_WRITE fails
 * rather than a SIGBUS at a touch where /dev/shm is full; a kernel
 * without it (before 5.14) touches each page. */
static int shmcoll_pages_take(unsigned char *at, size_t len) {
  if (madvise(at, len, MADV_POPULATE_WRITE) == 0)
    return 1;
  if (errno != EINVAL)
    return 0;
  for (size_t off = 0; off < len; off += 4096)
    ((volatile unsigned char *)at)[off] = 0;
  return 1;
}

/* The small buffers' pages, reserved by rank 0, are mapped into this
 * process now rather than one page fault at a time, and their lines read
 * once: collective number s
 * takes buffer s % depth, so without this the first depth (256 on 2
 * ranks) small collectives each touched fresh pages, and ran at twice
 * their later time (2-rank Allgather 8 B: 0.60-0.70 us for the first
 * 250 calls, 0.27-0.33 after; bench/NOTES.md, small16c).  Where the
 * kernel lacks MADV_POPULATE_WRITE the first calls fault as before. */
static void shmcoll_small_pages_map(hc_shmcoll_t *sc) {
  (void)madvise(sc->base, (size_t)(sc->data - sc->base) + sc->small_bytes,
                MADV_POPULATE_WRITE);
  /* A read of every line (never a write: the other ranks may already
   * post into them) brings them into this rank's caches, so the first
   * turn round the ring does not fetch each from memory (2-rank Bcast 8 B,
   * root, calls 50-250: 0.07-0.13 us mapped only, 0.02 read too). */
  for (size_t off = 0; off < sc->small_bytes; off += SHMCOLL_LINE)
    (void)((volatile unsigned char *)sc->data)[off];
  /* The medium buffers' pages likewise (mapped only: n x 128 KiB): their
   * first round of 64 Gatherv or Scatterv above 512 B faulted page after
   * page (4 ranks on 2 cores, 20 calls a rep, Gatherv 1 KiB, the first
   * size after 8 B, 3.1 us against 2 KiB's 1.2; bench/NOTES.md, coll22). */
  if (sc->medium != NULL) {
    uintptr_t from = (uintptr_t)sc->medium & ~(uintptr_t)4095;
    (void)madvise((void *)from,
                  (uintptr_t)sc->medium - from + shmcoll_medium_bytes(sc),
                  MADV_POPULATE_WRITE);
  }
}

int hc_shmcoll_wide_pages(hc_shmcoll_t *sc, int w) {
  _Atomic uint32_t *pages = &sc->hdr->wide_pages;
  unsigned shift = 2 * (unsigned)w;
  for (;;) {
    uint32_t seen = atomic_load(pages);
    switch ((seen >> shift) & 3) {
    case SHMCOLL_PAGES_READY:
      return 1;
    case SHMCOLL_PAGES_FAILED:
      return 0;
    case SHMCOLL_PAGES_TAKING: /* another rank, a moment */
      sched_yield();
      continue;
    default:
      break;
    }
    if (!atomic_compare_exchange_strong(
            pages, &seen, seen | (uint32_t)SHMCOLL_PAGES_TAKING << shift))
      continue;
    shmcoll_line_t *lines = shmcoll_lane_lines(sc, sc->nlanes + w);
    int ok = shmcoll_pages_take((unsigned char *)lines,
                                shmcoll_wide_bytes(sc->size, sc->chunk));
    if (ok)
      shmcoll_lines_format(lines, sc->size);
    /* TAKING (1) to READY (2) or FAILED (3) */
    atomic_fetch_xor(pages, (uint32_t)(ok ? 3 : 2) << shift);
    if (!ok)
      hc_log(HC_LOG_WARN, "shm", "no memory for a wide lane: %s",
             strerror(errno));
    return ok;
  }
}

static void shmcoll_format(hc_shmcoll_t *sc) {
  shmcoll_hdr_t *hdr = sc->hdr;
  hdr->nranks = (uint32_t)sc->size;
  hdr->chunk = (uint32_t)sc->chunk;
  hdr->data_offset = shmcoll_data_offset(sc);
  hdr->seg_size = sc->seg_size;
  hdr->nlanes = (uint32_t)sc->nlanes;
  hdr->lane_small = (uint32_t)sc->lane_small;
  hdr->depth = (uint32_t)sc->depth;
  hdr->nwide = (uint16_t)sc->nwide;
  hdr->cpus = shmcoll_cpus();
  /* Not on a crowded node either, even for a small communicator: there
   * ranks sleep often, and each membarrier interrupts every core (as the
   * shm transport decides). */
  hdr->light = (uint32_t)sc->size <= hdr->cpus &&
               (uint32_t)hc_engine.cpu_size <= hdr->cpus &&
               hc_env_bool("HCMPI_SHM_LIGHT_FENCE", 1);
  shmcoll_lines_format(sc->lines, sc->size);
  /* Not 0, which a scatter's number reaches after 256 collectives. */
  for (int r = 0; r < sc->size; r++)
    for (uint32_t at = 0; at < (uint32_t)sc->depth; at++)
      atomic_store(shmcoll_post_word(sc, r, at), SHMCOLL_SEQ0);
  for (int l = 0; l < sc->nlanes; l++) /* the wide lanes at their claims */
    shmcoll_lines_format(shmcoll_lane_lines(sc, l), sc->size);
  atomic_thread_fence(memory_order_release);
  hdr->magic = SHMCOLL_MAGIC;
}

/* Rank 0: makes, maps and formats the segment; *fd stays open (a memfd
 * must, until the others opened it). */
static void shmcoll_create(hc_shmcoll_t *sc, shmcoll_offer_t *offer, int *fd,
                           int *memfd) {
  size_t size = shmcoll_wide_offset(sc) +
                (size_t)sc->nwide * shmcoll_wide_bytes(sc->size, sc->chunk);
  *fd = hc_shmseg_create(offer->name, sizeof offer->name, memfd);
  if (*fd < 0 ||
      hc_shmseg_reserve_part(*fd, offer->name, size, shmcoll_wide_offset(sc)) !=
          HC_OK ||
      shmcoll_map(sc, *fd, size) != HC_OK)
    return;
  shmcoll_format(sc);
  offer->size = size;
  offer->ok = 1;
  hc_log(HC_LOG_DEBUG, "shm",
         "segment %s: %zu bytes, collectives of %d ranks, %d lanes of "
         "%zu-byte buffers, %d wide lanes",
         offer->name, size, sc->size, sc->nlanes, sc->lane_small, sc->nwide);
}

/* The others: opens and checks what rank 0 offered; 1 when usable. */
static int shmcoll_attach(hc_shmcoll_t *sc, const shmcoll_offer_t *offer) {
  int fd = hc_shmseg_open(offer->name);
  struct stat st;
  int ok = fd >= 0 && fstat(fd, &st) == 0 &&
           (uint64_t)st.st_size == offer->size &&
           shmcoll_map(sc, fd, (size_t)offer->size) == HC_OK;
  if (fd >= 0)
    close(fd);
  if (!ok)
    return 0;
  atomic_thread_fence(memory_order_acquire);
  return sc->hdr->magic == SHMCOLL_MAGIC &&
         sc->hdr->nranks == (uint32_t)sc->size &&
         sc->hdr->chunk == (uint32_t)sc->chunk &&
         sc->hdr->nlanes == (uint32_t)sc->nlanes &&
         sc->hdr->lane_small == (uint32_t)sc->lane_small &&
         sc->hdr->depth == (uint32_t)sc->depth &&
         sc->hdr->nwide == (uint16_t)sc->nwide;
}

/* The agreement runs on schedule collectives (the I-forms never come
 * here): rank 0's offer to all, then whether any rank failed to map it. */
static hc_status_t shmcoll_schedule_wait(hc_status_t rc,
                                         hcomm_request_t *const *req) {
  if (rc != HC_OK)
    return rc;
  rc = hcomm_wait(*req, NULL);
  hcomm_request_free(*req);
  return rc;
}

static hc_status_t shmcoll_agree(hcomm_comm_t *comm, shmcoll_offer_t *offer) {
  hcomm_request_t *req = NULL;
  return shmcoll_schedule_wait(
      hcomm_ibcast(offer, sizeof *offer, 0, comm, &req), &req);
}

hc_status_t hc_shmcoll_vote(hcomm_comm_t *comm, int32_t *failed) {
  hcomm_request_t *req = NULL;
  return shmcoll_schedule_wait(hcomm_iallreduce(HCOMM_IN_PLACE, failed, 1,
                                                &hc_coll_max_int32, comm, &req),
                               &req);
}

/* 1 when a member of comm is known lost (or comm revoked): from then on
 * every use of its segment fails at its first failure check. */
static int shmcoll_member_lost(const hcomm_comm_t *comm) {
  hc_engine_lock();
  int lost = hc_comm_failure_locked(comm) != HC_OK;
  hc_engine_unlock();
  return lost;
}

/* HCMPI_TEST_SHMCOLL_VOTE_LATE (tests only): this rank, its vote done,
 * waits (up to 30 s) for a member of comm to be lost and takes the vote as
 * failed by it, as a rank that a member's death caught late in the vote
 * (the others completed it). */
static hc_status_t shmcoll_vote_late(const hcomm_comm_t *comm) {
  for (int ms = 0; ms < 30000; ms++) {
    hc_engine_lock();
    hc_progress_locked();
    hc_status_t why = hc_comm_failure_locked(comm);
    hc_engine_unlock();
    if (why != HC_OK)
      return why;
    struct timespec ts = {0, 1000000L};
    nanosleep(&ts, NULL);
  }
  return HC_OK;
}

/* Makes and agrees on comm's segment; sc->usable says how it went.
 * against: this rank cannot use one whatever happens (out of memory), but
 * takes part so that the others learn it.
 * A vote that failed here (a member died during it) may have completed on
 * the others, which then use the segment: a rank that mapped it and voted
 * for it keeps it where a member is lost, rather than taking the
 * schedules, so that its collectives fail as theirs do.  On the schedules
 * a Gatherv's sender went on succeeding, its eager sends taken by a root
 * that waited in the segment (world's segment, agreed at MPI_Init by a
 * rank late on a crowded node while the victim of a kill test died;
 * bench/NOTES.md, coll22).  A rank that voted against was counted by
 * every rank that completed the vote: none of them uses it. */
static hc_status_t shmcoll_setup(hcomm_comm_t *comm, hc_shmcoll_t *sc,
                                 int against) {
  shmcoll_offer_t offer;
  memset(&offer, 0, sizeof offer);
  int fd = -1, memfd = 0;
  if (sc->rank == 0)
    shmcoll_create(sc, &offer, &fd, &memfd);
  int32_t failed = 0;
  int mapped = 0;
  hc_status_t rc = shmcoll_agree(comm, &offer);
  if (rc == HC_OK) {
    mapped =
        !against && offer.ok && (sc->rank == 0 || shmcoll_attach(sc, &offer));
    failed = !mapped;
    rc = hc_shmcoll_vote(comm, &failed);
    if (rc == HC_OK && hc_env_bool("HCMPI_TEST_SHMCOLL_VOTE_LATE", 0))
      rc = shmcoll_vote_late(comm);
  }
  if (fd >= 0)
    close(fd);
  if (sc->rank == 0 && offer.ok && !memfd)
    shm_unlink(offer.name);
  sc->usable = rc == HC_OK ? !failed : mapped && shmcoll_member_lost(comm);
  if (!sc->usable && sc->base != NULL) {
    munmap(sc->base, sc->seg_size);
    sc->base = NULL;
  }
  if (rc == HC_OK && failed)
    hc_log(HC_LOG_INFO, "shm",
           "a communicator's collective segment failed; using schedules");
  return rc;
}

/* A deep lane's buffers per rank: its cells in its lanes' bytes
 * (shmcoll_impl.h), a power of two because numbers wrap. */
static int shmcoll_deep_depth(const hc_shmcoll_t *sc) {
  size_t cells = SHMCOLL_DEEP_SPAN * SHMCOLL_LANE_DEPTH * sc->lane_small /
                 SHMCOLL_DEEP_CELL;
  int depth = 1;
  while (depth < SHMCOLL_DEEP_MAX && (size_t)depth * 2 <= cells)
    depth *= 2;
  return depth;
}

/* Points each lane and wide lane of sc (allocated behind it, in that
 * order) into the mapping. */
static void shmcoll_lanes_init(hc_shmcoll_t *sc) {
  sc->lanes = sc->nlanes > 0 ? sc + 1 : NULL;
  sc->wide = sc->nwide > 0 ? sc + 1 + sc->nlanes : NULL;
  for (int l = 0; l < sc->nlanes + sc->nwide; l++) {
    int wide = l >= sc->nlanes;
    int deep = !wide && l >= sc->nlanes - sc->ndeep;
    size_t small = wide   ? SHMCOLL_SMALL
                   : deep ? SHMCOLL_DEEP_CELL
                          : sc->lane_small;
    shmcoll_line_t *lines = shmcoll_lane_lines(sc, l);
    hc_shmcoll_t *lane = sc + 1 + l;
    *lane = (hc_shmcoll_t){.usable = 1,
                           .rank = sc->rank,
                           .size = sc->size,
                           .world_ranks = sc->world_ranks,
                           .wake_by_transport = -1,
                           .crowded = sc->crowded,
                           .pair_far = sc->pair_far,
                           .light_sleep = sc->light_sleep,
                           .light_publish = sc->light_publish,
                           .seq = SHMCOLL_SEQ0,
                           .turn = SHMCOLL_SEQ0,
                           .done_seen = SHMCOLL_SEQ0,
                           .chunk = sc->chunk,
                           .depth = deep ? shmcoll_deep_depth(sc)
                                         : SHMCOLL_LANE_DEPTH,
                           .small = small,
                           .hdr = sc->hdr,
                           .lines = lines};
    lane->small_bytes =
        ((size_t)sc->size + 1) * (size_t)lane->depth * small;
    lane->data = (unsigned char *)(lines + sc->size);
  }
}

/* Segments freed after fewer than HCMPI_COLL_SHM_AFTER collectives in a
 * row, up to SHMCOLL_CHURN_CAP (one that served more sets it back to 0):
 * a program that makes a communicator for a call or two and frees it.  A
 * segment takes milliseconds to make (a memfd of megabytes, its pages, a
 * vote): a dup, one Barrier and a free, 200 times on 2 ranks, took 1.6-2.7
 * ms a time against MPICH's 3 us. */
static _Atomic unsigned shmcoll_churn;
#define SHMCOLL_CHURN_MIN 2
#define SHMCOLL_CHURN_CAP 64

/* Whether comm, about to make its segment, runs this collective by the
 * schedules instead: where a member has seen communicators come and go
 * (shmcoll_churn), each of comm's first HCMPI_COLL_SHM_AFTER collectives
 * asks the others first.  The ranks' histories differ (not every rank
 * was in every communicator), so they vote; every rank then counts the
 * same collectives.  Where no member has, the one vote costs a small
 * collective beside the segment's making.  *rc: the vote's failure. */
static int shmcoll_vote_defer(hcomm_comm_t *comm, hc_status_t *rc) {
  if (comm->shmcoll_passed >= hc_shmcoll_tuning.after)
    return 0;
  int32_t defer = atomic_load(&shmcoll_churn) >= SHMCOLL_CHURN_MIN;
  *rc = hc_shmcoll_vote(comm, &defer);
  if (*rc != HC_OK)
    return 1;
  comm->shmcoll_passed += defer != 0;
  return defer;
}

/* At the free of a segment that served uses collectives, its
 * communicator's whole life counted (the collectives it deferred too). */
static void shmcoll_churn_count(unsigned uses) {
  unsigned was = atomic_load(&shmcoll_churn);
  unsigned now = uses >= hc_shmcoll_tuning.after ? 0
                 : was < SHMCOLL_CHURN_CAP       ? was + 1
                                                 : was;
  atomic_store(&shmcoll_churn, now);
}

hc_shmcoll_t *hc_shmcoll_get(hcomm_comm_t *comm, size_t bytes,
                             hc_status_t *rc) {
  *rc = HC_OK;
  if (bytes > hc_shmcoll_tuning.max)
    return NULL;
  hc_shmcoll_t *sc = comm->shmcoll;
  if (sc != NULL)
    return sc->usable ? sc : NULL;
  if (!hc_shmcoll_tuning.enabled || comm->shmcoll_deferred ||
      comm->local != NULL || comm->size < 2 || hc_engine_check() != HC_OK)
    return NULL;
  /* What the setups' own collectives on comm see: the schedules. */
  comm->shmcoll = &shmcoll_never;
  if (!shmcoll_node_only(comm)) {
    /* All on this node but reached by a network transport (tcp only):
     * there is no segment to share and no hierarchy to build. */
    if (shmcoll_one_node(comm))
      return NULL;
    sc = hc_shmcoll_hier_setup(comm, rc);
    if (sc != NULL)
      comm->shmcoll = sc;
    return NULL;
  }
  if (shmcoll_vote_defer(comm, rc)) {
    if (*rc == HC_OK)
      comm->shmcoll = NULL; /* asked again at its next collective */
    return NULL;
  }
  size_t lane_small;
  int nlanes = shmcoll_lanes_for(comm->size, &lane_small);
  int ndeep = nlanes < SHMCOLL_DEEP_LANES ? nlanes : SHMCOLL_DEEP_LANES;
  nlanes += ndeep;
  size_t chunk = shmcoll_chunk_for(comm->size);
  int nwide = shmcoll_wide_for(comm->size, chunk);
  sc = calloc(1, sizeof *sc + (size_t)(nlanes + nwide) * sizeof *sc);
  hc_shmcoll_t local = {0};
  hc_shmcoll_t *use = sc != NULL ? sc : &local;
  use->rank = comm->rank;
  use->size = comm->size;
  use->world_ranks = comm->world_ranks;
  use->wake_by_transport = -1;
  use->seq = SHMCOLL_SEQ0;
  use->turn = SHMCOLL_SEQ0;
  use->done_seen = SHMCOLL_SEQ0;
  use->chunk = chunk;
  use->depth = shmcoll_depth_for(comm->size);
  use->small = SHMCOLL_SMALL;
  use->small_bytes =
      ((size_t)comm->size + 1) * (size_t)use->depth * (size_t)SHMCOLL_SMALL;
  use->nlanes = nlanes;
  use->ndeep = ndeep;
  use->lane_small = lane_small;
  use->nwide = nwide;
  /* Rank 0's count, which its layout follows (the others' until they
   * read the header's, below). */
  use->crowded = (uint32_t)comm->size > shmcoll_cpus();
  /* A rank short of memory still takes part, and votes against. */
  *rc = shmcoll_setup(comm, use, sc == NULL);
  if (sc == NULL || !sc->usable) {
    free(sc);
    comm->shmcoll = &shmcoll_never;
    return NULL;
  }
  sc->data = sc->base + sc->hdr->data_offset;
  sc->crowded = (uint32_t)sc->size > sc->hdr->cpus;
  sc->pair_far = sc->size == 2 &&
                 hc_engine_peer_placement(sc->world_ranks[1 - sc->rank]) ==
                     HC_TRANSPORT_PLACEMENT_FAR;
  sc->medium = shmcoll_medium_bytes(sc) > 0
                   ? sc->data + sc->small_bytes +
                         (2 * (size_t)sc->size + 2) * sc->chunk
                   : NULL;
  shmcoll_small_pages_map(sc);
  sc->light_sleep = sc->hdr->light != 0;
  sc->light_publish = sc->light_sleep &&
                      hc_env_bool("HCMPI_SHM_LIGHT_FENCE", 1) &&
                      hc_fence_light_register();
  hc_log(HC_LOG_DEBUG, "shm",
         "collectives of %d ranks, light fences: sleepers %s, flags %s",
         sc->size, sc->light_sleep ? "membarrier" : "fence only",
         sc->light_publish ? "light" : "fenced");
  if (sc->pair_far)
    hc_log(HC_LOG_DEBUG, "shm",
           "collectives of 2 ranks far apart: boxed Allreduces ask for "
           "their next box back");
  shmcoll_lanes_init(sc);
  comm->shmcoll = sc;
  return sc;
}

void hc_shmcoll_wanted_now(hcomm_comm_t *comm) {
  comm->shmcoll_passed = hc_shmcoll_tuning.after;
}

hc_status_t hcomm_coll_shm_setup(hcomm_comm_t *comm) {
  if (comm == NULL || comm->shmcoll != NULL || !shmcoll_node_only(comm))
    return HC_OK;
  hc_shmcoll_wanted_now(comm); /* made for a long life: no vote */
  hc_status_t rc;
  hc_shmcoll_get(comm, 0, &rc);
  return rc;
}

void hcomm_coll_shm_defer(hcomm_comm_t *comm, int deferred) {
  if (comm != NULL)
    comm->shmcoll_deferred = deferred != 0;
}

hc_shmcoll_t *hc_shmcoll_made(hcomm_comm_t *comm, size_t bytes) {
  hc_shmcoll_t *sc = comm->shmcoll;
  if (bytes > hc_shmcoll_tuning.max || sc == NULL || !sc->usable)
    return NULL;
  return sc;
}

void hc_shmcoll_free(hcomm_comm_t *comm) {
  hc_shmcoll_t *sc = comm->shmcoll;
  comm->shmcoll = NULL;
  if (sc == NULL || sc == &shmcoll_never)
    return;
  hc_shmcoll_hier_free(sc->hier);
  /* Persistent requests that outlive the communicator release nothing. */
  unsigned uses = comm->shmcoll_passed + (sc->seq - SHMCOLL_SEQ0);
  for (int l = 0; sc->usable && l < sc->nlanes + sc->nwide; l++) {
    uses += sc[1 + l].seq - SHMCOLL_SEQ0; /* the persistent starts */
    for (hc_shmcoll_claim_t *c = sc[1 + l].held; c != NULL; c = c->next)
      c->lane = NULL;
  }
  if (sc->base != NULL) {
    shmcoll_churn_count(uses);
    munmap(sc->base, sc->seg_size);
  }
  free(sc);
}
