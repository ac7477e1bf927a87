/*
 * The SPSC ring on plain memory: order, wrap-around, full and empty, the
 * cell-size limit, and a forked producer streaming 100k packets through a
 * MAP_SHARED mapping to a consumer that checks every byte.  The full,
 * wrap-around and streaming tests run twice: the second time the producer
 * asks for the next cell's line after each push (prefetch_next, the AMD
 * profile's), which must change no byte and no answer, and the consumer
 * learns of cells from their published words (read_published, the AMD
 * profile's too).  Two tests check that word on its own: a cell whose
 * tail store is not seen yet, and a word left from the last lap.
 */
#include <check.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "transport/shm/shm_ring.h"

#define CELL 256
#define NCELLS 8

static void *ring_region(size_t cell, uint32_t ncells) {
  size_t bytes = hc_shm_ring_bytes(cell, ncells);
  ck_assert_uint_gt(bytes, 0);
  void *mem = aligned_alloc(HC_SHM_RING_ALIGN, bytes);
  ck_assert_ptr_nonnull(mem);
  ck_assert_int_eq(hc_shm_ring_format(mem, cell, ncells), HC_OK);
  return mem;
}

/* A formatted ring of NCELLS cells with a producer and a consumer view
 * attached to it, as the two ends of a shm pair see it. */
static void *ring_pair(hc_shm_ring_t *prod, hc_shm_ring_t *cons) {
  void *mem = ring_region(CELL, NCELLS);
  ck_assert_int_eq(hc_shm_ring_attach(prod, mem), HC_OK);
  ck_assert_int_eq(hc_shm_ring_attach(cons, mem), HC_OK);
  return mem;
}

static hc_status_t push_u32(hc_shm_ring_t *ring, uint32_t value) {
  struct iovec iov = {&value, sizeof value};
  return hc_shm_ring_push(ring, &iov, 1);
}

static uint32_t pop_u32(hc_shm_ring_t *ring) {
  size_t len = 0;
  const void *data = hc_shm_ring_peek(ring, &len);
  ck_assert_ptr_nonnull(data);
  ck_assert_uint_eq(len, sizeof(uint32_t));
  uint32_t value;
  memcpy(&value, data, sizeof value);
  hc_shm_ring_release(ring);
  return value;
}

START_TEST(test_ring_rejects_bad_shapes) {
  ck_assert_uint_eq(hc_shm_ring_bytes(0, 8), 0);
  ck_assert_uint_eq(hc_shm_ring_bytes(64, 1), 0);
  ck_assert_uint_eq(hc_shm_ring_bytes(64, 6), 0);
  ck_assert_uint_eq(hc_shm_ring_bytes(64, 8) % HC_SHM_RING_ALIGN, 0);
  unsigned char garbage[1024] __attribute__((aligned(64)));
  memset(garbage, 0x5a, sizeof garbage);
  hc_shm_ring_t ring;
  ck_assert_int_eq(hc_shm_ring_attach(&ring, garbage), HC_ERR_ARG);
}
END_TEST

START_TEST(test_ring_empty_then_fifo_order) {
  hc_shm_ring_t prod, cons;
  void *mem = ring_pair(&prod, &cons);
  size_t len = 99;
  ck_assert_ptr_null(hc_shm_ring_peek(&cons, &len));
  ck_assert_int_eq(hc_shm_ring_readable(&cons), 0);
  for (uint32_t i = 0; i < 5; i++)
    ck_assert_int_eq(push_u32(&prod, i), HC_OK);
  ck_assert_int_ne(hc_shm_ring_readable(&cons), 0);
  for (uint32_t i = 0; i < 5; i++)
    ck_assert_uint_eq(pop_u32(&cons), i);
  ck_assert_ptr_null(hc_shm_ring_peek(&cons, &len));
  free(mem);
}
END_TEST

/* The consumer's test for a lone packet (the shm transport's lone
 * rendezvous): true with none or one unread, false with two, true again
 * once the first is taken, while the packet at the head stays unread. */
START_TEST(test_ring_holds_at_most_one_counts_unread_packets) {
  hc_shm_ring_t prod, cons;
  void *mem = ring_pair(&prod, &cons);
  ck_assert_int_ne(hc_shm_ring_holds_at_most_one(&cons), 0);
  ck_assert_int_eq(push_u32(&prod, 7), HC_OK);
  ck_assert_int_ne(hc_shm_ring_holds_at_most_one(&cons), 0);
  ck_assert_int_eq(push_u32(&prod, 8), HC_OK);
  ck_assert_int_eq(hc_shm_ring_holds_at_most_one(&cons), 0);
  ck_assert_uint_eq(pop_u32(&cons), 7);
  ck_assert_int_ne(hc_shm_ring_holds_at_most_one(&cons), 0);
  ck_assert_uint_eq(pop_u32(&cons), 8);
  ck_assert_int_ne(hc_shm_ring_holds_at_most_one(&cons), 0);
  free(mem);
}
END_TEST

START_TEST(test_ring_full_returns_again_and_recovers) {
  hc_shm_ring_t prod, cons;
  void *mem = ring_pair(&prod, &cons);
  ck_assert_int_eq(prod.prefetch_next, 0);
  prod.prefetch_next = _i;
  for (uint32_t i = 0; i < NCELLS; i++)
    ck_assert_int_eq(push_u32(&prod, i), HC_OK);
  ck_assert_int_eq(push_u32(&prod, 100), HC_ERR_AGAIN);
  ck_assert_int_eq(hc_shm_ring_writable(&prod), 0);
  ck_assert_uint_eq(pop_u32(&cons), 0);
  ck_assert_int_ne(hc_shm_ring_writable(&prod), 0);
  ck_assert_int_eq(push_u32(&prod, 100), HC_OK);
  ck_assert_int_eq(push_u32(&prod, 101), HC_ERR_AGAIN);
  for (uint32_t i = 1; i < NCELLS; i++)
    ck_assert_uint_eq(pop_u32(&cons), i);
  ck_assert_uint_eq(pop_u32(&cons), 100);
  free(mem);
}
END_TEST

START_TEST(test_ring_wraps_around_many_times) {
  hc_shm_ring_t prod, cons;
  void *mem = ring_pair(&prod, &cons);
  prod.prefetch_next = _i;
  uint32_t next_push = 0, next_pop = 0;
  /* Uneven push/pop bursts so the indices cross the end at every offset. */
  for (int round = 0; round < 1000; round++) {
    int burst = 1 + round % NCELLS;
    for (int i = 0; i < burst; i++) {
      hc_status_t rc = push_u32(&prod, next_push);
      if (rc == HC_ERR_AGAIN)
        break;
      ck_assert_int_eq(rc, HC_OK);
      next_push++;
    }
    int drain = 1 + (round * 7) % NCELLS;
    for (int i = 0; i < drain && next_pop < next_push; i++)
      ck_assert_uint_eq(pop_u32(&cons), next_pop++);
  }
  while (next_pop < next_push)
    ck_assert_uint_eq(pop_u32(&cons), next_pop++);
  ck_assert_uint_gt(next_push, 10 * NCELLS);
  free(mem);
}
END_TEST

START_TEST(test_ring_cell_size_limit_and_gather) {
  hc_shm_ring_t prod, cons;
  void *mem = ring_pair(&prod, &cons);
  unsigned char big[CELL + 1];
  memset(big, 7, sizeof big);
  struct iovec too_big = {big, CELL + 1};
  ck_assert_int_eq(hc_shm_ring_push(&prod, &too_big, 1), HC_ERR_ARG);
  /* Three pieces that together fill the cell exactly. */
  for (int i = 0; i < CELL; i++)
    big[i] = (unsigned char)i;
  struct iovec pieces[3] = {{big, 10}, {big + 10, 0}, {big + 10, CELL - 10}};
  ck_assert_int_eq(hc_shm_ring_push(&prod, pieces, 3), HC_OK);
  struct iovec empty = {NULL, 0};
  ck_assert_int_eq(hc_shm_ring_push(&prod, &empty, 1), HC_OK);
  size_t len = 0;
  const unsigned char *data = hc_shm_ring_peek(&cons, &len);
  ck_assert_uint_eq(len, CELL);
  ck_assert_mem_eq(data, big, CELL);
  hc_shm_ring_release(&cons);
  ck_assert_ptr_nonnull(hc_shm_ring_peek(&cons, &len));
  ck_assert_uint_eq(len, 0);
  hc_shm_ring_release(&cons);
  ck_assert_ptr_null(hc_shm_ring_peek(&cons, &len));
  free(mem);
}
END_TEST

/* Two pieces of every length from 0 to 40 each (so every branch of the
 * gather's small copies, 1-3, 4-7, 8-15, 16-32 bytes and memcpy beyond,
 * with every split), pushed and popped: the cell holds exactly their
 * bytes, and nothing past them is written. */
START_TEST(test_ring_gathers_two_pieces_of_every_small_length) {
  hc_shm_ring_t prod, cons;
  void *mem = ring_pair(&prod, &cons);
  memset(cons.cells, 0xee, (size_t)NCELLS * cons.stride);
  unsigned char src[80], want[80];
  for (int i = 0; i < (int)sizeof src; i++)
    src[i] = (unsigned char)(i * 7 + 1);
  for (size_t a = 0; a <= 40; a++) {
    for (size_t b = 0; b <= 40; b++) {
      struct iovec pieces[2] = {{src, a}, {src + 40, b}};
      memcpy(want, src, a);
      memcpy(want + a, src + 40, b);
      ck_assert_int_eq(hc_shm_ring_push(&prod, pieces, 2), HC_OK);
      size_t len = 0;
      unsigned char *cell_data = (unsigned char *)hc_shm_ring_peek(&cons, &len);
      ck_assert_ptr_nonnull(cell_data);
      ck_assert_uint_eq(len, a + b);
      ck_assert_mem_eq(cell_data, want, a + b);
      ck_assert_uint_eq(cell_data[a + b], 0xee);
      hc_shm_ring_release(&cons);
      memset(cell_data, 0xee, CELL); /* marks the bytes past the next use */
    }
  }
  free(mem);
}
END_TEST

/* The consumer trusts nothing the producer wrote: a cell length past the
 * cell, or a tail more than a ring ahead of the head, is reported as a
 * corrupt ring instead of handing out bytes beyond the cell.  The offsets
 * poked here are the ring's layout: a cell's length is its first word, the
 * tail the first word of the region's second cache line. */
START_TEST(test_ring_corrupt_length_or_tail_is_refused) {
  hc_shm_ring_t prod, cons;
  void *mem = ring_pair(&prod, &cons);
  unsigned char full[CELL];
  memset(full, 7, sizeof full);
  struct iovec iov = {full, sizeof full};
  ck_assert_int_eq(hc_shm_ring_push(&prod, &iov, 1), HC_OK);
  size_t len = 0;
  ck_assert_ptr_nonnull(hc_shm_ring_peek(&cons, &len)); /* CELL: the limit */
  ck_assert_uint_eq(len, CELL);
  uint32_t bad = CELL + 1;
  memcpy(cons.cells, &bad, sizeof bad);
  len = 0;
  ck_assert_ptr_null(hc_shm_ring_peek(&cons, &len));
  ck_assert_uint_eq(len, HC_SHM_RING_CORRUPT);
  bad = UINT32_MAX;
  memcpy(cons.cells, &bad, sizeof bad);
  ck_assert_ptr_null(hc_shm_ring_peek(&cons, &len));
  ck_assert_uint_eq(len, HC_SHM_RING_CORRUPT);
  /* A sane length again, then a tail claiming more cells than exist. */
  bad = 4;
  memcpy(cons.cells, &bad, sizeof bad);
  ck_assert_ptr_nonnull(hc_shm_ring_peek(&cons, &len));
  ck_assert_uint_eq(len, 4);
  hc_shm_ring_release(&cons);
  uint64_t tail = NCELLS + 2;
  memcpy((unsigned char *)mem + HC_SHM_RING_ALIGN, &tail, sizeof tail);
  len = 0;
  ck_assert_ptr_null(hc_shm_ring_peek(&cons, &len));
  ck_assert_uint_eq(len, HC_SHM_RING_CORRUPT);
  free(mem);
}
END_TEST

START_TEST(test_ring_waiting_flag_is_taken_once) {
  hc_shm_ring_t prod, cons;
  void *mem = ring_pair(&prod, &cons);
  ck_assert_int_eq(hc_shm_ring_take_waiting(&cons), 0);
  hc_shm_ring_set_waiting(&prod);
  ck_assert_int_ne(hc_shm_ring_take_waiting(&cons), 0);
  ck_assert_int_eq(hc_shm_ring_take_waiting(&cons), 0);
  free(mem);
}
END_TEST

#define STREAM_COUNT 100000
#define STREAM_CELL 1024

/* Packet i: a 4-byte sequence number then bytes derived from it; the
 * length cycles through 4..STREAM_CELL. */
static size_t stream_len(uint32_t seq) {
  return 4 + (size_t)(seq * 2654435761u) % (STREAM_CELL - 3);
}

static unsigned char stream_byte(uint32_t seq, size_t i) {
  return (unsigned char)(seq * 31u + i * 7u);
}

static void stream_producer(void *mem, int prefetch_next) {
  hc_shm_ring_t prod;
  if (hc_shm_ring_attach(&prod, mem) != HC_OK)
    _exit(2);
  prod.prefetch_next = prefetch_next;
  unsigned char buf[STREAM_CELL];
  for (uint32_t seq = 0; seq < STREAM_COUNT; seq++) {
    size_t len = stream_len(seq);
    memcpy(buf, &seq, 4);
    for (size_t i = 4; i < len; i++)
      buf[i] = stream_byte(seq, i);
    struct iovec iov[2] = {{buf, 4}, {buf + 4, len - 4}};
    hc_status_t rc;
    while ((rc = hc_shm_ring_push(&prod, iov, 2)) == HC_ERR_AGAIN)
      sched_yield();
    if (rc != HC_OK)
      _exit(3);
  }
  _exit(0);
}

static void stream_check(const unsigned char *data, size_t len,
                         uint32_t expect) {
  uint32_t seq;
  ck_assert_uint_eq(len, stream_len(expect));
  memcpy(&seq, data, 4);
  ck_assert_uint_eq(seq, expect);
  for (size_t i = 4; i < len; i++)
    if (data[i] != stream_byte(seq, i))
      ck_abort_msg("packet %u byte %zu differs", seq, i);
}

START_TEST(test_ring_forked_producer_streams_100k_packets_intact) {
  size_t bytes = hc_shm_ring_bytes(STREAM_CELL, 16);
  void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ck_assert_ptr_ne(mem, MAP_FAILED);
  ck_assert_int_eq(hc_shm_ring_format(mem, STREAM_CELL, 16), HC_OK);
  pid_t child = fork();
  ck_assert_int_ge(child, 0);
  if (child == 0)
    stream_producer(mem, _i);
  alarm(120);
  hc_shm_ring_t cons;
  ck_assert_int_eq(hc_shm_ring_attach(&cons, mem), HC_OK);
  cons.read_published = _i;
  for (uint32_t expect = 0; expect < STREAM_COUNT;) {
    size_t len = 0;
    const unsigned char *data = hc_shm_ring_peek(&cons, &len);
    if (data == NULL) {
      ck_assert_uint_ne(len, HC_SHM_RING_CORRUPT);
      sched_yield();
      continue;
    }
    stream_check(data, len, expect++);
    hc_shm_ring_release(&cons);
  }
  size_t len;
  ck_assert_ptr_null(hc_shm_ring_peek(&cons, &len));
  int status;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  ck_assert(WIFEXITED(status));
  ck_assert_int_eq(WEXITSTATUS(status), 0);
  munmap(mem, bytes);
}
END_TEST

/* The consumer finds nothing, and no corruption either. */
static void assert_nothing_new(hc_shm_ring_t *cons) {
  size_t len = 0;
  ck_assert_ptr_null(hc_shm_ring_peek(cons, &len));
  ck_assert_uint_ne(len, HC_SHM_RING_CORRUPT);
  ck_assert_int_eq(hc_shm_ring_may_hold(cons), 0);
}

/* The producer stores a cell's published word before the tail: a consumer
 * with read_published takes the cell on its word alone, and the tail it
 * then reads, one behind, neither shows the cell again nor makes the ring
 * look corrupt.  Without read_published the cell waits for the tail. */
START_TEST(test_ring_published_word_shows_cell_before_tail) {
  hc_shm_ring_t prod, cons;
  void *mem = ring_pair(&prod, &cons);
  cons.read_published = _i;
  for (uint32_t round = 0; round < 3 * NCELLS; round++) {
    ck_assert_int_eq(push_u32(&prod, 1000 + round), HC_OK);
    /* The tail store not seen yet: put the tail back by one. */
    atomic_store(prod.tail_word, round);
    size_t len = 0;
    const void *data = hc_shm_ring_peek(&cons, &len);
    if (!_i) {
      ck_assert_ptr_null(data);
      assert_nothing_new(&cons);
      atomic_store(prod.tail_word, round + 1);
      ck_assert_uint_eq(pop_u32(&cons), 1000 + round);
      continue;
    }
    ck_assert_ptr_nonnull(data);
    ck_assert_uint_eq(pop_u32(&cons), 1000 + round); /* peeks it again */
    assert_nothing_new(&cons);
    atomic_store(prod.tail_word, round + 1);
    assert_nothing_new(&cons);
  }
  free(mem);
}
END_TEST

/* A cell's word from the last lap (its index + 1 - ncells) shows nothing,
 * and neither does a fresh ring over memory that held anything. */
START_TEST(test_ring_stale_published_word_shows_nothing) {
  void *mem = ring_region(CELL, NCELLS);
  hc_shm_ring_t prod, cons;
  ck_assert_int_eq(hc_shm_ring_attach(&cons, mem), HC_OK);
  /* Memory a ring held before: every cell's word says "published". */
  for (uint32_t i = 0; i < NCELLS; i++)
    atomic_store(&hc_shm_ring_cell_at(&cons, i)->published, i + 1);
  ck_assert_int_eq(hc_shm_ring_format(mem, CELL, NCELLS), HC_OK);
  ck_assert_int_eq(hc_shm_ring_attach(&prod, mem), HC_OK);
  ck_assert_int_eq(hc_shm_ring_attach(&cons, mem), HC_OK);
  cons.read_published = 1;
  assert_nothing_new(&cons);
  for (uint32_t i = 0; i < NCELLS + 3; i++) {
    ck_assert_int_eq(push_u32(&prod, i), HC_OK);
    ck_assert_uint_eq(pop_u32(&cons), i);
    assert_nothing_new(&cons);
  }
  free(mem);
}
END_TEST

static Suite *shm_ring_suite(void) {
  Suite *s = suite_create("shm_ring");
  TCase *tc = tcase_create("ring");
  tcase_set_timeout(tc, 180);
  tcase_add_test(tc, test_ring_rejects_bad_shapes);
  tcase_add_test(tc, test_ring_empty_then_fifo_order);
  tcase_add_test(tc, test_ring_holds_at_most_one_counts_unread_packets);
  tcase_add_loop_test(tc, test_ring_full_returns_again_and_recovers, 0, 2);
  tcase_add_loop_test(tc, test_ring_wraps_around_many_times, 0, 2);
  tcase_add_test(tc, test_ring_cell_size_limit_and_gather);
  tcase_add_test(tc, test_ring_gathers_two_pieces_of_every_small_length);
  tcase_add_test(tc, test_ring_corrupt_length_or_tail_is_refused);
  tcase_add_test(tc, test_ring_waiting_flag_is_taken_once);
  tcase_add_loop_test(tc, test_ring_published_word_shows_cell_before_tail, 0,
                      2);
  tcase_add_test(tc, test_ring_stale_published_word_shows_nothing);
  tcase_add_loop_test(tc, test_ring_forked_producer_streams_100k_packets_intact,
                      0, 2);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(shm_ring_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
