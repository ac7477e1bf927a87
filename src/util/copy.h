/* Copies of host memory where glibc's memcpy is not the best choice. */
#ifndef HC_UTIL_COPY_H
#define HC_UTIL_COPY_H

#include <stddef.h>
#include <string.h>

#include "util/smallmem.h"

/* Copies from here up are where glibc (2.36) may take `rep movsb` (from
 * 2112 bytes); hc_copy_host gives them to hc_copy_vector where that pays,
 * and below it glibc copies with vectors. */
#define HC_COPY_VECTOR_MIN 2048

/* memmove(dst, src, len), with copies of 2 KiB and more between ranges
 * that do not overlap done by hc_copy_vector where that pays, on AMD CPUs
 * with AVX2: glibc (2.36) hands copies from 2112 bytes to 512 KiB to `rep
 * movsb` on CPUs with fast short rep moves, whose start-up costs ~18
 * cycles there, 15 % of a 4 KiB copy in L1 (rma19g), and which runs at
 * 2-3 GB/s where the destination lies 1-63 bytes past the source modulo
 * 4 KiB (get24); on Zen 3 larger copies gain 5-9 % from the loop's
 * requests for the destination's lines (bench/NOTES.md), which Zen 4's
 * go without (copy29).  Not on Intel's (rma20), nor
 * from 16 KiB on AMD's family 26 (Zen 5), where glibc's is faster; there
 * copies from 1 MiB, which glibc gives to its vector loop, go to rep
 * movsb, 5-25 % faster (movsb27). */
void hc_copy_host(void *dst, const void *src, size_t len);
/* The copy of message payload between a user buffer and shared memory or
 * a queued message: below HC_COPY_VECTOR_MIN inlined as hc_copy_small
 * (the message-rate paths), from there hc_copy_host, since the two ends
 * lie at any distance modulo 4 KiB and glibc's rep movsb runs at 2-3 GB/s
 * at 1-63 bytes (bench/NOTES.md, alias24). */
__attribute__((always_inline)) static inline void
hc_copy_payload(void *dst, const void *src, size_t len) {
  /* The test of hc_copy_small's inline range (32 bytes) comes first, so an
   * 8-byte send still costs the one compare it did. */
  if (len <= 32)
    hc_copy_small(dst, src, len);
  else if (len < HC_COPY_VECTOR_MIN)
    memcpy(dst, src, len);
  else
    hc_copy_host(dst, src, len);
}
/* 1 where the CPU runs hc_copy_vector's loop (AVX2). */
int hc_copy_vector_usable(void);
/* The loop: len >= 128 bytes, 128 at a time with the stores on 64-byte
 * boundaries, between ranges that do not overlap; where it is not
 * usable, memmove. */
void hc_copy_vector(void *dst, const void *src, size_t len);

/* 1 where hc_copy_stream writes past the cache (x86-64: SSE2 is part of
 * the base instruction set); 0 where it is a plain memcpy. */
#if defined(__x86_64__) && defined(__GNUC__)
#define HC_COPY_STREAMS 1
#else
#define HC_COPY_STREAMS 0
#endif
/* memcpy(dst, src, len) between ranges that do not overlap, the stores
 * past this core's cache (non-temporal), for bytes another core reads
 * next: that core then fetches them from memory instead of from this
 * core's cache, and the next fill of the same lines takes none of them
 * back from it (shared-memory cells of a far pair, bench/NOTES.md nt29;
 * a collective's segment buffers beside other jobs, coll16e).  Any
 * alignment of either end.  Non-temporal stores are weakly ordered: call
 * hc_copy_stream_fence after the last copy and before the store that
 * publishes the bytes. */
void hc_copy_stream(void *dst, const void *src, size_t len);
/* Makes every store before it, non-temporal ones included, visible to
 * other cores before any store after it (x86's sfence; nothing where
 * hc_copy_stream is a memcpy, whose stores the publishing release store
 * already orders). */
void hc_copy_stream_fence(void);

#endif /* HC_UTIL_COPY_H */
