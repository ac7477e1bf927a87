/* Small copies and clears on the message-rate paths, inlined where a call
 * of memcpy or a rep stosq would cost more than the work. */
#ifndef HC_UTIL_SMALLMEM_H
#define HC_UTIL_SMALLMEM_H

#include <stddef.h>
#include <string.h>

/* memset(p, 0, n) for a constant n of a few hundred bytes at most, in
 * pieces of 64 bytes: GCC 12 (x86-64, generic tuning) turns a constant
 * memset of more than 64 bytes into `rep stosq`, whose start-up costs
 * tens of cycles (and one counted instruction per 8 bytes), where pieces
 * of 64 bytes become a few 16-byte vector stores.  A request's reset
 * clears 88 (face) and 184 (engine) bytes on every MPI_Irecv. */
__attribute__((always_inline)) static inline void hc_zero_small(void *p,
                                                                size_t n) {
  char *c = p;
  for (; n >= 64; n -= 64, c += 64)
    memset(c, 0, 64);
  memset(c, 0, n);
}

/* memcpy(dst, src, len) that copies up to 32 bytes (a short packet's
 * 16-byte header, a small payload) by two fixed-size moves that may
 * overlap, which the compiler inlines: a call of memcpy costs more than
 * such a copy (two calls were ~22 instructions of every 8-byte send). */
__attribute__((always_inline)) static inline void
hc_copy_small(void *dst_, const void *src_, size_t len) {
  unsigned char *dst = dst_;
  const unsigned char *src = src_;
  if (len > 32) {
    memcpy(dst, src, len);
  } else if (len >= 16) {
    memcpy(dst, src, 16);
    memcpy(dst + len - 16, src + len - 16, 16);
  } else if (len >= 8) {
    memcpy(dst, src, 8);
    memcpy(dst + len - 8, src + len - 8, 8);
  } else if (len >= 4) {
    memcpy(dst, src, 4);
    memcpy(dst + len - 4, src + len - 4, 4);
  } else if (len > 0) {
    dst[0] = src[0];
    dst[len / 2] = src[len / 2];
    dst[len - 1] = src[len - 1];
  }
}

#endif /* HC_UTIL_SMALLMEM_H */
