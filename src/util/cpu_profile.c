/*
 * src/util/cpu_profile: the processor's profile of shared-memory threshold
 * defaults.  Each value cites the measurement that chose it.
 */
#include "util/cpu_profile.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "util/env.h"

/* Measured on the AMD machine of the earlier sessions (bench/NOTES.md):
 * rendezvous below 4 MiB stream through the pair's cells, whose two
 * overlapped copies outran one CMA read there (bw17, bw17b); CMA reads of
 * 1 MiB or more are shared with the peer (bw17b); a collective's copies
 * into the segment from 16 KiB on bypass the cache, which kept large
 * Bcasts and reductions steady beside other jobs (coll16c, coll16e).  On
 * an AMD EPYC (family 25, 2 vCPUs) sends stalled on their stores into
 * lines the receiver's core last read: asking for the next ring cell's
 * line after each push raised the 8-byte message rate (window 64) ~20 %
 * and 8-byte window bandwidth ~18 %, and asking for the pool's next cell
 * while waiting made 2-8 KiB ping-pongs 10-15 % quicker (amdp2p23).  Not
 * measured on Intel, whose fast box and CLDEMOTE were tuned without it:
 * off there, and on machines never measured. */
static const hc_cpu_profile_t cpu_profile_amd = {
    .name = "amd",
    .shm_cma_min = (size_t)4 << 20,
    .shm_cma_help_min = (size_t)1 << 20,
    .coll_shm_stream_min = (size_t)16 << 10,
    .shm_eager_max = (size_t)16 << 10,
    .shm_lone_read_min = (size_t)4 << 20,
    /* 2 vCPUs the host places near (a line crosses one way in ~0.05 us)
     * or far (~0.2 us), run by run: near, 64 KiB-1 MiB stream through the
     * cells at 19-28 GB/s against 3-9 for CMA reads; far, the cells fall
     * to ~6 at every size, and reads win only from 1 MiB (shared with the
     * peer: 7-11 GB/s), below it they lose (16 KiB window 1.4-2.2 against
     * 3.7-5.4, 64 KiB 3-7 against 4-6, 16 KiB ping-pong 13.8 against 6.7
     * us; bench/NOTES.md, far25). */
    .shm_far_read_min = (size_t)1 << 20,
    /* Far, cells filled past the cache (window 64, quiet runs): 32-512
     * KiB 10.6-13.1 GB/s against the plain cells' 5.5-6.3, one-way 16 /
     * 64 KiB 4.3-4.7 / 7.5-10.0 us against 5.7 / 13.3; under load the
     * lifted runq rule's far medians 16-64 KiB latency 13.0 / 26.6 us
     * against 17.0 / 38.7; near never takes it (bench/NOTES.md, nt29);
     * from 4 KiB, eager 4-16 KiB gained too (16 KiB 4.1 against 9.4 us
     * filled plain, fastest reps). */
    .shm_far_cell_stream_min = (size_t)4 << 10,
    /* 4 ranks on 2 cores beside other jobs (amdcoll23), Bcast us, read /
     * segment / Open MPI, medians: 64 KiB 31.8 / 11.2 / 32.1, 1 MiB 329 /
     * 184 / 1077: a root that waits for three readers which share its
     * cores waits for the scheduler, one that posts its chunks does not. */
    .coll_shm_crowded_bcast_read_min = 0,
    /* 4 ranks on 2 cores, Alltoall 64 KiB: iterations of ~1 ms in half
     * the runs where waits yielded 2000 times before sleeping (pair24). */
    .coll_shm_crowded_yields = 64,
    /* Two ranks reading each other's buffers, measured on family 25 and
     * Intel: src/hcomm/shmcoll.h cites each (coll16g, coll16h, coll16k,
     * root16c). */
    .coll_shm_pair_read_min = (size_t)64 << 10,
    .coll_shm_pair_bcast_read_min = (size_t)16 << 10,
    .coll_shm_pair_reduce_read_min = (size_t)16 << 10,
    .coll_shm_rooted_read_min = (size_t)16 << 10,
    .shm_prefetch_next = 1,
};

/* AMD family 25 with AVX-512 (Zen 4, 2 vCPUs; bench/NOTES.md, "Lead,
 * twenty-ninth session" and "Lead, thirtieth session"): the amd profile,
 * measured on Zen 3, but for the two-rank reductions, which never read
 * the other rank's buffer, and for the copies into the segment of large
 * two-rank collectives and of a crowded node's reductions, which go
 * through the cache.  For the reductions
 * the segment's copies won at every size from 16 KiB (bench/collective,
 * 10 interleaved rounds, real-time ranks, near; us, reading / through the
 * segment / Open MPI): Reduce 16 KiB 3.2 / 1.9 / 4.1, 64 KiB 7.5 / 6.0 /
 * 9.3, 256 KiB 30.6 / 24.4 / 33.6, 1 MiB 83.3 / 78.5 / 122; Allreduce 16
 * KiB 5.9 / 4.3 / 10.1, 64 KiB 10.7 / 9.2 / 23.1, 256 KiB 38.2 / 30.9 /
 * 72.9, 1 MiB 149 / 116 / 161.  Its other two-rank reads still pay
 * (Bcast 256 KiB 10.7 against 20.3 through the segment, 1 MiB 50 against
 * 80; Gather and Alltoall level), and Reduce_scatter keeps its own
 * threshold (level either way).
 * Two-rank collectives of blocks or vectors from 1 MiB, whose chunks cycle
 * through the same two buffers of each rank, go through the segment with cached
 * copies (bench/NOTES.md, pair30; 10 interleaved rounds, us, reading /
 * through the segment cached / Open MPI / MPICH): Allgather 1 MiB 146 /
 * 106 / 154 / 166, 4 MiB 869 / 716 / 1001 / 894; Alltoall 1 MiB 136 / 112
 * / 124 / 133, 4 MiB 1107 / 1057 / 1187 / 1117 (its blocks above a slot's
 * part are messages); streamed into the segment the same Allgather took
 * 155 and 833, and Allreduce 1 / 4 MiB 117 / 491 against 109 / 427 cached,
 * Reduce 89 / 359 against 83 / 312 (6 rounds).  Below 1 MiB the reads
 * (Allgather 64 KiB 9.4 against 10.6 through the segment) and the
 * streamed copies (Reduce 64 / 256 KiB 6.2 / 25.6 against 9.9 / 31.3
 * cached) stay.  Where more ranks than CPUs share the node, Reduces and
 * Allreduces copy their inputs cached at every size they would stream,
 * where a rank on the same core finds them in its cache (4 ranks on 2
 * cores, 4 or 5 interleaved rounds, us, streamed / cached: Reduce 16 KiB
 * 8.2 / 5.6, 256 KiB 82.7 / 33.8, 1 MiB 296 / 135; Allreduce 16 KiB 11.4
 * / 9.1, 1 MiB 307 / 239; 8 ranks Reduce 256 KiB 219 / 97, Allreduce 262
 * / 147); not Reduce_scatter, whose whole vectors lost 2.1-2.7x cached,
 * nor Bcast (1.2-1.5x). */
static const hc_cpu_profile_t cpu_profile_amd_zen4 = {
    .name = "amd-zen4",
    .shm_cma_min = (size_t)4 << 20,
    .shm_cma_help_min = (size_t)1 << 20,
    .coll_shm_stream_min = (size_t)16 << 10,
    .shm_eager_max = (size_t)16 << 10,
    .shm_lone_read_min = (size_t)4 << 20,
    .shm_far_read_min = (size_t)1 << 20,
    .shm_far_cell_stream_min = (size_t)4 << 10,
    .coll_shm_crowded_bcast_read_min = 0,
    .coll_shm_crowded_yields = 64,
    .coll_shm_pair_read_min = (size_t)64 << 10,
    .coll_shm_pair_bcast_read_min = (size_t)16 << 10,
    .coll_shm_pair_reduce_read_min = 0,
    .coll_shm_rooted_read_min = (size_t)16 << 10,
    .coll_shm_pair_cached_min = (size_t)1 << 20,
    .coll_shm_crowded_reduce_cached_min = (size_t)16 << 10,
    .shm_prefetch_next = 1,
};

/* AMD family 26 (Zen 5, 2 vCPUs; bench/NOTES.md, "Lead, twenty-sixth
 * session"), interleaved, ranks real-time (chrt) beside other jobs, near
 * placement: rendezvous streamed through the cells outran one CMA read at
 * every size measured, bandwidth (window 64) 4 MiB 42 against 23 GB/s,
 * 16 MiB 28 against 14, both ways at once 4 / 16 / 64 MiB 42 / 26 / 18
 * against 19 / 11 / 10, ping-pong 4 / 16 MiB 121 / 877 against 179 / 1279
 * us; 8 ranks on 2 cores level at 4 MiB, 16 / 13 GB/s at 16 MiB.  Far
 * apart the runs were too few to choose (reads 4 / 16 MiB 26 / 19 GB/s in
 * three, streaming 25 / 23 in one), so far pairs keep the amd profile's
 * reads from 1 MiB, as a pair waiting for a core keeps the runq rule.
 * So near pairs never read; the rest is the amd profile's.
 * Collectives of two ranks likewise (bench/NOTES.md, "Lead,
 * twenty-seventh session"; bench/collective, 5 interleaved rounds,
 * real-time ranks, near; us, reading each other's buffers / through the
 * segment / Open MPI): Allreduce 64 KiB 9.3 / 6.7 / 12.2, 1 MiB 140 / 92 /
 * 135, 4 MiB 751 / 376 / 756; Alltoall 64 KiB 8.7 / 5.2 / 8.6, 1 MiB 143 /
 * 86 / 128; Allgather 1 MiB 144 / 107 / 123; Bcast 64 KiB 4.3 / 3.3 / 7.4,
 * 1 MiB 53 / 27 / 95; Reduce 64 KiB 8.2 / 3.9 / 8.5; Gather 16 KiB 2.8 /
 * 1.4 / 3.7, 32 KiB 4.8 / 1.8 / 4.3.  So they never read, Gather on more
 * ranks neither (4 ranks on 2 cores, Gather(v) 16-32 KiB: level either
 * way, 10.7-16.2 against 11.9-15.8); Reduce_scatter, whose segment path
 * copies the whole vector, still does (its own threshold), and Alltoall
 * and Bcast on more ranks keep theirs (4 ranks on 2 cores: Alltoall 64
 * KiB-1 MiB reads 3-11 % ahead). */
static const hc_cpu_profile_t cpu_profile_amd26 = {
    .name = "amd26",
    .shm_cma_min = HC_CPU_PROFILE_NEVER,
    .shm_cma_help_min = (size_t)1 << 20,
    .coll_shm_stream_min = (size_t)16 << 10,
    .shm_eager_max = (size_t)16 << 10,
    .shm_lone_read_min = HC_CPU_PROFILE_NEVER,
    .shm_far_read_min = (size_t)1 << 20,
    .shm_far_cell_stream_min = (size_t)4 << 10,
    .coll_shm_crowded_bcast_read_min = 0,
    .coll_shm_crowded_yields = 64,
    .coll_shm_pair_read_min = 0,
    .coll_shm_pair_bcast_read_min = 0,
    .coll_shm_pair_reduce_read_min = 0,
    .coll_shm_rooted_read_min = 0,
    .shm_prefetch_next = 1,
};

/* Measured on an Intel Xeon VM (family 6 model 167, 2 vCPUs; bench/NOTES.md,
 * tune17), interleaved A/B, 2 ranks, quiet: one CMA read is as fast as
 * streaming from the first rendezvous up and twice as fast from 128 KiB
 * (latency 256 KiB 10.3 against 20.6 us, 1 MiB 37 against 92; bandwidth
 * 256 KiB 26-28 against 14 GB/s), and streaming turns bimodal from 32 KiB
 * (2.4 or 5.5 us) where CMA does not; so CMA from 32 KiB.  A read shared
 * with the peer from 512 KiB (two chunks) on: 512 KiB 45 against 25 GB/s
 * alone, 768 KiB 33 against 16, level beside a busy loop.  Cached copies
 * into the collective segment beat non-temporal stores at every size
 * (Allreduce 64 KiB 10.2 against 18.0 us, 1 MiB 144 against 782; Reduce
 * 64 KiB 6.5 against 9.1), beside a busy loop too (Allreduce 1 MiB 195
 * against 682); so never streamed.  Eager messages of more than 8 KiB
 * (two copies through a cell, the receiver's pulling every line from the
 * sender's core) took longer than a rendezvous: 12 KiB 2.9 against 1.5
 * us, bandwidth (window 64) level at 12-16 KiB (eager17); from 4 to 8 KiB
 * a rendezvous is quicker still (8 KiB ping-pong 1.30 against 1.72 us,
 * lat22) but streams 14-33 % less, so eager up to 4 KiB, and above it
 * only for a stream.  That rendezvous wins only as one CMA read of a lone
 * message: behind unread packets, an unfinished rendezvous, or sends the
 * peer did not answer between (a stream), a message of up to a cell goes
 * eager all the same (window 64: 8193 B 12.7k against 9.0k MB/s, 10 KiB
 * 13.5k against 11.2k; mid17), hence eager_busy_max.  A lone rendezvous
 * from 4 KiB is read with CMA too, not streamed nor sent eager: 12-24 KiB
 * ping-pong 1.4-2.2 against 7-13 us at load 5, the bimodal 16 KiB of mid18
 * (bench/NOTES.md, lat19, lat22b); hence lone_read_min. */
static const hc_cpu_profile_t cpu_profile_intel = {
    .name = "intel",
    .shm_cma_min = (size_t)32 << 10,
    .shm_cma_help_min = (size_t)512 << 10,
    .coll_shm_stream_min = 0,
    .shm_eager_max = (size_t)4 << 10,
    .shm_eager_busy_max = (size_t)16 << 10,
    .shm_lone_read_min = (size_t)4 << 10,
    .shm_far_read_min = (size_t)32 << 10, /* reads already: no probe */
    /* Not measured crowded: HCMPI_COLL_SHM_BCAST_READ_MIN's default, as
     * before. */
    .coll_shm_crowded_bcast_read_min = (size_t)64 << 10,
    .coll_shm_pair_read_min = (size_t)64 << 10,
    .coll_shm_pair_bcast_read_min = (size_t)16 << 10,
    .coll_shm_pair_reduce_read_min = (size_t)16 << 10,
    .coll_shm_rooted_read_min = (size_t)16 << 10,
};

/* Machines never measured keep the values hcmpi shipped with before
 * profiles existed (the AMD ones): the longest-tested, and non-temporal
 * stores are compiled in on x86-64 alone. */
static const hc_cpu_profile_t cpu_profile_generic = {
    .name = "generic",
    .shm_cma_min = (size_t)4 << 20,
    .shm_cma_help_min = (size_t)1 << 20,
    .coll_shm_stream_min = (size_t)16 << 10,
    .shm_eager_max = (size_t)16 << 10,
    .shm_lone_read_min = (size_t)4 << 20,
    .shm_far_read_min = (size_t)4 << 20, /* never measured: no probe */
    .coll_shm_crowded_bcast_read_min = (size_t)64 << 10,
    .coll_shm_pair_read_min = (size_t)64 << 10,
    .coll_shm_pair_bcast_read_min = (size_t)16 << 10,
    .coll_shm_pair_reduce_read_min = (size_t)16 << 10,
    .coll_shm_rooted_read_min = (size_t)16 << 10,
};

static const hc_cpu_profile_t *cpu_profile_by_name(const char *name) {
  if (strcmp(name, "amd") == 0)
    return &cpu_profile_amd;
  if (strcmp(name, "amd-zen4") == 0)
    return &cpu_profile_amd_zen4;
  if (strcmp(name, "amd26") == 0)
    return &cpu_profile_amd26;
  if (strcmp(name, "intel") == 0)
    return &cpu_profile_intel;
  if (strcmp(name, "generic") == 0)
    return &cpu_profile_generic;
  return NULL;
}

unsigned hc_cpu_family(void) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
    return 0;
  unsigned family = (eax >> 8) & 0xf;
  return family == 0xf ? family + ((eax >> 20) & 0xff) : family;
#else
  return 0;
#endif
}

/* The cpuid vendor string (and on AMD the family: 26 and later take the
 * profile measured on 26, 25 with AVX-512, which Zen 4 brought and Zen 3
 * lacks, the Zen 4 one); an unknown vendor, and any other architecture,
 * is generic. */
static const hc_cpu_profile_t *cpu_profile_detect(void) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned max_leaf, ebx, ecx, edx;
  if (__get_cpuid(0, &max_leaf, &ebx, &ecx, &edx)) {
    char vendor[13];
    memcpy(vendor, &ebx, 4);
    memcpy(vendor + 4, &edx, 4);
    memcpy(vendor + 8, &ecx, 4);
    vendor[12] = '\0';
    if (strcmp(vendor, "GenuineIntel") == 0)
      return &cpu_profile_intel;
    if (strcmp(vendor, "AuthenticAMD") == 0) {
      unsigned family = hc_cpu_family();
      if (family >= 26)
        return &cpu_profile_amd26;
      return family == 25 && __builtin_cpu_supports("avx512f")
                 ? &cpu_profile_amd_zen4
                 : &cpu_profile_amd;
    }
  }
#endif
  return &cpu_profile_generic;
}

const hc_cpu_profile_t *hc_cpu_profile(void) {
  const hc_cpu_profile_t *named =
      cpu_profile_by_name(hc_env_string("HCMPI_CPU_PROFILE", ""));
  return named != NULL ? named : cpu_profile_detect();
}

int hc_cpu_profile_default(const char *name, size_t *bytes) {
  const hc_cpu_profile_t *p = hc_cpu_profile();
  if (strcmp(name, "HCMPI_SHM_CMA_MIN") == 0)
    *bytes = p->shm_cma_min;
  else if (strcmp(name, "HCMPI_SHM_CMA_HELP_MIN") == 0)
    *bytes = p->shm_cma_help_min;
  else if (strcmp(name, "HCMPI_COLL_SHM_STREAM_MIN") == 0)
    *bytes = p->coll_shm_stream_min;
  else if (strcmp(name, "HCMPI_SHM_EAGER_BUSY_MAX") == 0)
    *bytes = p->shm_eager_busy_max;
  else if (strcmp(name, "HCMPI_SHM_LONE_READ_MIN") == 0)
    *bytes = p->shm_lone_read_min;
  else if (strcmp(name, "HCMPI_SHM_FAR_READ_MIN") == 0)
    *bytes = p->shm_far_read_min;
  else if (strcmp(name, "HCMPI_SHM_FAR_CELL_STREAM_MIN") == 0)
    *bytes = p->shm_far_cell_stream_min;
  else if (strcmp(name, "HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN") == 0)
    *bytes = p->coll_shm_crowded_bcast_read_min;
  else if (strcmp(name, "HCMPI_COLL_SHM_CROWDED_YIELDS") == 0)
    *bytes = p->coll_shm_crowded_yields;
  else if (strcmp(name, "HCMPI_COLL_SHM_PAIR_READ_MIN") == 0)
    *bytes = p->coll_shm_pair_read_min;
  else if (strcmp(name, "HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN") == 0)
    *bytes = p->coll_shm_pair_bcast_read_min;
  else if (strcmp(name, "HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN") == 0)
    *bytes = p->coll_shm_pair_reduce_read_min;
  else if (strcmp(name, "HCMPI_COLL_SHM_ROOTED_READ_MIN") == 0)
    *bytes = p->coll_shm_rooted_read_min;
  else if (strcmp(name, "HCMPI_COLL_SHM_PAIR_CACHED_MIN") == 0)
    *bytes = p->coll_shm_pair_cached_min;
  else if (strcmp(name, "HCMPI_COLL_SHM_CROWDED_REDUCE_CACHED_MIN") == 0)
    *bytes = p->coll_shm_crowded_reduce_cached_min;
  else
    return -1;
  return 0;
}
