/* Accumulates by NIC atomics (docs/rma.md): a window created with
 * MPI_Win_create over 8-byte words, its info declaring the contract
 * (hcmpi_accumulate_types=int64, which_accumulate_ops=sum,replace,no_op,
 * cswap).  argv[1] says what the test expects:
 *   on       every rank declares it and the device does atomics: the
 *            window reports hcmpi_nic_atomics=true, and operations outside
 *            the contract fail with MPI_ERR_OP and a readable string;
 *   partial  rank 1 leaves the type key out: every rank's window reports
 *            false and keeps active messages;
 *   off      every rank declares it, the device has no atomics: false;
 *   fatal    as on, then rank 0 accumulates with MPI_MAX under the
 *            default handler: the job aborts with the reason on stderr
 *            (verbs_rma_nic.sh checks the line).
 * In every case the results must be exact:
 *   - every rank adds 1 ITERS times to one word of rank 0's window with
 *     MPI_Accumulate(MPI_SUM) and to the next with MPI_Fetch_and_op
 *     (MPI_SUM), under shared locks, then under lock_all with flushes,
 *     then inside fences, then in PSCW epochs: each total is size * ITERS
 *     and the fetched values of all ranks are 0 .. size * ITERS - 1 once
 *     each (rank 0's own operations go through the loopback);
 *   - every rank fetches-and-adds on its own window (loopback only);
 *   - a compare-and-swap spin lock around MPI_Get/MPI_Put of a counter
 *     (released with MPI_Fetch_and_op(MPI_REPLACE), since the lock word
 *     must change by atomics only), which stays exact only if the swap is;
 *   - MPI_Fetch_and_op(MPI_REPLACE) by every rank on one word: the old
 *     values and the last value are 0 and every rank's value, once each;
 *     MPI_NO_OP reads the last value back;
 *   - a 4-element MPI_Accumulate and MPI_Get_accumulate (one atomic per
 *     element) add per element; MPI_Raccumulate and MPI_Rget_accumulate
 *     add once each. */
#include <stdint.h>

#include "../mpi/mpitest.h"

#define ITERS 100
#define NWORDS 32
/* Word indexes in rank 0's window (displacement unit 8). */
enum { W_PHASE = 0, W_LOCK = 16, W_COUNTER = 17, W_SWAP = 18, W_VEC = 20 };

static int rank, size;

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Every fetched value of all ranks, sorted, must be 0 .. size*ITERS-1. */
static void check_fetched(const int64_t *mine, const char *phase) {
  int64_t *all = rank == 0 ? malloc((size_t)size * ITERS * sizeof *all) : NULL;
  MPI_Gather(mine, ITERS, MPI_INT64_T, all, ITERS, MPI_INT64_T, 0,
             MPI_COMM_WORLD);
  if (rank != 0)
    return;
  qsort(all, (size_t)size * ITERS, sizeof *all, cmp_i64);
  for (int i = 0; i < size * ITERS; i++)
    CHECK(all[i] == i, "%s: sorted fetched value #%d is %lld", phase, i,
          (long long)all[i]);
  free(all);
}

static void check_totals(const int64_t *words, int first, const char *phase) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    CHECK(words[first] == size * ITERS, "%s: accumulated %lld, want %d", phase,
          (long long)words[first], size * ITERS);
    CHECK(words[first + 1] == size * ITERS,
          "%s: fetch-and-op total %lld, want %d", phase,
          (long long)words[first + 1], size * ITERS);
  }
}

/* One accumulate and one fetch-and-add of 1 on words first, first + 1. */
static void add_pair(MPI_Win win, int first, int64_t *fetched) {
  int64_t one = 1;
  CHECK(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, first, 1, MPI_INT64_T, MPI_SUM,
                       win) == MPI_SUCCESS,
        "Accumulate");
  CHECK(MPI_Fetch_and_op(&one, fetched, MPI_INT64_T, 0, first + 1, MPI_SUM,
                         win) == MPI_SUCCESS,
        "Fetch_and_op");
}

static void every_sync_mode(MPI_Win win, const int64_t *words) {
  int64_t fetched[ITERS];
  for (int i = 0; i < ITERS; i++) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    add_pair(win, W_PHASE, &fetched[i]);
    MPI_Win_unlock(0, win);
  }
  check_totals(words, W_PHASE, "shared locks");
  check_fetched(fetched, "shared locks");

  MPI_Win_lock_all(0, win);
  for (int i = 0; i < ITERS; i++) {
    add_pair(win, W_PHASE + 2, &fetched[i]);
    MPI_Win_flush(0, win);
  }
  MPI_Win_unlock_all(win);
  check_totals(words, W_PHASE + 2, "lock_all and flush");
  check_fetched(fetched, "lock_all and flush");

  MPI_Win_fence(0, win);
  for (int i = 0; i < ITERS; i++)
    add_pair(win, W_PHASE + 4, &fetched[i]);
  MPI_Win_fence(0, win);
  check_totals(words, W_PHASE + 4, "fence");
  check_fetched(fetched, "fence");

  MPI_Group world, target;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int zero = 0;
  MPI_Group_incl(world, 1, &zero, &target);
  if (rank == 0)
    MPI_Win_post(world, 0, win);
  MPI_Win_start(target, 0, win);
  for (int i = 0; i < ITERS; i++)
    add_pair(win, W_PHASE + 6, &fetched[i]);
  MPI_Win_complete(win);
  if (rank == 0)
    MPI_Win_wait(win);
  MPI_Group_free(&target);
  MPI_Group_free(&world);
  check_totals(words, W_PHASE + 6, "PSCW");
  check_fetched(fetched, "PSCW");
}

/* Each rank on its own window only: the loopback path. */
static void own_window(MPI_Win win, const int64_t *words) {
  int64_t one = 1, old[ITERS];
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  for (int i = 0; i < ITERS; i++)
    MPI_Fetch_and_op(&one, &old[i], MPI_INT64_T, rank, W_PHASE + 8, MPI_SUM,
                     win);
  MPI_Win_unlock(rank, win); /* the fetched values are valid from here */
  for (int i = 0; i < ITERS; i++)
    CHECK(old[i] == i, "own window: fetched %lld, want %d", (long long)old[i],
          i);
  CHECK(words[W_PHASE + 8] == ITERS, "own window: %lld, want %d",
        (long long)words[W_PHASE + 8], ITERS);
}

static void spin_lock_counter(MPI_Win win, const int64_t *words) {
  int64_t me = rank + 1, zero = 0, old, counter;
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < ITERS / 4; i++) {
    do {
      MPI_Compare_and_swap(&me, &zero, &old, MPI_INT64_T, 0, W_LOCK, win);
      MPI_Win_flush(0, win);
    } while (old != 0);
    MPI_Get(&counter, 1, MPI_INT64_T, 0, W_COUNTER, 1, MPI_INT64_T, win);
    MPI_Win_flush(0, win);
    counter++;
    MPI_Put(&counter, 1, MPI_INT64_T, 0, W_COUNTER, 1, MPI_INT64_T, win);
    MPI_Win_flush(0, win);
    MPI_Fetch_and_op(&zero, &old, MPI_INT64_T, 0, W_LOCK, MPI_REPLACE, win);
    MPI_Win_flush(0, win);
    CHECK(old == me, "the spin lock held %lld, not this rank's %lld",
          (long long)old, (long long)me);
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    CHECK(words[W_COUNTER] == size * (ITERS / 4),
          "counter under the CAS lock is %lld, want %d",
          (long long)words[W_COUNTER], size * (ITERS / 4));
}

/* Swaps form one chain: the old values and the last value are 0 and
 * every rank's rank + 1, once each. */
static void replace_and_no_op(MPI_Win win) {
  int64_t mine = rank + 1, old, last, unused = 0;
  MPI_Win_lock_all(0, win);
  MPI_Fetch_and_op(&mine, &old, MPI_INT64_T, 0, W_SWAP, MPI_REPLACE, win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  MPI_Fetch_and_op(&unused, &last, MPI_INT64_T, 0, W_SWAP, MPI_NO_OP, win);
  MPI_Win_unlock_all(win);
  int64_t *olds = malloc(((size_t)size + 1) * sizeof *olds);
  MPI_Allgather(&old, 1, MPI_INT64_T, olds, 1, MPI_INT64_T, MPI_COMM_WORLD);
  olds[size] = last;
  qsort(olds, (size_t)size + 1, sizeof *olds, cmp_i64);
  for (int i = 0; i <= size; i++)
    CHECK(olds[i] == i, "REPLACE chain: sorted value #%d is %lld", i,
          (long long)olds[i]);
  free(olds);
}

/* Multi-element: one atomic per element, each element's total exact. */
static void vectors(MPI_Win win, const int64_t *words) {
  int64_t add[4] = {1, 2, 3, 4}, got[4], zero4[4] = {0};
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < ITERS / 4; i++) {
    MPI_Accumulate(add, 4, MPI_INT64_T, 0, W_VEC, 4, MPI_INT64_T, MPI_SUM, win);
    MPI_Get_accumulate(add, 4, MPI_INT64_T, got, 4, MPI_INT64_T, 0, W_VEC + 4,
                       4, MPI_INT64_T, MPI_SUM, win);
    MPI_Win_flush(0, win);
    for (int k = 0; k < 4; k++)
      CHECK(got[k] % add[k] == 0, "element %d fetched %lld", k,
            (long long)got[k]);
  }
  /* The request forms: complete when their request is. */
  MPI_Request req;
  int64_t one = 1, old = -1;
  MPI_Raccumulate(&one, 1, MPI_INT64_T, 0, W_PHASE + 12, 1, MPI_INT64_T,
                  MPI_SUM, win, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Rget_accumulate(&one, 1, MPI_INT64_T, &old, 1, MPI_INT64_T, 0,
                      W_PHASE + 13, 1, MPI_INT64_T, MPI_SUM, win, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(old >= 0 && old < size, "Rget_accumulate fetched %lld", (long long)old);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    CHECK(words[W_PHASE + 12] == size && words[W_PHASE + 13] == size,
          "request forms: %lld and %lld, want %d",
          (long long)words[W_PHASE + 12], (long long)words[W_PHASE + 13], size);
  MPI_Win_lock_all(0, win);
  MPI_Get_accumulate(zero4, 4, MPI_INT64_T, got, 4, MPI_INT64_T, 0, W_VEC, 4,
                     MPI_INT64_T, MPI_NO_OP, win);
  MPI_Win_unlock_all(win);
  for (int k = 0; k < 4; k++)
    CHECK(got[k] == add[k] * size * (ITERS / 4),
          "vector element %d: %lld, want %lld", k, (long long)got[k],
          (long long)(add[k] * size * (ITERS / 4)));
  if (rank == 0)
    for (int k = 0; k < 4; k++)
      CHECK(words[W_VEC + 4 + k] == add[k] * size * (ITERS / 4),
            "get_accumulate element %d: %lld", k,
            (long long)words[W_VEC + 4 + k]);
}

/* Outside the contract: MPI_ERR_OP (the line that says why is the fatal
 * handler's, which the "fatal" mode's run shows). */
static void out_of_contract(MPI_Win win) {
  int64_t v = 5, old;
  int small = 1, small_old;
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Win_lock_all(0, win);
  int rc =
      MPI_Fetch_and_op(&v, &old, MPI_INT64_T, 0, W_PHASE + 10, MPI_MAX, win);
  CHECK(mt_class(rc) == MPI_ERR_OP, "MPI_MAX gave class %d", mt_class(rc));
  rc = MPI_Fetch_and_op(&small, &small_old, MPI_INT, 0, W_PHASE + 10, MPI_SUM,
                        win);
  CHECK(mt_class(rc) == MPI_ERR_OP, "MPI_INT gave class %d", mt_class(rc));
  /* 4 bytes into a word: the displacement unit is 8, so through a type
   * whose lower bound is 4 bytes. */
  MPI_Datatype shifted;
  MPI_Aint disp = 4;
  int len = 1;
  MPI_Type_create_hindexed(1, &len, &disp, MPI_INT64_T, &shifted);
  MPI_Type_commit(&shifted);
  rc = MPI_Accumulate(&v, 1, MPI_INT64_T, 0, W_PHASE + 10, 1, shifted, MPI_SUM,
                      win);
  CHECK(mt_class(rc) == MPI_ERR_OP, "unaligned gave class %d", mt_class(rc));
  MPI_Type_free(&shifted);
  MPI_Win_unlock_all(win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "on";
  int expect_on = strcmp(mode, "on") == 0 || strcmp(mode, "fatal") == 0;
  int64_t *words = NULL;
  CHECK(posix_memalign((void **)&words, 64, NWORDS * sizeof *words) == 0,
        "memory");
  memset(words, 0, NWORDS * sizeof *words);
  MPI_Info info;
  MPI_Info_create(&info);
  if (!(strcmp(mode, "partial") == 0 && rank == 1))
    MPI_Info_set(info, "hcmpi_accumulate_types", "int64");
  MPI_Info_set(info, "which_accumulate_ops", "sum,replace,no_op,cswap");
  MPI_Win win;
  CHECK(MPI_Win_create(words, NWORDS * sizeof *words, 8, info, MPI_COMM_WORLD,
                       &win) == MPI_SUCCESS,
        "Win_create");
  MPI_Info_free(&info);
  MPI_Info used;
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  MPI_Win_get_info(win, &used);
  MPI_Info_get(used, "hcmpi_nic_atomics", MPI_MAX_INFO_VAL, value, &flag);
  MPI_Info_free(&used);
  CHECK(flag && strcmp(value, expect_on ? "true" : "false") == 0,
        "hcmpi_nic_atomics is \"%s\" (%s), want %s", flag ? value : "", mode,
        expect_on ? "true" : "false");
  MPI_Barrier(MPI_COMM_WORLD);

  every_sync_mode(win, words);
  own_window(win, words);
  spin_lock_counter(win, words);
  replace_and_no_op(win);
  vectors(win, words);
  if (expect_on)
    out_of_contract(win);
  if (strcmp(mode, "fatal") == 0 && rank == 0) {
    int64_t v = 1, old;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Fetch_and_op(&v, &old, MPI_INT64_T, 0, W_PHASE + 10, MPI_MAX, win);
    CHECK(0, "MPI_MAX on a window with NIC atomics returned");
  }
  MPI_Win_free(&win);
  free(words);
  printf("PASS rank %d (%s)\n", rank, mode);
  MPI_Finalize();
  return 0;
}
