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
 * Bcasts and reductions steady beside other jobs (coll16c, coll16e). */
static const hc_cpu_profile_t cpu_profile_amd = {
    .name = "amd",
    .shm_cma_min = (size_t)4 << 20,
    .shm_cma_help_min = (size_t)1 << 20,
    .coll_shm_stream_min = (size_t)16 << 10,
};

/* Not measured yet: the AMD values. */
static const hc_cpu_profile_t cpu_profile_intel = {
    .name = "intel",
    .shm_cma_min = (size_t)4 << 20,
    .shm_cma_help_min = (size_t)1 << 20,
    .coll_shm_stream_min = (size_t)16 << 10,
};

/* Machines never measured keep the values hcmpi shipped with before
 * profiles existed (the AMD ones): the longest-tested, and non-temporal
 * stores are compiled in on x86-64 alone. */
static const hc_cpu_profile_t cpu_profile_generic = {
    .name = "generic",
    .shm_cma_min = (size_t)4 << 20,
    .shm_cma_help_min = (size_t)1 << 20,
    .coll_shm_stream_min = (size_t)16 << 10,
};

static const hc_cpu_profile_t *cpu_profile_by_name(const char *name) {
  if (strcmp(name, "amd") == 0)
    return &cpu_profile_amd;
  if (strcmp(name, "intel") == 0)
    return &cpu_profile_intel;
  if (strcmp(name, "generic") == 0)
    return &cpu_profile_generic;
  return NULL;
}

/* The cpuid vendor string; an unknown vendor, and any other architecture,
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
    if (strcmp(vendor, "AuthenticAMD") == 0)
      return &cpu_profile_amd;
  }
#endif
  return &cpu_profile_generic;
}

const hc_cpu_profile_t *hc_cpu_profile(void) {
  const hc_cpu_profile_t *named =
      cpu_profile_by_name(hc_env_string("HCMPI_CPU_PROFILE", ""));
  return named != NULL ? named : cpu_profile_detect();
}
