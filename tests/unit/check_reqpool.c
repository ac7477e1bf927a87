/* Unit tests of the face request pool (src/mpi/reqpool.c): the handle
 * encoding, stale and foreign handles rejected, objects allocated on one
 * thread and freed on another under real locking, and the engine request
 * kept in a slot (hc_reqpool_home_take): the slot is reused only once
 * both the face and the engine let go, in either order; a renewed object
 * answers its new handle only. */
#include "mpi/reqpool.h"

#include <check.h>
#include <pthread.h>
#include <stdlib.h>

#include "hcomm/request.h"
#include "mpi/handle.h"
#include "mpi/mpi_impl.h"
#include "util/lock.h"

#define INDEX_MASK (HC_REQPOOL_CAPACITY - 1u)

static unsigned handle_index(int h) { return (unsigned)h & INDEX_MASK; }

START_TEST(handle_is_direct_request_naming_its_object) {
  hc_mpi_request_t *r = hc_reqpool_alloc();
  ck_assert_ptr_nonnull(r);
  ck_assert_uint_eq(hc_handle_kind(r->handle), HC_HANDLE_KIND_DIRECT);
  ck_assert_uint_eq(hc_handle_object(r->handle), HC_OBJ_REQUEST);
  ck_assert_ptr_eq(hc_reqpool_get(r->handle), r);
  ck_assert_int_ne(r->handle, hc_handle_null(HC_OBJ_REQUEST));
  hc_reqpool_free(r);
}
END_TEST

START_TEST(alloc_gives_zeroed_object) {
  hc_mpi_request_t *r = hc_reqpool_alloc();
  r->kind = 3;
  r->peer = 7;
  r->buf = r;
  hc_reqpool_free(r);
  hc_mpi_request_t *again = hc_reqpool_alloc();
  ck_assert_ptr_eq(again, r); /* the cache hands back the newest free */
  ck_assert_int_eq(again->kind, 0);
  ck_assert_int_eq(again->peer, 0);
  ck_assert_ptr_null(again->buf);
  hc_reqpool_free(again);
}
END_TEST

/* The per-operation fields are cleared at every allocation; the rare ones
 * (persistent arguments, status, message, generalized state) by the free
 * of any kind but a plain request, which never sets them but greq. */
START_TEST(alloc_clears_what_each_kind_set) {
  hc_mpi_request_t *r = hc_reqpool_alloc();
  r->kind = HC_REQ_PERSISTENT;
  r->local.bytes = 12;
  r->tag = 4;
  r->mode = 2;
  r->xfer.bytes = 8;
  r->active = 1;
  hc_reqpool_free(r);
  hc_mpi_request_t *again = hc_reqpool_alloc();
  ck_assert_ptr_eq(again, r);
  ck_assert_uint_eq(again->local.bytes, 0);
  ck_assert_int_eq(again->tag, 0);
  ck_assert_int_eq(again->mode, 0);
  ck_assert_uint_eq(again->xfer.bytes, 0);
  ck_assert_int_eq(again->active, 0);
  /* A plain generalized request: greq set, so cleared too. */
  again->greq = (struct hc_mpi_greq *)(void *)again;
  again->local.error = HC_ERR_TRUNCATE;
  hc_reqpool_free(again);
  r = hc_reqpool_alloc();
  ck_assert_ptr_eq(r, again);
  ck_assert_ptr_null(r->greq);
  ck_assert_int_eq(r->local.error, HC_OK);
  /* A plain request: its operation fields go at the next allocation. */
  r->is_recv = 1;
  r->xfer.user = r;
  r->engine = (hcomm_request_t *)(void *)r;
  hc_reqpool_free(r);
  again = hc_reqpool_alloc();
  ck_assert_ptr_eq(again, r);
  ck_assert_int_eq(again->kind, HC_REQ_PLAIN);
  ck_assert_int_eq(again->is_recv, 0);
  ck_assert_ptr_null(again->xfer.user);
  ck_assert_ptr_null(again->engine);
  hc_reqpool_free(again);
}
END_TEST

START_TEST(freed_handle_is_rejected) {
  hc_mpi_request_t *r = hc_reqpool_alloc();
  int h = r->handle;
  hc_reqpool_free(r);
  ck_assert_ptr_null(hc_reqpool_get(h));
}
END_TEST

/* The same object handed out again gets a new handle; the old one stays
 * invalid for as many reuses as the generation bits count. */
START_TEST(reused_object_rejects_its_old_handles) {
  hc_mpi_request_t *r = hc_reqpool_alloc();
  int first = r->handle;
  hc_reqpool_free(r);
  int reuses = (1 << HC_REQPOOL_GEN_BITS) - 1;
  for (int i = 0; i < reuses; i++) {
    hc_mpi_request_t *n = hc_reqpool_alloc();
    ck_assert_ptr_eq(n, r);
    ck_assert_uint_eq(handle_index(n->handle), handle_index(first));
    ck_assert_int_ne(n->handle, first);
    ck_assert_ptr_null(hc_reqpool_get(first));
    ck_assert_ptr_eq(hc_reqpool_get(n->handle), n);
    hc_reqpool_free(n);
  }
}
END_TEST

/* hc_reqpool_renew (an MPI_Message turned into its MPI_Imrecv's request):
 * the same object under a new handle, the old one rejected; a free then
 * rejects the new one too, and the object is handed out again. */
START_TEST(renewed_object_answers_only_its_new_handle) {
  hc_mpi_request_t *r = hc_reqpool_alloc();
  int old = r->handle;
  int renewed = hc_reqpool_renew(r);
  ck_assert_int_eq(renewed, r->handle);
  ck_assert_int_ne(renewed, old);
  ck_assert_uint_eq(handle_index(renewed), handle_index(old));
  ck_assert_ptr_null(hc_reqpool_get(old));
  ck_assert_ptr_eq(hc_reqpool_get(renewed), r);
  hc_reqpool_free(r);
  ck_assert_ptr_null(hc_reqpool_get(renewed));
  ck_assert_ptr_null(hc_reqpool_get(old));
  hc_mpi_request_t *again = hc_reqpool_alloc();
  ck_assert_ptr_eq(again, r);
  ck_assert_int_ne(again->handle, renewed);
  ck_assert_int_ne(again->handle, old);
  hc_reqpool_free(again);
}
END_TEST

START_TEST(foreign_handles_are_rejected) {
  hc_mpi_request_t *r = hc_reqpool_alloc();
  unsigned idx = handle_index(r->handle);
  unsigned upper = (unsigned)r->handle & ~INDEX_MASK;
  ck_assert_ptr_null(hc_reqpool_get(hc_handle_null(HC_OBJ_REQUEST)));
  ck_assert_ptr_null(hc_reqpool_get(0x6c000001)); /* a builtin request */
  /* The same index and generation under another object type or kind. */
  unsigned low = (unsigned)r->handle & 0x03ffffffu;
  ck_assert_ptr_null(hc_reqpool_get((int)(0x84000000u | low)));
  ck_assert_ptr_null(hc_reqpool_get((int)(0xec000000u | low)));
  /* An index far past every slab handed out. */
  ck_assert_ptr_null(hc_reqpool_get((int)(upper | (INDEX_MASK - 1))));
  /* A neighbour that was never allocated (still free in the cache). */
  ck_assert_ptr_null(hc_reqpool_get((int)(upper | (idx ^ 1u))));
  ck_assert_ptr_null(hc_reqpool_get(0));
  ck_assert_ptr_null(hc_reqpool_get(-1));
  hc_reqpool_free(r);
}
END_TEST

START_TEST(live_objects_have_distinct_indices) {
  enum { N = 1000 }; /* several batches and slabs */
  hc_mpi_request_t *rs[N];
  for (int i = 0; i < N; i++) {
    rs[i] = hc_reqpool_alloc();
    ck_assert_ptr_nonnull(rs[i]);
  }
  for (int i = 0; i < N; i++) {
    ck_assert_ptr_eq(hc_reqpool_get(rs[i]->handle), rs[i]);
    for (int j = i + 1; j < N; j++)
      ck_assert_uint_ne(handle_index(rs[i]->handle),
                        handle_index(rs[j]->handle));
  }
  for (int i = 0; i < N; i++)
    hc_reqpool_free(rs[i]);
  for (int i = 0; i < N; i++)
    ck_assert_ptr_null(hc_reqpool_get(rs[i]->handle));
}
END_TEST

/* Threads in a ring: each allocates a batch, hands it to the next thread,
 * which checks and frees it.  Every live object must resolve and carry its
 * maker's mark, so no slot is handed to two threads at once. */
#define RING_THREADS 4
#define RING_BATCH 100
#define RING_ROUNDS 200

typedef struct ring {
  pthread_barrier_t barrier;
  hc_mpi_request_t *box[RING_THREADS][RING_BATCH];
  int failures[RING_THREADS];
} ring_t;

typedef struct ring_arg {
  ring_t *ring;
  int id;
} ring_arg_t;

static void *ring_thread(void *p) {
  ring_arg_t *a = p;
  ring_t *g = a->ring;
  int next = (a->id + 1) % RING_THREADS;
  for (int round = 0; round < RING_ROUNDS; round++) {
    for (int i = 0; i < RING_BATCH; i++) {
      hc_mpi_request_t *r = hc_reqpool_alloc();
      if (r == NULL) {
        g->failures[a->id]++;
        continue;
      }
      r->tag = a->id * 1000000 + round * 1000 + i;
      g->box[next][i] = r;
    }
    pthread_barrier_wait(&g->barrier);
    int from = (a->id + RING_THREADS - 1) % RING_THREADS;
    for (int i = 0; i < RING_BATCH; i++) {
      hc_mpi_request_t *r = g->box[a->id][i];
      if (r == NULL)
        continue;
      if (hc_reqpool_get(r->handle) != r ||
          r->tag != from * 1000000 + round * 1000 + i)
        g->failures[a->id]++;
      int h = r->handle;
      hc_reqpool_free(r);
      if (hc_reqpool_get(h) != NULL)
        g->failures[a->id]++;
      g->box[a->id][i] = NULL;
    }
    pthread_barrier_wait(&g->barrier);
  }
  return NULL;
}

START_TEST(objects_cross_threads_without_sharing_a_slot) {
  hc_lock_make_real();
  static ring_t g;
  pthread_barrier_init(&g.barrier, NULL, RING_THREADS);
  pthread_t t[RING_THREADS];
  ring_arg_t args[RING_THREADS];
  for (int i = 0; i < RING_THREADS; i++) {
    args[i] = (ring_arg_t){&g, i};
    ck_assert_int_eq(pthread_create(&t[i], NULL, ring_thread, &args[i]), 0);
  }
  for (int i = 0; i < RING_THREADS; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i < RING_THREADS; i++)
    ck_assert_int_eq(g.failures[i], 0);
  pthread_barrier_destroy(&g.barrier);
}
END_TEST

/* A thread that ends with slots in its cache: those slots are handed out
 * again (by a later refill that finds the shared list empty) rather than
 * lost, so the first slab serves everything below. */
static void *exiting_thread(void *p) {
  hc_mpi_request_t *r = hc_reqpool_alloc();
  *(int *)p = r->handle;
  hc_reqpool_free(r);
  return NULL;
}

START_TEST(ended_threads_give_their_cache_back) {
  enum { FIRST_SLAB = 256 };
  int handle = 0;
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, exiting_thread, &handle), 0);
  ck_assert_int_eq(pthread_join(t, NULL), 0);
  ck_assert_ptr_null(hc_reqpool_get(handle));
  static hc_mpi_request_t *rs[FIRST_SLAB];
  int seen = 0;
  for (int i = 0; i < FIRST_SLAB; i++) {
    rs[i] = hc_reqpool_alloc();
    ck_assert_ptr_nonnull(rs[i]);
    ck_assert_uint_lt(handle_index(rs[i]->handle), FIRST_SLAB);
    seen += handle_index(rs[i]->handle) == handle_index(handle);
  }
  ck_assert_int_eq(seen, 1);
  for (int i = 0; i < FIRST_SLAB; i++)
    hc_reqpool_free(rs[i]);
}
END_TEST

/* A slot with a running engine request kept in its home. */
static hc_mpi_request_t *slot_with_engine_request(hcomm_request_t **eng) {
  hc_mpi_request_t *r = hc_reqpool_alloc();
  ck_assert_ptr_nonnull(r);
  *eng = hc_request_alloc_at(hc_reqpool_home_take(r), HC_REQ_RECV);
  ck_assert_ptr_nonnull(*eng);
  return r;
}

/* The engine finishes its request and drops it (hcomm_request_free after
 * completion). */
static void engine_lets_go(hcomm_request_t *eng) {
  hc_request_complete(eng, HC_OK);
  hc_request_release(eng);
}

START_TEST(slot_waits_for_the_engine_after_face_free) {
  hcomm_request_t *eng;
  hc_mpi_request_t *r = slot_with_engine_request(&eng);
  ck_assert_ptr_eq(hc_request_lookup(hc_request_id(eng)), eng);
  hc_reqpool_free(r); /* MPI_Request_free of a running receive */
  hc_mpi_request_t *other = hc_reqpool_alloc();
  ck_assert_ptr_ne(other, r); /* the engine still uses the slot */
  hc_reqpool_free(other);
  engine_lets_go(eng);
  hc_mpi_request_t *again = hc_reqpool_alloc();
  ck_assert_ptr_eq(again, r); /* back in the cache, newest first */
  hc_reqpool_free(again);
}
END_TEST

START_TEST(slot_waits_for_the_face_after_engine_release) {
  hcomm_request_t *eng;
  hc_mpi_request_t *r = slot_with_engine_request(&eng);
  int h = r->handle;
  engine_lets_go(eng); /* completed and freed as a wait does */
  ck_assert_ptr_eq(hc_reqpool_get(h), r); /* the face still holds it */
  hc_mpi_request_t *other = hc_reqpool_alloc();
  ck_assert_ptr_ne(other, r);
  hc_reqpool_free(other);
  hc_reqpool_free(r);
  ck_assert_ptr_eq(hc_reqpool_get(h), NULL);
  hc_mpi_request_t *again = hc_reqpool_alloc();
  ck_assert_ptr_eq(again, r);
  hc_reqpool_free(again);
}
END_TEST

START_TEST(unused_home_lets_the_slot_go_with_the_face) {
  hc_mpi_request_t *r = hc_reqpool_alloc();
  (void)hc_reqpool_home_take(r);
  hc_reqpool_home_unused(r); /* the engine refused the operation */
  hc_reqpool_free(r);
  hc_mpi_request_t *again = hc_reqpool_alloc();
  ck_assert_ptr_eq(again, r);
  hc_reqpool_free(again);
}
END_TEST

/* A home keeps its engine table index from one operation to the next,
 * with a new generation: the old id no longer finds it. */
START_TEST(home_keeps_its_engine_index_with_new_generations) {
  hcomm_request_t *eng;
  hc_mpi_request_t *r = slot_with_engine_request(&eng);
  uint64_t first = hc_request_id(eng);
  engine_lets_go(eng);
  ck_assert_ptr_null(hc_request_lookup(first));
  hcomm_request_t *next =
      hc_request_alloc_at(hc_reqpool_home_take(r), HC_REQ_SEND);
  ck_assert_ptr_eq(next, eng);
  uint64_t second = hc_request_id(next);
  ck_assert_uint_eq((uint32_t)second, (uint32_t)first);
  ck_assert_uint_ne(second >> 32, first >> 32);
  ck_assert_ptr_eq(hc_request_lookup(second), next);
  ck_assert_ptr_null(hc_request_lookup(first));
  engine_lets_go(next);
  hc_reqpool_free(r);
}
END_TEST

/* The face's free and the engine's drop race on two threads, round after
 * round: exactly one of them recycles the slot (into its own thread's
 * cache, whose next allocation hands it out first). */
enum { RACE_ROUNDS = 2000 };

typedef struct race {
  pthread_barrier_t barrier;
  hc_mpi_request_t *slot;
  hcomm_request_t *eng;
  hc_mpi_request_t *next[2]; /* each thread's allocation after the race */
} race_t;

static void *race_engine_thread(void *p) {
  race_t *g = p;
  for (int i = 0; i < RACE_ROUNDS; i++) {
    pthread_barrier_wait(&g->barrier); /* the slot is ready */
    engine_lets_go(g->eng);
    g->next[1] = hc_reqpool_alloc();
    pthread_barrier_wait(&g->barrier); /* both allocated */
    pthread_barrier_wait(&g->barrier); /* checked */
    hc_reqpool_free(g->next[1]);
  }
  return NULL;
}

START_TEST(free_and_drop_racing_recycle_once) {
  hc_lock_make_real();
  static race_t g;
  pthread_barrier_init(&g.barrier, NULL, 2);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, race_engine_thread, &g), 0);
  int once = 0;
  for (int i = 0; i < RACE_ROUNDS; i++) {
    g.slot = slot_with_engine_request(&g.eng);
    pthread_barrier_wait(&g.barrier);
    hc_reqpool_free(g.slot);
    g.next[0] = hc_reqpool_alloc();
    pthread_barrier_wait(&g.barrier);
    once += (g.next[0] == g.slot) + (g.next[1] == g.slot) == 1;
    pthread_barrier_wait(&g.barrier);
    hc_reqpool_free(g.next[0]);
  }
  pthread_join(t, NULL);
  pthread_barrier_destroy(&g.barrier);
  ck_assert_int_eq(once, RACE_ROUNDS);
}
END_TEST

int main(void) {
  Suite *s = suite_create("reqpool");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, handle_is_direct_request_naming_its_object);
  tcase_add_test(tc, alloc_gives_zeroed_object);
  tcase_add_test(tc, alloc_clears_what_each_kind_set);
  tcase_add_test(tc, freed_handle_is_rejected);
  tcase_add_test(tc, reused_object_rejects_its_old_handles);
  tcase_add_test(tc, renewed_object_answers_only_its_new_handle);
  tcase_add_test(tc, foreign_handles_are_rejected);
  tcase_add_test(tc, live_objects_have_distinct_indices);
  tcase_add_test(tc, objects_cross_threads_without_sharing_a_slot);
  tcase_add_test(tc, ended_threads_give_their_cache_back);
  tcase_add_test(tc, slot_waits_for_the_engine_after_face_free);
  tcase_add_test(tc, slot_waits_for_the_face_after_engine_release);
  tcase_add_test(tc, unused_home_lets_the_slot_go_with_the_face);
  tcase_add_test(tc, home_keeps_its_engine_index_with_new_generations);
  tcase_add_test(tc, free_and_drop_racing_recycle_once);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
