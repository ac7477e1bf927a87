/*
 * SHA-256 and HMAC-SHA256, written from FIPS 180-4 section 6.2 and
 * RFC 2104.  Tested against the FIPS 180-2 examples and the RFC 4231
 * vectors in tests/unit/check_sha256.c.
 */
#include "util/sha256.h"

#include <string.h>

static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t sha_rotr(uint32_t x, unsigned n) {
  return (x >> n) | (x << (32 - n));
}

static uint32_t sha_load_be(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         (uint32_t)p[3];
}

static void sha_store_be(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)(v >> 24);
  p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8);
  p[3] = (unsigned char)v;
}

static void sha_schedule(const unsigned char *block, uint32_t w[64]) {
  for (int i = 0; i < 16; i++)
    w[i] = sha_load_be(block + 4 * i);
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = sha_rotr(w[i - 15], 7) ^ sha_rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = sha_rotr(w[i - 2], 17) ^ sha_rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
}

static void sha_compress(uint32_t h[8], const unsigned char *block) {
  uint32_t w[64], v[8];
  sha_schedule(block, w);
  memcpy(v, h, sizeof v);
  for (int i = 0; i < 64; i++) {
    uint32_t s1 = sha_rotr(v[4], 6) ^ sha_rotr(v[4], 11) ^ sha_rotr(v[4], 25);
    uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
    uint32_t t1 = v[7] + s1 + ch + sha_k[i] + w[i];
    uint32_t s0 = sha_rotr(v[0], 2) ^ sha_rotr(v[0], 13) ^ sha_rotr(v[0], 22);
    uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
    memmove(v + 1, v, 7 * sizeof v[0]);
    v[4] += t1;
    v[0] = t1 + s0 + maj;
  }
  for (int i = 0; i < 8; i++)
    h[i] += v[i];
}

void hc_sha256_init(hc_sha256_t *s) {
  static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                 0xa54ff53a, 0x510e527f, 0x9b05688c,
                                 0x1f83d9ab, 0x5be0cd19};
  memcpy(s->h, iv, sizeof iv);
  s->total = 0;
  s->fill = 0;
}

void hc_sha256_update(hc_sha256_t *s, const void *data, size_t len) {
  const unsigned char *p = data;
  s->total += len;
  while (len > 0) {
    size_t n = HC_SHA256_BLOCK - s->fill;
    if (n > len)
      n = len;
    memcpy(s->block + s->fill, p, n);
    s->fill += n;
    p += n;
    len -= n;
    if (s->fill == HC_SHA256_BLOCK) {
      sha_compress(s->h, s->block);
      s->fill = 0;
    }
  }
}

void hc_sha256_final(hc_sha256_t *s, unsigned char out[HC_SHA256_BYTES]) {
  uint64_t bits = s->total * 8;
  unsigned char pad[HC_SHA256_BLOCK + 8] = {0x80};
  /* 0x80, zeros, then the 64-bit length ends a block. */
  size_t padlen = (s->fill < 56 ? 56 : 120) - s->fill;
  for (int i = 0; i < 8; i++)
    pad[padlen + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
  hc_sha256_update(s, pad, padlen + 8);
  for (int i = 0; i < 8; i++)
    sha_store_be(out + 4 * i, s->h[i]);
  memset(s, 0, sizeof *s);
}

void hc_sha256(const void *data, size_t len, unsigned char out[HC_SHA256_BYTES]) {
  hc_sha256_t s;
  hc_sha256_init(&s);
  hc_sha256_update(&s, data, len);
  hc_sha256_final(&s, out);
}

void hc_hmac_sha256(const void *key, size_t key_len, const void *msg,
                    size_t msg_len, unsigned char out[HC_SHA256_BYTES]) {
  unsigned char k[HC_SHA256_BLOCK] = {0}, pad[HC_SHA256_BLOCK];
  unsigned char inner[HC_SHA256_BYTES];
  hc_sha256_t s;
  if (key_len > HC_SHA256_BLOCK)
    hc_sha256(key, key_len, k);
  else if (key_len > 0)
    memcpy(k, key, key_len);
  for (int i = 0; i < HC_SHA256_BLOCK; i++)
    pad[i] = k[i] ^ 0x36;
  hc_sha256_init(&s);
  hc_sha256_update(&s, pad, sizeof pad);
  hc_sha256_update(&s, msg, msg_len);
  hc_sha256_final(&s, inner);
  for (int i = 0; i < HC_SHA256_BLOCK; i++)
    pad[i] = k[i] ^ 0x5c;
  hc_sha256_init(&s);
  hc_sha256_update(&s, pad, sizeof pad);
  hc_sha256_update(&s, inner, sizeof inner);
  hc_sha256_final(&s, out);
  memset(k, 0, sizeof k);
}

int hc_bytes_equal_ct(const void *a, const void *b, size_t n) {
  const volatile unsigned char *x = a, *y = b;
  unsigned char diff = 0;
  for (size_t i = 0; i < n; i++)
    diff |= (unsigned char)(x[i] ^ y[i]);
  return diff == 0;
}
