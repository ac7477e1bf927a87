/*
 * src/util/copy: hc_copy_host copies exactly len bytes, as memmove does,
 * at every length around the vector loop's bounds (2 KiB; 256 KiB, where
 * it starts asking for the destination's lines ahead, and 2 KiB before
 * the end, where it stops), its 128-byte steps, 16 KiB (from where AMD's
 * family 26 leaves copies to glibc) and 1 MiB (from where family 26
 * copies by rep movsb) up to 4 MiB, from and to every
 * alignment mod 64 (where the loop first aligns its stores), and at every
 * short distance of the destination past the source mod 4 KiB (which the
 * loop takes from glibc's rep movsb on AMD), touching nothing around the
 * destination; and ranges that overlap either way come out as memmove
 * leaves them.  The loop itself (hc_copy_vector), which
 * hc_copy_host takes on some CPUs only, is held to the same where this
 * CPU runs it, from 128 bytes up.  hc_copy_stream (non-temporal stores
 * from the destination's first 16-byte boundary, plain stores at either
 * end) copies exactly len bytes from and to every alignment mod 16.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/copy.h"

#define COPY_ROOM 4300000 /* past the largest length and offset tested */
#define COPY_GUARD 64

static unsigned char copy_byte(size_t i, unsigned seed) {
  return (unsigned char)((i * 131u + seed * 7u + (i >> 8)) & 0xff);
}

typedef void (*copy_fn)(void *dst, const void *src, size_t len);

/* 1 when every byte of p[0, n) is the fill byte. */
static int copy_untouched(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != 0x5a)
      return 0;
  return 1;
}

/* Copies len bytes from src + soff to dst + doff by copy, then checks
 * every byte of the destination area and the guards either side of it.
 * Only the bytes a call can reach are reset and read, so the 4 MiB
 * lengths do not make the short ones slow (under ASan above all). */
static void copy_check_by(copy_fn copy, size_t len, size_t soff, size_t doff) {
  /* Both page-aligned, so the distance of dst + at past src + soff mod
   * 4 KiB is COPY_GUARD + doff - soff. */
  static _Alignas(4096) unsigned char src[COPY_ROOM];
  static _Alignas(4096) unsigned char dst[COPY_ROOM + 2 * COPY_GUARD];
  static int src_filled;
  if (!src_filled) {
    for (size_t i = 0; i < sizeof src; i++)
      src[i] = copy_byte(i, 1);
    src_filled = 1;
  }
  size_t at = COPY_GUARD + doff, end = at + len + COPY_GUARD;
  ck_assert(soff + len <= sizeof src && end <= sizeof dst);
  memset(dst, 0x5a, end);
  copy(dst + at, src + soff, len);
  ck_assert_msg(copy_untouched(dst, at),
                "len %zu doff %zu: a byte before the copy changed", len, doff);
  ck_assert_msg(memcmp(dst + at, src + soff, len) == 0,
                "len %zu soff %zu doff %zu: bytes differ", len, soff, doff);
  ck_assert_msg(copy_untouched(dst + at + len, COPY_GUARD),
                "len %zu doff %zu: a byte after the copy changed", len, doff);
}

/* The same by hc_copy_host and, from 128 bytes where this CPU runs it, by
 * the loop. */
static void copy_check(size_t len, size_t soff, size_t doff) {
  copy_check_by(hc_copy_host, len, soff, doff);
  if (len >= 128 && hc_copy_vector_usable())
    copy_check_by(hc_copy_vector, len, soff, doff);
}

static void copy_stream_fenced(void *dst, const void *src, size_t len) {
  hc_copy_stream(dst, src, len);
  hc_copy_stream_fence();
}

START_TEST(test_stream_every_alignment) {
  static const size_t lens[] = {0,  1,  15,  16,  17,  31,   63,   64,
                                65, 79, 127, 128, 129, 4095, 4096, 65537};
  static const size_t soffs[] = {0, 1, 7, 8, 15};
  for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
    for (size_t s = 0; s < sizeof soffs / sizeof soffs[0]; s++)
      for (size_t doff = 0; doff <= 16; doff++)
        copy_check_by(copy_stream_fenced, lens[l], soffs[s], doff);
}
END_TEST

START_TEST(test_lengths_around_bounds) {
  static const size_t lens[] = {
      1,      31,     32,      127,     128,     129,    2047,   2048,   2049,
      2111,   2112,   2175,    2176,    2177,    4095,   4096,   4097,   4100,
      8192,   12288,  16255,   16256,   16383,   16384,  16385,  16511,  19000,
      32767,  32768,  32769,   65536,   262143,  262144, 262145, 262271, 264320,
      264321, 270000, 1048575, 1048576, 1048577, 1048703};
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
    copy_check(lens[i], 0, 0);
}
END_TEST

START_TEST(test_every_alignment) {
  for (size_t soff = 0; soff < 64; soff += 7)
    for (size_t doff = 0; doff < 64; doff += 5) {
      copy_check(4096, soff, doff);
      copy_check(2048 + 3 * soff + doff, soff, doff);
      copy_check(16384 - soff, soff, doff);
      copy_check(262144 + 3 * soff + doff, soff, doff);
    }
}
END_TEST

/* rep movsb's range on AMD family 26, at the source's and the
 * destination's offsets mod 64 alike and apart. */
START_TEST(test_large_alignments) {
  static const size_t lens[] = {1048575, 1048576, 1048577, 2097152 + 129,
                                3145728 + 7, 4194304};
  static const size_t offs[][2] = {{0, 0}, {0, 16}, {8, 0}, {40, 8}, {63, 1}};
  for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
    for (size_t o = 0; o < sizeof offs / sizeof offs[0]; o++)
      copy_check(lens[l], offs[o][0], offs[o][1]);
}
END_TEST

/* The destination 0-63 bytes past the source mod 4 KiB (soff =
 * COPY_GUARD + doff - dist), below and above the length where the loop
 * asks for lines ahead, with the destination on a line boundary or not. */
START_TEST(test_short_distances) {
  for (size_t dist = 0; dist < 64; dist += 3) {
    copy_check(65536 + 100, COPY_GUARD - dist, 0);
    copy_check(262144 + 4096, COPY_GUARD - dist, 0);
    copy_check(262144 + 77, COPY_GUARD + 24 - dist, 24);
  }
}
END_TEST

/* Both directions of overlap, at lengths the vector loop would take were
 * the ranges apart. */
START_TEST(test_overlap_is_memmove) {
  static const size_t shifts[] = {1, 32, 100, 2048};
  static unsigned char got[3 * 8192], want[3 * 8192];
  for (size_t k = 0; k < sizeof shifts / sizeof shifts[0]; k++)
    for (int up = 0; up < 2; up++) {
      size_t len = 4096 + 8 * k, from = 8192,
             to = up ? from + shifts[k] : from - shifts[k];
      for (size_t i = 0; i < sizeof got; i++)
        got[i] = want[i] = copy_byte(i, 3);
      memmove(want + to, want + from, len);
      hc_copy_host(got + to, got + from, len);
      ck_assert_msg(memcmp(got, want, sizeof got) == 0,
                    "shift %zu %s: not what memmove leaves", shifts[k],
                    up ? "up" : "down");
    }
}
END_TEST

static Suite *copy_suite(void) {
  Suite *s = suite_create("copy");
  TCase *tc = tcase_create("host");
  tcase_add_test(tc, test_lengths_around_bounds);
  tcase_add_test(tc, test_every_alignment);
  tcase_add_test(tc, test_large_alignments);
  tcase_add_test(tc, test_short_distances);
  tcase_add_test(tc, test_overlap_is_memmove);
  tcase_add_test(tc, test_stream_every_alignment);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(copy_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
