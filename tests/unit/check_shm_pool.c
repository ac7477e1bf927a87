/*
 * The sender-owned cell pool on plain memory: shapes, fill and release,
 * exhaustion and reuse, demoting a filled cell, the checks a destination makes
 * on an index it was handed, reclaiming a dead destination's cells, the waiting
 * flag, fills past the cache (non-temporal stores) of any iov layout, and a
 * forked owner streaming 50k cells to a consumer through a MAP_SHARED mapping
 * (indices passed through a pipe) with every byte checked, with plain and
 * with non-temporal fills.
 */
#include <check.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "transport/shm/shm_pool.h"

#define CELL 512
#define NCELLS 4

static void *pool_region(size_t cell, uint32_t ncells) {
  size_t bytes = hc_shm_pool_bytes(cell, ncells);
  ck_assert_uint_gt(bytes, 0);
  void *mem = aligned_alloc(64, bytes);
  ck_assert_ptr_nonnull(mem);
  ck_assert_int_eq(hc_shm_pool_format(mem, cell, ncells), HC_OK);
  return mem;
}

static hc_status_t fill_u32(hc_shm_pool_t *pool, uint32_t dest, uint32_t v,
                            uint32_t *index) {
  struct iovec iov = {&v, sizeof v};
  return hc_shm_pool_fill(pool, dest, &iov, 1, index);
}

static uint32_t read_u32(hc_shm_pool_t *pool, uint32_t index, uint32_t dest) {
  const void *data = hc_shm_pool_data(pool, index, dest, sizeof(uint32_t));
  ck_assert_ptr_nonnull(data);
  uint32_t v;
  memcpy(&v, data, sizeof v);
  return v;
}

START_TEST(test_pool_rejects_bad_shapes) {
  ck_assert_uint_eq(hc_shm_pool_bytes(0, 4), 0);
  ck_assert_uint_eq(hc_shm_pool_bytes(64, 0), 0);
  ck_assert_uint_eq(hc_shm_pool_bytes(100, 3) % 64, 0);
  unsigned char garbage[1024] __attribute__((aligned(64)));
  memset(garbage, 0x5a, sizeof garbage);
  hc_shm_pool_t pool;
  ck_assert_int_eq(hc_shm_pool_attach(&pool, garbage), HC_ERR_ARG);
  ck_assert_int_eq(hc_shm_pool_format(garbage + 1, 64, 2), HC_ERR_ARG);
}
END_TEST

START_TEST(test_pool_full_returns_again_and_reuses_released_cells) {
  void *mem = pool_region(CELL, NCELLS);
  hc_shm_pool_t owner, reader;
  ck_assert_int_eq(hc_shm_pool_attach(&owner, mem), HC_OK);
  ck_assert_int_eq(hc_shm_pool_attach(&reader, mem), HC_OK);
  uint32_t idx[NCELLS], extra;
  for (uint32_t i = 0; i < NCELLS; i++)
    ck_assert_int_eq(fill_u32(&owner, 7, 100 + i, &idx[i]), HC_OK);
  for (uint32_t i = 0; i < NCELLS; i++)
    for (uint32_t j = i + 1; j < NCELLS; j++)
      ck_assert_uint_ne(idx[i], idx[j]);
  ck_assert_int_eq(hc_shm_pool_has_free(&owner), 0);
  ck_assert_int_eq(fill_u32(&owner, 7, 1, &extra), HC_ERR_AGAIN);
  ck_assert_uint_eq(read_u32(&reader, idx[2], 7), 102);
  hc_shm_pool_release(&reader, idx[2]);
  ck_assert_int_ne(hc_shm_pool_has_free(&owner), 0);
  ck_assert_int_eq(fill_u32(&owner, 7, 555, &extra), HC_OK);
  ck_assert_uint_eq(extra, idx[2]);
  ck_assert_uint_eq(read_u32(&reader, extra, 7), 555);
  ck_assert_uint_eq(read_u32(&reader, idx[0], 7), 100);
  free(mem);
}
END_TEST

START_TEST(test_pool_size_limit_and_gather) {
  void *mem = pool_region(CELL, NCELLS);
  hc_shm_pool_t owner;
  hc_shm_pool_attach(&owner, mem);
  unsigned char a[100], b[CELL - 100], big[CELL + 1];
  memset(a, 'a', sizeof a);
  memset(b, 'b', sizeof b);
  struct iovec two[2] = {{a, sizeof a}, {b, sizeof b}};
  uint32_t index;
  ck_assert_int_eq(hc_shm_pool_fill(&owner, 1, two, 2, &index), HC_OK);
  const unsigned char *got = hc_shm_pool_data(&owner, index, 1, CELL);
  ck_assert_ptr_nonnull(got);
  ck_assert_int_eq(memcmp(got, a, sizeof a), 0);
  ck_assert_int_eq(memcmp(got + sizeof a, b, sizeof b), 0);
  struct iovec one = {big, sizeof big};
  ck_assert_int_eq(hc_shm_pool_fill(&owner, 1, &one, 1, &index), HC_ERR_ARG);
  free(mem);
}
END_TEST

#define LAYOUT_CELL 4096
#define LAYOUT_STREAM_MIN 300

/* Splits len bytes into pieces lengths (the last takes the rest); odd
 * lengths, some 0, some under 16, so pieces after the first start at any
 * alignment in the cell. */
static void layout_split(size_t len, int pieces, size_t *lengths) {
  size_t left = len;
  for (int i = 0; i < pieces - 1; i++) {
    size_t want = (size_t)(i * 13 + 5) % 97 + (size_t)(i % 3 == 2) * 211;
    lengths[i] = want < left ? want : left;
    left -= lengths[i];
  }
  lengths[pieces - 1] = left;
}

/* Fills past the cache (hc_shm_pool_set_stream_min) hold the same bytes a
 * plain fill would: 1, 2 and 7 pieces, the sources at odd offsets, totals
 * below, at and above 64 and the threshold, up to a full cell; a cell
 * holding another fill's bytes before, so a byte left unwritten shows.
 * Below the threshold the plain copy runs, at and above it the stream. */
START_TEST(test_pool_nontemporal_fills_keep_every_byte_of_any_layout) {
  void *mem = pool_region(LAYOUT_CELL, 2);
  hc_shm_pool_t owner, reader;
  hc_shm_pool_attach(&owner, mem);
  hc_shm_pool_attach(&reader, mem);
  hc_shm_pool_set_stream_min(&owner, LAYOUT_STREAM_MIN);
  /* Around 16, 64, 128, the threshold (300) and the cell (4096). */
  static const size_t totals[] = {0,    1,    15,   16,   17,  63,  64,
                                  65,   127,  128,  129,  299, 300, 301,
                                  1000, 1023, 2049, 4095, 4096};
  _Static_assert(LAYOUT_STREAM_MIN == 300 && LAYOUT_CELL == 4096,
                 "totals straddle the threshold and fill a cell");
  static const int layouts[] = {1, 2, 7};
  static unsigned char source[LAYOUT_CELL + 64], want[LAYOUT_CELL];
  uint32_t round = 0;
  for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++)
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
      for (size_t offset = 0; offset < 18; offset += 3) {
        size_t total = totals[t], lengths[7];
        int pieces = layouts[l];
        layout_split(total, pieces, lengths);
        round++;
        for (size_t i = 0; i < sizeof source; i++)
          source[i] = (unsigned char)(i * 31 + round * 7);
        struct iovec iov[7];
        size_t at = offset, into = 0;
        for (int i = 0; i < pieces; i++) {
          /* Each piece from its own odd offset: a gap of i + 1 bytes. */
          iov[i].iov_base = source + at;
          iov[i].iov_len = lengths[i];
          memcpy(want + into, source + at, lengths[i]);
          into += lengths[i];
          at += lengths[i] + (i + 1 < pieces && into < total ? 1 : 0);
        }
        ck_assert_uint_le(at, sizeof source);
        uint32_t index;
        ck_assert_int_eq(hc_shm_pool_fill(&owner, 3, iov, pieces, &index),
                         HC_OK);
        const unsigned char *got = hc_shm_pool_data(&reader, index, 3, total);
        ck_assert_ptr_nonnull(got);
        ck_assert_msg(memcmp(got, want, total) == 0,
                      "total %zu, %d pieces, source offset %zu", total, pieces,
                      offset);
        hc_shm_pool_release(&reader, index);
      }
  /* 0 turns it off again (the setter's contract; the bytes of plain fills
   * are the other tests'). */
  hc_shm_pool_set_stream_min(&owner, 0);
  ck_assert_uint_eq(owner.stream_min, 0);
  free(mem);
}
END_TEST

/* Demoting a filled cell (a hint to the caches, a NOP on CPUs without
 * CLDEMOTE) leaves it as it was, for every length up to a full cell, and
 * ignores an index or a length past the pool; so does asking for the next
 * cell's lines (the AMD profile's hint in its place), which also leaves
 * the next fill its cell. */
START_TEST(test_pool_demote_and_prefetch_leave_every_length_intact) {
  void *mem = pool_region(CELL, NCELLS);
  hc_shm_pool_t owner, reader;
  hc_shm_pool_attach(&owner, mem);
  hc_shm_pool_attach(&reader, mem);
  unsigned char sent[CELL];
  for (size_t len = 0; len <= CELL; len++) {
    for (size_t i = 0; i < len; i++)
      sent[i] = (unsigned char)(len * 7 + i);
    struct iovec one = {sent, len};
    uint32_t index;
    ck_assert_int_eq(hc_shm_pool_fill(&owner, 2, &one, 1, &index), HC_OK);
    hc_shm_pool_demote(&owner, index, len);
    hc_shm_pool_demote(&owner, NCELLS, len);
    hc_shm_pool_demote(&owner, index, CELL + 1);
    hc_shm_pool_prefetch_next(&owner, len);
    hc_shm_pool_prefetch_next(&owner, CELL + 1);
    ck_assert_uint_eq(owner.next, (index + 1) % NCELLS);
    const unsigned char *got = hc_shm_pool_data(&reader, index, 2, len);
    ck_assert_ptr_nonnull(got);
    ck_assert_int_eq(memcmp(got, sent, len), 0);
    hc_shm_pool_release(&reader, index);
  }
  free(mem);
}
END_TEST

/* What another process hands a destination is checked before use. */
START_TEST(test_pool_data_refuses_what_was_not_sent_to_me) {
  void *mem = pool_region(CELL, NCELLS);
  hc_shm_pool_t owner, reader;
  hc_shm_pool_attach(&owner, mem);
  hc_shm_pool_attach(&reader, mem);
  uint32_t index;
  ck_assert_int_eq(fill_u32(&owner, 3, 42, &index), HC_OK);
  ck_assert_ptr_null(hc_shm_pool_data(&reader, NCELLS, 3, 4));
  ck_assert_ptr_null(hc_shm_pool_data(&reader, UINT32_MAX, 3, 4));
  ck_assert_ptr_null(hc_shm_pool_data(&reader, index, 4, 4));
  ck_assert_ptr_null(hc_shm_pool_data(&reader, index, 3, 5));
  ck_assert_ptr_null(hc_shm_pool_data(&reader, index, 3, CELL + 1));
  ck_assert_ptr_null(hc_shm_pool_data(&reader, (index + 1) % NCELLS, 3, 4));
  ck_assert_uint_eq(read_u32(&reader, index, 3), 42);
  hc_shm_pool_release(&reader, index);
  ck_assert_ptr_null(hc_shm_pool_data(&reader, index, 3, 4));
  free(mem);
}
END_TEST

START_TEST(test_pool_reclaims_only_a_dead_destinations_cells) {
  void *mem = pool_region(CELL, NCELLS);
  hc_shm_pool_t owner;
  hc_shm_pool_attach(&owner, mem);
  uint32_t i0, i1, i2, i3;
  fill_u32(&owner, 1, 10, &i0);
  fill_u32(&owner, 2, 20, &i1);
  fill_u32(&owner, 1, 11, &i2);
  fill_u32(&owner, 2, 21, &i3);
  ck_assert_uint_eq(hc_shm_pool_reclaim(&owner, 1), 2);
  ck_assert_ptr_null(hc_shm_pool_data(&owner, i0, 1, 4));
  ck_assert_ptr_null(hc_shm_pool_data(&owner, i2, 1, 4));
  ck_assert_uint_eq(read_u32(&owner, i1, 2), 20);
  ck_assert_uint_eq(read_u32(&owner, i3, 2), 21);
  ck_assert_uint_eq(hc_shm_pool_reclaim(&owner, 1), 0);
  free(mem);
}
END_TEST

START_TEST(test_pool_waiting_flag_is_taken_once) {
  void *mem = pool_region(CELL, NCELLS);
  hc_shm_pool_t owner, reader;
  hc_shm_pool_attach(&owner, mem);
  hc_shm_pool_attach(&reader, mem);
  ck_assert_int_eq(hc_shm_pool_take_waiting(&reader), 0);
  hc_shm_pool_set_waiting(&owner);
  ck_assert_int_ne(hc_shm_pool_take_waiting(&reader), 0);
  ck_assert_int_eq(hc_shm_pool_take_waiting(&reader), 0);
  free(mem);
}
END_TEST

#define STREAM_COUNT 50000u

/* A payload whose bytes depend on the sequence number and a varying size. */
static size_t stream_fill(unsigned char *buf, uint32_t seq) {
  size_t len = 4 + (seq * 37u) % (CELL - 4);
  memcpy(buf, &seq, 4);
  for (size_t i = 4; i < len; i++)
    buf[i] = (unsigned char)(seq + i);
  return len;
}

static void stream_owner(void *mem, int wfd, size_t stream_min) {
  hc_shm_pool_t owner;
  if (hc_shm_pool_attach(&owner, mem) != HC_OK)
    _exit(2);
  hc_shm_pool_set_stream_min(&owner, stream_min);
  unsigned char buf[CELL];
  for (uint32_t seq = 0; seq < STREAM_COUNT; seq++) {
    struct iovec iov = {buf, stream_fill(buf, seq)};
    uint32_t msg[2];
    while (hc_shm_pool_fill(&owner, 9, &iov, 1, &msg[0]) == HC_ERR_AGAIN)
      sched_yield();
    msg[1] = (uint32_t)iov.iov_len;
    if (write(wfd, msg, sizeof msg) != sizeof msg)
      _exit(3);
  }
  _exit(0);
}

/* The owner in another process; with stream_min its fills of that many
 * bytes or more go past its cache, and their sfence must make every byte
 * visible before the index goes out. */
static void pool_forked_owner_streams_intact(size_t stream_min) {
  size_t bytes = hc_shm_pool_bytes(CELL, NCELLS);
  void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ck_assert_ptr_ne(mem, MAP_FAILED);
  ck_assert_int_eq(hc_shm_pool_format(mem, CELL, NCELLS), HC_OK);
  int fds[2];
  ck_assert_int_eq(pipe(fds), 0);
  pid_t child = fork();
  ck_assert_int_ge(child, 0);
  if (child == 0) {
    close(fds[0]);
    stream_owner(mem, fds[1], stream_min);
  }
  close(fds[1]);
  hc_shm_pool_t reader;
  ck_assert_int_eq(hc_shm_pool_attach(&reader, mem), HC_OK);
  unsigned char want[CELL];
  uint32_t msg[2], seq = 0;
  while (read(fds[0], msg, sizeof msg) == sizeof msg) {
    size_t len = stream_fill(want, seq);
    ck_assert_uint_eq(msg[1], len);
    const void *got = hc_shm_pool_data(&reader, msg[0], 9, len);
    ck_assert_ptr_nonnull(got);
    ck_assert_int_eq(memcmp(got, want, len), 0);
    hc_shm_pool_release(&reader, msg[0]);
    seq++;
  }
  ck_assert_uint_eq(seq, STREAM_COUNT);
  int status;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  ck_assert(WIFEXITED(status));
  ck_assert_int_eq(WEXITSTATUS(status), 0);
  close(fds[0]);
  munmap(mem, bytes);
}

START_TEST(test_pool_forked_owner_streams_50k_cells_intact) {
  pool_forked_owner_streams_intact(0);
}
END_TEST

START_TEST(test_pool_forked_owner_streams_50k_nontemporal_cells_intact) {
  pool_forked_owner_streams_intact(64);
}
END_TEST

static Suite *shm_pool_suite(void) {
  Suite *s = suite_create("shm_pool");
  TCase *tc = tcase_create("pool");
  tcase_set_timeout(tc, 180);
  tcase_add_test(tc, test_pool_rejects_bad_shapes);
  tcase_add_test(tc, test_pool_full_returns_again_and_reuses_released_cells);
  tcase_add_test(tc, test_pool_size_limit_and_gather);
  tcase_add_test(tc, test_pool_demote_and_prefetch_leave_every_length_intact);
  tcase_add_test(tc, test_pool_data_refuses_what_was_not_sent_to_me);
  tcase_add_test(tc, test_pool_reclaims_only_a_dead_destinations_cells);
  tcase_add_test(tc, test_pool_waiting_flag_is_taken_once);
  tcase_add_test(tc, test_pool_forked_owner_streams_50k_cells_intact);
  tcase_add_test(tc,
                 test_pool_forked_owner_streams_50k_nontemporal_cells_intact);
  tcase_add_test(tc, test_pool_nontemporal_fills_keep_every_byte_of_any_layout);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(shm_pool_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
