/* hc_copy_host: see copy.h. */
#include "util/copy.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* The sizes the vector loop takes; below, glibc copies with vectors too. */
#define COPY_VECTOR_MIN 2048
#define COPY_VECTOR_MAX 16384

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

/* len >= 128 bytes, 128 at a time, then the last 128 again (overlapping
 * what the loop wrote, so no tail loop): the ranges must not overlap. */
__attribute__((target("avx2"))) static void
copy_avx2(char *dst, const char *src, size_t len) {
  size_t last = len - 128;
  for (size_t i = 0; i < last; i += 128)
    copy_avx2_128(dst + i, src + i);
  copy_avx2_128(dst + last, src + last);
  _mm256_zeroupper();
}

int hc_copy_vector_usable(void) { return __builtin_cpu_supports("avx2"); }

void hc_copy_vector(void *dst, const void *src, size_t len) {
  if (hc_copy_vector_usable())
    copy_avx2(dst, src, len);
  else
    memmove(dst, src, len);
}

/* Where the loop pays: on AMD (family 25, rma19g) rep movsb's start-up is
 * ~18 cycles of a 4 KiB copy.  On Intel (family 6 model 167, rma20) glibc
 * is as fast from 2 to 16 KiB, and copies of 64 KiB by rep movsb after a
 * run of the loop's were ~7 % slower (bench/NOTES.md). */
static int copy_vector_pays(void) {
  return __builtin_cpu_is("amd") && hc_copy_vector_usable();
}

void hc_copy_host(void *dst, const void *src, size_t len) {
  uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
  int apart = d + len <= s || s + len <= d;
  if (len >= COPY_VECTOR_MIN && len <= COPY_VECTOR_MAX && apart &&
      copy_vector_pays()) {
    hc_copy_vector(dst, src, len);
    return;
  }
  memmove(dst, src, len);
}

#else

int hc_copy_vector_usable(void) { return 0; }

void hc_copy_vector(void *dst, const void *src, size_t len) {
  memmove(dst, src, len);
}

void hc_copy_host(void *dst, const void *src, size_t len) {
  memmove(dst, src, len);
}

#endif
