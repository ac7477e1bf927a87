/*
 * SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), enough for the tcp
 * transport's challenge-response; not tuned for bulk hashing.
 */
#ifndef HC_UTIL_SHA256_H
#define HC_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define HC_SHA256_BYTES 32
#define HC_SHA256_BLOCK 64

typedef struct hc_sha256 {
  uint32_t h[8];
  uint64_t total; /* bytes hashed so far */
  unsigned char block[HC_SHA256_BLOCK];
  size_t fill; /* bytes waiting in block */
} hc_sha256_t;

void hc_sha256_init(hc_sha256_t *s);
void hc_sha256_update(hc_sha256_t *s, const void *data, size_t len);
void hc_sha256_final(hc_sha256_t *s, unsigned char out[HC_SHA256_BYTES]);
/* One-shot digest of len bytes. */
void hc_sha256(const void *data, size_t len, unsigned char out[HC_SHA256_BYTES]);

/* HMAC-SHA256 of msg under key (any length). */
void hc_hmac_sha256(const void *key, size_t key_len, const void *msg,
                    size_t msg_len, unsigned char out[HC_SHA256_BYTES]);

/* Compares n bytes in time independent of where they differ; 1 if equal. */
int hc_bytes_equal_ct(const void *a, const void *b, size_t n);

#endif
