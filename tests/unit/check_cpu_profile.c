/*
 * src/util/cpu_profile: HCMPI_CPU_PROFILE=amd|amd-zen4|amd26|intel|generic
 * gives each profile's documented thresholds (bench/NOTES.md, tune17), an unset
 * or unknown name gives the profile of the vendor and family /proc/cpuinfo
 * names, and a
 * collective threshold set in the environment wins over every profile
 * (the shm transport's own thresholds: check_shm); the default by
 * variable name (MPI_T, hcmpi_info) is the profile's field.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm/shmcoll.h"
#include "util/cpu_profile.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

static const hc_cpu_profile_t *profile_named(const char *name) {
  if (name != NULL)
    setenv("HCMPI_CPU_PROFILE", name, 1);
  else
    unsetenv("HCMPI_CPU_PROFILE");
  return hc_cpu_profile();
}

static void profile_expect(const hc_cpu_profile_t *p, const char *name,
                           size_t cma_min, size_t help_min, size_t stream_min,
                           size_t eager_max, size_t eager_busy_max) {
  ck_assert_str_eq(p->name, name);
  ck_assert_uint_eq(p->shm_cma_min, cma_min);
  ck_assert_uint_eq(p->shm_cma_help_min, help_min);
  ck_assert_uint_eq(p->coll_shm_stream_min, stream_min);
  ck_assert_uint_eq(p->shm_eager_max, eager_max);
  ck_assert_uint_eq(p->shm_eager_busy_max, eager_busy_max);
}

START_TEST(test_cpu_profile_amd_keeps_the_values_measured_there) {
  profile_expect(profile_named("amd"), "amd", 4 * MIB, 1 * MIB, 16 * KIB,
                 16 * KIB, 0);
}
END_TEST

/* Zen 4 is the amd profile (measured on Zen 3) but for the two-rank
 * reductions, which never read the other rank's buffer, two-rank
 * collectives from 1 MiB, and a crowded node's Reduces and Allreduces,
 * which copy through the segment's cache. */
START_TEST(test_cpu_profile_amd_zen4_reduces_through_the_segment) {
  const hc_cpu_profile_t *amd = profile_named("amd");
  const hc_cpu_profile_t *zen4 = profile_named("amd-zen4");
  ck_assert_str_eq(zen4->name, "amd-zen4");
  ck_assert_uint_eq(amd->coll_shm_pair_reduce_read_min, 16 * KIB);
  ck_assert_uint_eq(zen4->coll_shm_pair_reduce_read_min, 0);
  ck_assert_uint_eq(amd->coll_shm_pair_cached_min, 0);
  ck_assert_uint_eq(zen4->coll_shm_pair_cached_min, 1 * MIB);
  ck_assert_uint_eq(amd->coll_shm_crowded_reduce_cached_min, 0);
  ck_assert_uint_eq(zen4->coll_shm_crowded_reduce_cached_min, 16 * KIB);
#define SAME(field) ck_assert_uint_eq(zen4->field, amd->field)
  SAME(shm_cma_min);
  SAME(shm_cma_help_min);
  SAME(coll_shm_stream_min);
  SAME(shm_eager_max);
  SAME(shm_eager_busy_max);
  SAME(shm_lone_read_min);
  SAME(shm_far_read_min);
  SAME(shm_far_cell_stream_min);
  SAME(coll_shm_crowded_bcast_read_min);
  SAME(coll_shm_crowded_yields);
  SAME(coll_shm_pair_read_min);
  SAME(coll_shm_pair_bcast_read_min);
  SAME(coll_shm_rooted_read_min);
  SAME(shm_prefetch_next);
#undef SAME
}
END_TEST

/* AMD family 26 streams every rendezvous of a near pair: no CMA minimum
 * and no lone read; its far reads and the rest are the amd profile's. */
START_TEST(test_cpu_profile_amd26_streams_near_pairs) {
  const hc_cpu_profile_t *p = profile_named("amd26");
  profile_expect(p, "amd26", HC_CPU_PROFILE_NEVER, 1 * MIB, 16 * KIB,
                 16 * KIB, 0);
  ck_assert_uint_eq(p->shm_lone_read_min, HC_CPU_PROFILE_NEVER);
  size_t bytes = 7;
  ck_assert_int_eq(hc_cpu_profile_default("HCMPI_SHM_CMA_MIN", &bytes), 0);
  ck_assert_uint_eq(bytes, HC_CPU_PROFILE_NEVER);
}
END_TEST

START_TEST(test_cpu_profile_intel_reads_with_cma_and_copies_cached) {
  profile_expect(profile_named("intel"), "intel", 32 * KIB, 512 * KIB, 0,
                 4 * KIB, 16 * KIB);
}
END_TEST

START_TEST(test_cpu_profile_generic_keeps_the_values_shipped_before) {
  profile_expect(profile_named("generic"), "generic", 4 * MIB, 1 * MIB,
                 16 * KIB, 16 * KIB, 0);
}
END_TEST

/* The profile /proc/cpuinfo's vendor_id, cpu family and flags (AVX-512)
 * call for (x86; elsewhere, and for other vendors, generic). */
static const char *profile_of_cpuinfo(void) {
  const char *expected = "generic";
#if defined(__x86_64__) || defined(__i386__)
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[8192]; /* a whole flags line */
  int amd = 0, avx512f = 0;
  unsigned family = 0;
  while (f != NULL && fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "vendor_id", 9) == 0) {
      if (strstr(line, "GenuineIntel") != NULL)
        expected = "intel";
      amd = strstr(line, "AuthenticAMD") != NULL;
    } else if (strncmp(line, "cpu family", 10) == 0) {
      const char *colon = strchr(line, ':');
      family = colon != NULL ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
    } else if (strncmp(line, "flags", 5) == 0) {
      /* Whole words only (avx512f, not avx512fp16 alone). */
      avx512f = strstr(line, " avx512f ") != NULL ||
                strstr(line, " avx512f\n") != NULL;
      break; /* after vendor_id and cpu family in every entry */
    }
  }
  if (amd)
    expected = family >= 26                ? "amd26"
               : family == 25 && avx512f ? "amd-zen4"
                                           : "amd";
  ck_assert_uint_eq(hc_cpu_family(), family);
  if (f != NULL)
    fclose(f);
#endif
  return expected;
}

START_TEST(test_cpu_profile_unset_or_unknown_follows_the_cpu_vendor) {
  const char *expected = profile_of_cpuinfo();
  ck_assert_str_eq(profile_named(NULL)->name, expected);
  ck_assert_str_eq(profile_named("")->name, expected);
  ck_assert_str_eq(profile_named("sparc")->name, expected);
}
END_TEST

START_TEST(test_cpu_profile_gives_the_collective_stream_default) {
  const char *names[] = {"amd", "amd-zen4", "amd26", "intel", "generic"};
  unsetenv("HCMPI_COLL_SHM_STREAM_MIN");
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const hc_cpu_profile_t *p = profile_named(names[i]);
    hc_shmcoll_tuning_load();
    ck_assert_msg(hc_shmcoll_tuning.stream_min == p->coll_shm_stream_min,
                  "%s: stream_min %zu, profile %zu", names[i],
                  hc_shmcoll_tuning.stream_min, p->coll_shm_stream_min);
  }
}
END_TEST

/* A lone rendezvous below HCMPI_SHM_CMA_MIN is read with CMA on Intel
 * from its first byte above the eager limit; elsewhere the lone rule is
 * off (as large as the profile's CMA minimum). */
START_TEST(test_cpu_profile_lone_read_from_the_eager_limit_on_intel_only) {
  const hc_cpu_profile_t *p = profile_named("intel");
  ck_assert_uint_eq(p->shm_lone_read_min, p->shm_eager_max);
  ck_assert_uint_lt(p->shm_lone_read_min, p->shm_cma_min);
  const char *names[] = {"amd", "amd-zen4", "amd26", "generic"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    p = profile_named(names[i]);
    ck_assert_uint_eq(p->shm_lone_read_min, p->shm_cma_min);
  }
}
END_TEST

/* Only the amd profile reads a far pair's rendezvous below its CMA
 * minimum, from where its reads are shared with the peer; elsewhere the
 * far rule is off (as large as the profile's CMA minimum), so no placement
 * probe runs. */
START_TEST(test_cpu_profile_far_reads_on_amd_only) {
  const char *names[] = {"amd", "amd-zen4", "amd26", "intel", "generic"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const hc_cpu_profile_t *p = profile_named(names[i]);
    int amd = strncmp(names[i], "amd", 3) == 0;
    ck_assert_msg(amd ? p->shm_far_read_min == p->shm_cma_help_min &&
                            p->shm_far_read_min < p->shm_cma_min
                      : p->shm_far_read_min == p->shm_cma_min,
                  "%s: far_read_min %zu, help_min %zu, cma_min %zu", names[i],
                  p->shm_far_read_min, p->shm_cma_help_min, p->shm_cma_min);
  }
}
END_TEST

/* Only the amd profile fills a far pair's cells with non-temporal stores
 * (from 4 KiB: bench/NOTES.md, nt29); elsewhere never, so there the
 * placement probe runs for the far reads alone. */
START_TEST(test_cpu_profile_far_cell_stream_on_amd_only) {
  const char *names[] = {"amd", "amd-zen4", "amd26", "intel", "generic"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const hc_cpu_profile_t *p = profile_named(names[i]);
    size_t want = strncmp(names[i], "amd", 3) == 0 ? (size_t)4 << 10 : 0;
    ck_assert_msg(p->shm_far_cell_stream_min == want,
                  "%s: far_cell_stream_min %zu, want %zu", names[i],
                  p->shm_far_cell_stream_min, want);
  }
}
END_TEST

/* On AMD a crowded node's Bcasts never read the root's buffer; Intel and
 * generic read from HCMPI_COLL_SHM_BCAST_READ_MIN's default, as before;
 * the tuning takes the profile's value unless the variable is set. */
START_TEST(test_cpu_profile_crowded_bcast_reads_off_on_amd_only) {
  const char *names[] = {"amd", "amd-zen4", "amd26", "intel", "generic"};
  const size_t want[] = {0, 0, 0, 64 * KIB, 64 * KIB};
  unsetenv("HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN");
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const hc_cpu_profile_t *p = profile_named(names[i]);
    ck_assert_uint_eq(p->coll_shm_crowded_bcast_read_min, want[i]);
    size_t bytes = 7;
    ck_assert_int_eq(
        hc_cpu_profile_default("HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN", &bytes),
        0);
    ck_assert_uint_eq(bytes, want[i]);
    hc_shmcoll_tuning_load();
    ck_assert_uint_eq(hc_shmcoll_tuning.crowded_bcast_read_min, want[i]);
    setenv("HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN", "128k", 1);
    hc_shmcoll_tuning_load();
    ck_assert_uint_eq(hc_shmcoll_tuning.crowded_bcast_read_min, 128 * KIB);
    unsetenv("HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN");
  }
}
END_TEST

/* Two ranks read each other's buffers in Allgather/Alltoall, Bcast,
 * Reduce/Allreduce and Gather everywhere but on AMD family 26 (whose CMA
 * copies lose to the segment's: "Lead, twenty-seventh session"), and but
 * in Reduce/Allreduce on Zen 4 ("Lead, twenty-ninth session"); the
 * tuning takes the profile's value by name, a setting wins, and
 * Reduce_scatter's own threshold stays whatever the profile. */
START_TEST(test_cpu_profile_pair_reads_by_profile) {
  static const char *const vars[] = {
      "HCMPI_COLL_SHM_PAIR_READ_MIN", "HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN",
      "HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN", "HCMPI_COLL_SHM_ROOTED_READ_MIN"};
  static const size_t classic[] = {64 * KIB, 16 * KIB, 16 * KIB, 16 * KIB};
  const char *names[] = {"amd", "amd-zen4", "amd26", "intel", "generic"};
  for (size_t v = 0; v < 4; v++)
    unsetenv(vars[v]);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const hc_cpu_profile_t *p = profile_named(names[i]);
    int all_off = strcmp(names[i], "amd26") == 0;
    int reduce_off = all_off || strcmp(names[i], "amd-zen4") == 0;
    const size_t fields[] = {
        p->coll_shm_pair_read_min, p->coll_shm_pair_bcast_read_min,
        p->coll_shm_pair_reduce_read_min, p->coll_shm_rooted_read_min};
    hc_shmcoll_tuning_load();
    const size_t tuned[] = {hc_shmcoll_tuning.pair_read_min,
                            hc_shmcoll_tuning.pair_bcast_read_min,
                            hc_shmcoll_tuning.pair_reduce_read_min,
                            hc_shmcoll_tuning.rooted_read_min};
    for (size_t v = 0; v < 4; v++) {
      int off = v == 2 ? reduce_off : all_off; /* 2: the reductions' */
      size_t want = off ? 0 : classic[v], bytes = 7;
      ck_assert_msg(fields[v] == want && tuned[v] == want,
                    "%s: %s %zu (tuned %zu), want %zu", names[i], vars[v],
                    fields[v], tuned[v], want);
      ck_assert_int_eq(hc_cpu_profile_default(vars[v], &bytes), 0);
      ck_assert_uint_eq(bytes, want);
    }
    ck_assert_uint_eq(hc_shmcoll_tuning.pair_reduce_scatter_read_min,
                      16 * KIB);
  }
  setenv("HCMPI_COLL_SHM_PAIR_READ_MIN", "32k", 1);
  setenv("HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN", "0", 1);
  hc_shmcoll_tuning_load(); /* amd26, the last named */
  ck_assert_uint_eq(hc_shmcoll_tuning.pair_read_min, 32 * KIB);
  profile_named("amd");
  hc_shmcoll_tuning_load();
  ck_assert_uint_eq(hc_shmcoll_tuning.pair_reduce_read_min, 0);
  for (size_t v = 0; v < 4; v++)
    unsetenv(vars[v]);
}
END_TEST

/* Large two-rank collectives, and a crowded node's Reduces and
 * Allreduces, copy through the segment's cache on Zen 4 alone ("Lead,
 * thirtieth session"); the tuning takes the profile's value by name, and
 * a setting wins. */
START_TEST(test_cpu_profile_cached_copies_on_zen4_only) {
  const char *names[] = {"amd", "amd-zen4", "amd26", "intel", "generic"};
  unsetenv("HCMPI_COLL_SHM_PAIR_CACHED_MIN");
  unsetenv("HCMPI_COLL_SHM_CROWDED_REDUCE_CACHED_MIN");
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const hc_cpu_profile_t *p = profile_named(names[i]);
    int zen4 = strcmp(names[i], "amd-zen4") == 0;
    size_t pair = zen4 ? 1 * MIB : 0, crowded = zen4 ? 16 * KIB : 0;
    size_t bytes = 7;
    hc_shmcoll_tuning_load();
    ck_assert_msg(p->coll_shm_pair_cached_min == pair &&
                      hc_shmcoll_tuning.pair_cached_min == pair,
                  "%s: %zu (tuned %zu), want %zu", names[i],
                  p->coll_shm_pair_cached_min,
                  hc_shmcoll_tuning.pair_cached_min, pair);
    ck_assert_msg(p->coll_shm_crowded_reduce_cached_min == crowded &&
                      hc_shmcoll_tuning.crowded_reduce_cached_min == crowded,
                  "%s: crowded %zu (tuned %zu), want %zu", names[i],
                  p->coll_shm_crowded_reduce_cached_min,
                  hc_shmcoll_tuning.crowded_reduce_cached_min, crowded);
    ck_assert_int_eq(
        hc_cpu_profile_default("HCMPI_COLL_SHM_PAIR_CACHED_MIN", &bytes), 0);
    ck_assert_uint_eq(bytes, pair);
    ck_assert_int_eq(hc_cpu_profile_default(
                         "HCMPI_COLL_SHM_CROWDED_REDUCE_CACHED_MIN", &bytes),
                     0);
    ck_assert_uint_eq(bytes, crowded);
  }
  setenv("HCMPI_COLL_SHM_CROWDED_REDUCE_CACHED_MIN", "1m", 1);
  profile_named("amd");
  hc_shmcoll_tuning_load();
  ck_assert_uint_eq(hc_shmcoll_tuning.crowded_reduce_cached_min, 1 * MIB);
  unsetenv("HCMPI_COLL_SHM_CROWDED_REDUCE_CACHED_MIN");
  setenv("HCMPI_COLL_SHM_PAIR_CACHED_MIN", "0", 1);
  profile_named("amd-zen4");
  hc_shmcoll_tuning_load();
  ck_assert_uint_eq(hc_shmcoll_tuning.pair_cached_min, 0);
  setenv("HCMPI_COLL_SHM_PAIR_CACHED_MIN", "256k", 1);
  profile_named("amd");
  hc_shmcoll_tuning_load();
  ck_assert_uint_eq(hc_shmcoll_tuning.pair_cached_min, 256 * KIB);
  unsetenv("HCMPI_COLL_SHM_PAIR_CACHED_MIN");
}
END_TEST

/* On AMD a crowded node's collective waits sleep after 64 yields where
 * no rank they wait for shares their CPU; Intel and generic keep the
 * engine's spin (0); a setting wins, 0 included. */
START_TEST(test_cpu_profile_crowded_yields_bounded_on_amd_only) {
  const char *names[] = {"amd", "amd-zen4", "amd26", "intel", "generic"};
  const size_t want[] = {64, 64, 64, 0, 0};
  unsetenv("HCMPI_COLL_SHM_CROWDED_YIELDS");
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    ck_assert_uint_eq(profile_named(names[i])->coll_shm_crowded_yields,
                      want[i]);
    hc_shmcoll_tuning_load();
    ck_assert_uint_eq(hc_shmcoll_tuning.crowded_yields, want[i]);
  }
  setenv("HCMPI_COLL_SHM_CROWDED_YIELDS", "0", 1);
  hc_shmcoll_tuning_load();
  ck_assert_uint_eq(hc_shmcoll_tuning.crowded_yields, 0);
  unsetenv("HCMPI_COLL_SHM_CROWDED_YIELDS");
}
END_TEST

/* Only the AMD profile's sends ask for the lines of their next packet for
 * writing (amdp2p23); Intel and unmeasured machines do not. */
START_TEST(test_cpu_profile_send_prefetch_on_amd_only) {
  ck_assert_int_eq(profile_named("amd")->shm_prefetch_next, 1);
  ck_assert_int_eq(profile_named("amd-zen4")->shm_prefetch_next, 1);
  ck_assert_int_eq(profile_named("amd26")->shm_prefetch_next, 1);
  ck_assert_int_eq(profile_named("intel")->shm_prefetch_next, 0);
  ck_assert_int_eq(profile_named("generic")->shm_prefetch_next, 0);
}
END_TEST

START_TEST(test_cpu_profile_loses_to_an_explicit_setting) {
  const char *names[] = {"amd", "intel", "generic"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    profile_named(names[i]);
    setenv("HCMPI_COLL_SHM_STREAM_MIN", "96k", 1);
    hc_shmcoll_tuning_load();
    ck_assert_uint_eq(hc_shmcoll_tuning.stream_min, 96 * KIB);
    setenv("HCMPI_COLL_SHM_STREAM_MIN", "0", 1);
    hc_shmcoll_tuning_load();
    ck_assert_uint_eq(hc_shmcoll_tuning.stream_min, 0);
  }
  unsetenv("HCMPI_COLL_SHM_STREAM_MIN");
}
END_TEST

START_TEST(test_cpu_profile_default_by_name_is_the_profile_field) {
  const hc_cpu_profile_t *p = profile_named("intel");
  size_t bytes = 7;
  ck_assert_int_eq(hc_cpu_profile_default("HCMPI_SHM_CMA_MIN", &bytes), 0);
  ck_assert_uint_eq(bytes, p->shm_cma_min);
  ck_assert_int_eq(hc_cpu_profile_default("HCMPI_SHM_CMA_HELP_MIN", &bytes), 0);
  ck_assert_uint_eq(bytes, p->shm_cma_help_min);
  ck_assert_int_eq(hc_cpu_profile_default("HCMPI_COLL_SHM_STREAM_MIN", &bytes),
                   0);
  ck_assert_uint_eq(bytes, p->coll_shm_stream_min);
  ck_assert_int_eq(hc_cpu_profile_default("HCMPI_SHM_EAGER_BUSY_MAX", &bytes),
                   0);
  ck_assert_uint_eq(bytes, p->shm_eager_busy_max);
  ck_assert_int_eq(hc_cpu_profile_default("HCMPI_SHM_LONE_READ_MIN", &bytes),
                   0);
  ck_assert_uint_eq(bytes, p->shm_lone_read_min);
  ck_assert_int_eq(hc_cpu_profile_default("HCMPI_SHM_FAR_READ_MIN", &bytes), 0);
  ck_assert_uint_eq(bytes, p->shm_far_read_min);
  ck_assert_int_eq(
      hc_cpu_profile_default("HCMPI_SHM_FAR_CELL_STREAM_MIN", &bytes), 0);
  ck_assert_uint_eq(bytes, p->shm_far_cell_stream_min);
  ck_assert_int_eq(
      hc_cpu_profile_default("HCMPI_COLL_SHM_CROWDED_YIELDS", &bytes), 0);
  ck_assert_uint_eq(bytes, p->coll_shm_crowded_yields);
  bytes = 7;
  ck_assert_int_eq(hc_cpu_profile_default("HCMPI_SHM_CELLS", &bytes), -1);
  ck_assert_uint_eq(bytes, 7);
}
END_TEST

static Suite *cpu_profile_suite(void) {
  Suite *s = suite_create("cpu_profile");
  TCase *tc = tcase_create("cpu_profile");
  tcase_add_test(tc, test_cpu_profile_amd_keeps_the_values_measured_there);
  tcase_add_test(tc, test_cpu_profile_amd_zen4_reduces_through_the_segment);
  tcase_add_test(tc, test_cpu_profile_amd26_streams_near_pairs);
  tcase_add_test(tc, test_cpu_profile_intel_reads_with_cma_and_copies_cached);
  tcase_add_test(tc, test_cpu_profile_generic_keeps_the_values_shipped_before);
  tcase_add_test(tc,
                 test_cpu_profile_lone_read_from_the_eager_limit_on_intel_only);
  tcase_add_test(tc, test_cpu_profile_unset_or_unknown_follows_the_cpu_vendor);
  tcase_add_test(tc, test_cpu_profile_gives_the_collective_stream_default);
  tcase_add_test(tc, test_cpu_profile_send_prefetch_on_amd_only);
  tcase_add_test(tc, test_cpu_profile_far_reads_on_amd_only);
  tcase_add_test(tc, test_cpu_profile_far_cell_stream_on_amd_only);
  tcase_add_test(tc, test_cpu_profile_loses_to_an_explicit_setting);
  tcase_add_test(tc, test_cpu_profile_crowded_bcast_reads_off_on_amd_only);
  tcase_add_test(tc, test_cpu_profile_crowded_yields_bounded_on_amd_only);
  tcase_add_test(tc, test_cpu_profile_pair_reads_by_profile);
  tcase_add_test(tc, test_cpu_profile_cached_copies_on_zen4_only);
  tcase_add_test(tc, test_cpu_profile_default_by_name_is_the_profile_field);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(cpu_profile_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
