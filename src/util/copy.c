/* hc_copy_host: see copy.h. */
#include "util/copy.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "util/cpu_profile.h" /* hc_cpu_family */

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>

/* From here the loop asks for the destination's lines COPY_PREFETCH_AHEAD
 * bytes before it stores to them, on AMD family 25 without AVX-512 (Zen
 * 3) only: there the stores of a copy past the L2 (512 KiB with its
 * source) wait on each line's fetch, and 1-4 MiB copies ran 5-9 % faster
 * with the lines asked for ahead; below 256 KiB it gained nothing
 * measurable (bench/NOTES.md, get24).  On family 25 with AVX-512 (Zen 4,
 * 1 MiB of L2) the same asks cost 1-4 MiB copies 12-17 % (40-41 against
 * 47-48 GB/s without them, as fast as glibc's), so the loop runs without
 * them there (copy29). */
#define COPY_PREFETCH_MIN (256 * 1024)
#define COPY_PREFETCH_AHEAD 2048

/* 128 bytes, all loaded before any is stored. */
__attribute__((target("avx2"), always_inline)) static inline void
copy_avx2_128(char *dst, const char *src) {
  __m256i a = _mm256_loadu_si256((const __m256i *)src);
  __m256i b = _mm256_loadu_si256((const __m256i *)(src + 32));
  __m256i c = _mm256_loadu_si256((const __m256i *)(src + 64));
  __m256i d = _mm256_loadu_si256((const __m256i *)(src + 96));
  _mm256_storeu_si256((__m256i *)dst, a);
  _mm256_storeu_si256((__m256i *)(dst + 32), b);
  _mm256_storeu_si256((__m256i *)(dst + 64), c);
  _mm256_storeu_si256((__m256i *)(dst + 96), d);
}

/* The copy plan, decided once (copy_plan_make) before the first copy that
 * reads it.  Which routine takes a copy between ranges apart, by length:
 * the loop from HC_COPY_VECTOR_MIN below vector_below (0: never), rep
 * movsb from movsb_from (SIZE_MAX: never), glibc the rest; and from where
 * the loop asks for the destination's lines ahead (COPY_PREFETCH_MIN, or
 * SIZE_MAX: never). */
static _Atomic size_t plan_vector_below, plan_movsb_from;
static _Atomic size_t plan_prefetch_from = SIZE_MAX;
static _Atomic int plan_made;

/* len >= 128 bytes between ranges that do not overlap.  The first 128
 * bytes go as they lie; then 128 at a time from the destination's first
 * 64-byte boundary (rewriting up to 63 bytes already written, with the
 * same values), so no store splits a cache line; then the last 128 again,
 * overlapping what the loop wrote, so there is no tail loop. */
__attribute__((target("avx2"))) static void
copy_avx2(char *dst, const char *src, size_t len) {
  size_t last = len - 128;
  size_t i = (size_t)(-(uintptr_t)dst & 63);
  if (i != 0)
    copy_avx2_128(dst, src);
  if (len >= atomic_load_explicit(&plan_prefetch_from, memory_order_relaxed)) {
    /* Never asks for a line past the destination's end. */
    for (size_t stop = last - COPY_PREFETCH_AHEAD; i < stop; i += 128) {
      _mm_prefetch(dst + i + COPY_PREFETCH_AHEAD, _MM_HINT_T0);
      _mm_prefetch(dst + i + COPY_PREFETCH_AHEAD + 64, _MM_HINT_T0);
      copy_avx2_128(dst + i, src + i);
    }
  }
  for (; i < last; i += 128)
    copy_avx2_128(dst + i, src + i);
  copy_avx2_128(dst + last, src + last);
  _mm256_zeroupper();
}

int hc_copy_vector_usable(void) { return __builtin_cpu_supports("avx2"); }

static void copy_plan_make(void);

void hc_copy_vector(void *dst, const void *src, size_t len) {
  if (!atomic_load_explicit(&plan_made, memory_order_acquire))
    copy_plan_make();
  if (hc_copy_vector_usable())
    copy_avx2(dst, src, len);
  else
    memmove(dst, src, len);
}

/* Where the loop pays: on AMD family 25 rep movsb's start-up is ~18
 * cycles of a 4 KiB copy (rma19g), and glibc's rep movsb, which it takes
 * from 2112 bytes to 512 KiB, runs at 2-3 GB/s instead of ~50 when the
 * destination lies 1-63 bytes past the source modulo 4 KiB (a Get from a
 * page-aligned window into a buffer 16 bytes into a page, as a large
 * malloc returns; get24), where the loop keeps 37-89 GB/s.  On Intel
 * (family 6 model 167, rma20) glibc is as fast from 2 to 16 KiB, and
 * copies of 64 KiB by rep movsb after a run of the loop's were ~7 %
 * slower (bench/NOTES.md); the short distances were not measured there.
 * On AMD family 26 (Zen 5) only below COPY_GLIBC_FROM_ZEN5: from there
 * glibc's copies into lines another core last read ran 1.5-4x the
 * loop's (why is not known: rep movsb may skip fetching lines it
 * overwrites whole), its copies out of lines another core wrote as fast
 * or up to 1.4x, and its copies within the caches from 32 KiB to 1 MiB
 * 1.2-1.7x at every distance tried; in MPI, Get and Put of 64 KiB
 * between a window and a buffer 28-38 % faster, 256 KiB 6-10 %, shm
 * ping-pong and bandwidth level.  Below it the loop stays: 4 and 8 KiB
 * ping-pongs read 15-35 % slower without it in two loaded sets
 * (bench/NOTES.md, "Lead, twenty-fifth session"). */
#define COPY_GLIBC_FROM_ZEN5 ((size_t)16 << 10)
/* From here AMD family 26 (Zen 5) copies by rep movsb itself: glibc (2.36)
 * stops taking rep movsb at its rep_movsb_stop_threshold, the L2's size
 * there (1 MiB), and copies larger ones with its vector loop, which ran
 * 1-4 MiB out of a shared mapping into private memory at 45-59 GB/s
 * where rep movsb ran 54-69 (+5 % with source and destination at
 * different offsets mod 64, +15-25 % at the same), and never slower at
 * any alignment tried (bench/NOTES.md, movsb27).  Only with ERMS, which
 * every family 26 part has. */
#define COPY_MOVSB_FROM_ZEN5 ((size_t)1 << 20)

static int cpu_has_erms(void) {
  unsigned eax, ebx, ecx, edx;
  return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) &&
         (ebx & (1u << 9)) != 0;
}

static void copy_plan_make(void) {
  int amd = __builtin_cpu_is("amd");
  unsigned family = amd ? hc_cpu_family() : 0;
  size_t below = !amd || !hc_copy_vector_usable() ? 0
                 : family >= 26                   ? COPY_GLIBC_FROM_ZEN5
                                                  : SIZE_MAX;
  size_t movsb =
      family >= 26 && cpu_has_erms() ? COPY_MOVSB_FROM_ZEN5 : SIZE_MAX;
  size_t prefetch = family == 25 && !__builtin_cpu_supports("avx512f")
                        ? COPY_PREFETCH_MIN
                        : SIZE_MAX;
  atomic_store_explicit(&plan_prefetch_from, prefetch, memory_order_relaxed);
  atomic_store_explicit(&plan_vector_below, below, memory_order_relaxed);
  atomic_store_explicit(&plan_movsb_from, movsb, memory_order_relaxed);
  atomic_store_explicit(&plan_made, 1, memory_order_release);
}

static void copy_movsb(void *dst, const void *src, size_t len) {
  __asm__ volatile("rep movsb"
                   : "+D"(dst), "+S"(src), "+c"(len)
                   :
                   : "memory");
}

void hc_copy_host(void *dst, const void *src, size_t len) {
  uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
  int apart = d + len <= s || s + len <= d;
  if (len >= HC_COPY_VECTOR_MIN && apart) {
    if (!atomic_load_explicit(&plan_made, memory_order_acquire))
      copy_plan_make();
    if (len < atomic_load_explicit(&plan_vector_below, memory_order_relaxed)) {
      hc_copy_vector(dst, src, len);
      return;
    }
    if (len >= atomic_load_explicit(&plan_movsb_from, memory_order_relaxed)) {
      copy_movsb(dst, src, len);
      return;
    }
  }
  memmove(dst, src, len);
}

/* Plain stores up to dst's first 16-byte boundary (a piece after an
 * odd-sized one starts anywhere), 16-byte non-temporal stores from there,
 * plain stores for the last 0-15 bytes; unaligned loads, so the source
 * lies anywhere.  Plain and non-temporal stores into one line stay
 * correct (a core keeps its own stores to one address in order); only the
 * boundary lines pay. */
void hc_copy_stream(void *dst, const void *src, size_t len) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  size_t at = (size_t)(-(uintptr_t)d & 15);
  if (at > len)
    at = len;
  memcpy(d, s, at);
  for (; len - at >= 64; at += 64) {
    __m128i a = _mm_loadu_si128((const __m128i *)(s + at));
    __m128i b = _mm_loadu_si128((const __m128i *)(s + at + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(s + at + 32));
    __m128i e = _mm_loadu_si128((const __m128i *)(s + at + 48));
    _mm_stream_si128((__m128i *)(d + at), a);
    _mm_stream_si128((__m128i *)(d + at + 16), b);
    _mm_stream_si128((__m128i *)(d + at + 32), c);
    _mm_stream_si128((__m128i *)(d + at + 48), e);
  }
  for (; len - at >= 16; at += 16)
    _mm_stream_si128((__m128i *)(d + at),
                     _mm_loadu_si128((const __m128i *)(s + at)));
  memcpy(d + at, s + at, len - at);
}

/* x86 keeps ordinary stores in program order (TSO), so a release store
 * orders them; non-temporal ones may become visible after it, and sfence
 * orders them too. */
void hc_copy_stream_fence(void) { _mm_sfence(); }

#else

int hc_copy_vector_usable(void) { return 0; }

void hc_copy_stream(void *dst, const void *src, size_t len) {
  memcpy(dst, src, len);
}

void hc_copy_stream_fence(void) {}

void hc_copy_vector(void *dst, const void *src, size_t len) {
  memmove(dst, src, len);
}

void hc_copy_host(void *dst, const void *src, size_t len) {
  memmove(dst, src, len);
}

#endif
