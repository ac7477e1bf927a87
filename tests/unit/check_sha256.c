/*
 * src/util/sha256: the FIPS 180-2 appendix B examples (one block, two
 * blocks, a million 'a's), padding edges around 55/56/64 bytes against a
 * split-update digest, and the RFC 4231 HMAC-SHA256 test cases 1-4, 6, 7
 * (case 5 is a truncated output, which the transport never uses).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sha256.h"

static void hex_to(const char *hex, unsigned char *out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned v = 0;
    sscanf(hex + 2 * i, "%2x", &v);
    out[i] = (unsigned char)v;
  }
}

static void expect_digest(const unsigned char *got, const char *hex) {
  unsigned char want[HC_SHA256_BYTES];
  ck_assert_uint_eq(strlen(hex), 2 * HC_SHA256_BYTES);
  hex_to(hex, want, sizeof want);
  ck_assert_mem_eq(got, want, HC_SHA256_BYTES);
}

START_TEST(test_fips_one_block) {
  unsigned char d[HC_SHA256_BYTES];
  hc_sha256("abc", 3, d);
  expect_digest(d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
END_TEST

START_TEST(test_fips_two_blocks) {
  unsigned char d[HC_SHA256_BYTES];
  const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  hc_sha256(m, strlen(m), d);
  expect_digest(d, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
END_TEST

START_TEST(test_fips_million_a) {
  unsigned char d[HC_SHA256_BYTES], chunk[1000];
  hc_sha256_t s;
  memset(chunk, 'a', sizeof chunk);
  hc_sha256_init(&s);
  for (int i = 0; i < 1000; i++)
    hc_sha256_update(&s, chunk, sizeof chunk);
  hc_sha256_final(&s, d);
  expect_digest(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

START_TEST(test_empty) {
  unsigned char d[HC_SHA256_BYTES];
  hc_sha256("", 0, d);
  expect_digest(d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
END_TEST

/* Lengths around the padding boundaries: byte-at-a-time updates give the
 * same digest as one update. */
START_TEST(test_split_updates_agree) {
  unsigned char msg[130], one[HC_SHA256_BYTES], split[HC_SHA256_BYTES];
  for (size_t i = 0; i < sizeof msg; i++)
    msg[i] = (unsigned char)(i * 13 + 5);
  for (size_t len = 50; len <= sizeof msg; len++) {
    hc_sha256_t s;
    hc_sha256(msg, len, one);
    hc_sha256_init(&s);
    for (size_t i = 0; i < len; i++)
      hc_sha256_update(&s, msg + i, 1);
    hc_sha256_final(&s, split);
    ck_assert_mem_eq(one, split, HC_SHA256_BYTES);
  }
}
END_TEST

static void expect_hmac(const void *key, size_t klen, const void *msg, size_t mlen,
                        const char *hex) {
  unsigned char d[HC_SHA256_BYTES];
  hc_hmac_sha256(key, klen, msg, mlen, d);
  expect_digest(d, hex);
}

START_TEST(test_rfc4231_case1) {
  unsigned char key[20];
  memset(key, 0x0b, sizeof key);
  expect_hmac(key, sizeof key, "Hi There", 8,
              "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}
END_TEST

START_TEST(test_rfc4231_case2) {
  const char *m = "what do ya want for nothing?";
  expect_hmac("Jefe", 4, m, strlen(m),
              "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}
END_TEST

START_TEST(test_rfc4231_case3) {
  unsigned char key[20], msg[50];
  memset(key, 0xaa, sizeof key);
  memset(msg, 0xdd, sizeof msg);
  expect_hmac(key, sizeof key, msg, sizeof msg,
              "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
}
END_TEST

START_TEST(test_rfc4231_case4) {
  unsigned char key[25], msg[50];
  for (int i = 0; i < 25; i++)
    key[i] = (unsigned char)(i + 1);
  memset(msg, 0xcd, sizeof msg);
  expect_hmac(key, sizeof key, msg, sizeof msg,
              "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
}
END_TEST

START_TEST(test_rfc4231_case6_long_key) {
  unsigned char key[131];
  const char *m = "Test Using Larger Than Block-Size Key - Hash Key First";
  memset(key, 0xaa, sizeof key);
  expect_hmac(key, sizeof key, m, strlen(m),
              "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}
END_TEST

START_TEST(test_rfc4231_case7_long_key_and_data) {
  unsigned char key[131];
  const char *m = "This is a test using a larger than block-size key and a larger than "
                  "block-size data. The key needs to be hashed before being used by "
                  "the HMAC algorithm.";
  memset(key, 0xaa, sizeof key);
  expect_hmac(key, sizeof key, m, strlen(m),
              "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}
END_TEST

START_TEST(test_equal_ct) {
  unsigned char a[32] = {1, 2, 3}, b[32] = {1, 2, 3};
  ck_assert_int_eq(hc_bytes_equal_ct(a, b, sizeof a), 1);
  b[31] = 9;
  ck_assert_int_eq(hc_bytes_equal_ct(a, b, sizeof a), 0);
  ck_assert_int_eq(hc_bytes_equal_ct(a, b, 31), 1);
}
END_TEST

static Suite *sha256_suite(void) {
  Suite *s = suite_create("sha256");
  TCase *tc = tcase_create("vectors");
  tcase_add_test(tc, test_fips_one_block);
  tcase_add_test(tc, test_fips_two_blocks);
  tcase_add_test(tc, test_fips_million_a);
  tcase_add_test(tc, test_empty);
  tcase_add_test(tc, test_split_updates_agree);
  tcase_add_test(tc, test_rfc4231_case1);
  tcase_add_test(tc, test_rfc4231_case2);
  tcase_add_test(tc, test_rfc4231_case3);
  tcase_add_test(tc, test_rfc4231_case4);
  tcase_add_test(tc, test_rfc4231_case6_long_key);
  tcase_add_test(tc, test_rfc4231_case7_long_key_and_data);
  tcase_add_test(tc, test_equal_ct);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(sha256_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
