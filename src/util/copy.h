/* Copies of host memory where glibc's memcpy is not the best choice. */
#ifndef HC_UTIL_COPY_H
#define HC_UTIL_COPY_H

#include <stddef.h>

/* memmove(dst, src, len), with copies of 2 to 16 KiB between ranges that
 * do not overlap done by hc_copy_vector where that pays, on AMD CPUs with
 * AVX2: glibc (2.36) hands copies from 2112 bytes up to `rep movsb` on
 * CPUs with fast short rep moves, whose start-up costs ~18 cycles there,
 * 15 % of a 4 KiB copy in L1 (bench/NOTES.md, rma19g); not on Intel's
 * (rma20).  Larger copies gain nothing from the loop and stay with
 * glibc. */
void hc_copy_host(void *dst, const void *src, size_t len);
/* 1 where the CPU runs hc_copy_vector's loop (AVX2). */
int hc_copy_vector_usable(void);
/* The loop: len >= 128 bytes, 128 at a time, between ranges that do not
 * overlap; where it is not usable, memmove. */
void hc_copy_vector(void *dst, const void *src, size_t len);

#endif /* HC_UTIL_COPY_H */
