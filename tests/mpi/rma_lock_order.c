/* Passive-target locks in the order that deadlocked when a shared lock
 * request queued behind a waiting exclusive one (fixed by letting shared
 * requests pass waiting exclusive ones, src/hcomm/rma.c): MPI_Win_lock_all
 * holds the shared lock it got at one target while it waits at another,
 * so the cycle
 *   A (lock_all) holds T1, waits at T2 behind E2;
 *   E2 (T2's exclusive lock of its own window) waits for B's shared lock;
 *   B holds T2, asks T1 and waits behind E1;
 *   E1 (T1's exclusive lock of its own window) waits for A's shared lock
 * never ends.  Four ranks: A = 0, B = 1, T1 = 2, T2 = 3, on a window of
 * MPI_Win_create (locks by message).  Each step starts only once the one
 * before took effect at its target: a lock request is known to be queued
 * when the thread that made it sleeps in the library, and known to be
 * served at a target once a message sent after it on the same path has
 * arrived there.  With the cycle, the job runs into its time limit; every
 * lock is granted and the exclusive ones see the data they guard.  Then
 * the price of that rule, kept on purpose: shared locks handed from one
 * holder to the next pass a waiting exclusive request, which gets the lock
 * once they stop (below, run_relay). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mpitest.h"

enum { RANK_A = 0, RANK_B = 1, RANK_T1 = 2, RANK_T2 = 3 };
enum { TAG_HELD = 1, TAG_GO = 2, TAG_SENT = 3, TAG_GOT = 4 };

static MPI_Win win;
static int cell;

/* A thread that makes one locking call, and what the main thread watches
 * of it. */
typedef struct locker {
  void (*body)(void);
  atomic_int tid;      /* its kernel thread id, once it runs */
  atomic_int entered;  /* set just before its locking call */
  atomic_int returned; /* set once its locking call returned */
  pthread_t thread;
} locker_t;

static locker_t locker;

static void *locker_main(void *arg) {
  locker_t *l = arg;
  atomic_store(&l->tid, (int)syscall(SYS_gettid));
  l->body();
  return NULL;
}

/* 1 while thread tid sleeps in the kernel (a futex wait, a poll, a
 * nanosleep): inside its locking call, that is once the call sent its
 * requests and found nothing left to do.  A wake-up of others (a futex
 * wake, a write) never counts. */
static int thread_sleeps(int tid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/self/task/%d/syscall", tid);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return 0;
  int got = fgets(line, sizeof line, f) != NULL;
  fclose(f);
  long nr = -1;
  unsigned long arg0 = 0, arg1 = 0;
  if (!got || sscanf(line, "%ld %lx %lx", &nr, &arg0, &arg1) < 1)
    return 0;
  if (nr == SYS_futex) /* FUTEX_WAIT or FUTEX_WAIT_BITSET */
    return (arg1 & 0x7f) == 0 || (arg1 & 0x7f) == 9;
  return nr == SYS_poll || nr == SYS_ppoll || nr == SYS_nanosleep ||
         nr == SYS_clock_nanosleep || nr == SYS_epoll_wait ||
         nr == SYS_epoll_pwait || nr == SYS_pselect6;
}

/* Runs body on the locker thread and returns once its locking call has
 * either returned or sleeps (seen asleep several times in a row). */
static void locker_start_and_settle(void (*body)(void)) {
  locker.body = body;
  atomic_store(&locker.tid, 0);
  atomic_store(&locker.entered, 0);
  atomic_store(&locker.returned, 0);
  CHECK(pthread_create(&locker.thread, NULL, locker_main, &locker) == 0,
        "pthread_create");
  int asleep = 0;
  while (!atomic_load(&locker.returned) && asleep < 20) {
    int tid = atomic_load(&locker.tid);
    if (tid != 0 && atomic_load(&locker.entered) && thread_sleeps(tid))
      asleep++;
    else
      asleep = 0;
    sched_yield();
  }
}

static void locker_join(void) { pthread_join(locker.thread, NULL); }

/* A: lock_all, kept until B says it got T1, when the cycle is known to
 * have been avoided. */
static void lock_all_body(void) {
  atomic_store(&locker.entered, 1);
  CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS, "lock_all");
  atomic_store(&locker.returned, 1);
  MPI_Recv(NULL, 0, MPI_BYTE, RANK_B, TAG_GOT, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS, "unlock_all");
}

/* T1 and T2: an exclusive lock of the rank's own window, which writes the
 * cell it guards. */
static void exclusive_self_body(void) {
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  atomic_store(&locker.entered, 1);
  CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win) == MPI_SUCCESS,
        "exclusive lock");
  atomic_store(&locker.returned, 1);
  int mark = 100 + me;
  MPI_Put(&mark, 1, MPI_INT, me, 0, 1, MPI_INT, win);
  CHECK(MPI_Win_unlock(me, win) == MPI_SUCCESS, "exclusive unlock");
}

/* Once rank from says so (tag_in), runs body on the locker thread; once
 * its locking call sleeps or returned, tells rank to (tag_out). */
static void locker_between(int from, int tag_in, void (*body)(void), int to,
                           int tag_out) {
  MPI_Recv(NULL, 0, MPI_BYTE, from, tag_in, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  locker_start_and_settle(body);
  MPI_Send(NULL, 0, MPI_BYTE, to, tag_out, MPI_COMM_WORLD);
  locker_join();
}

static void run_b(void) {
  CHECK(MPI_Win_lock(MPI_LOCK_SHARED, RANK_T2, 0, win) == MPI_SUCCESS,
        "B's shared lock of T2");
  MPI_Send(NULL, 0, MPI_BYTE, RANK_T2, TAG_HELD, MPI_COMM_WORLD);
  /* T1's exclusive request waits behind A's shared lock. */
  MPI_Recv(NULL, 0, MPI_BYTE, RANK_T1, TAG_GO, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  CHECK(MPI_Win_lock(MPI_LOCK_SHARED, RANK_T1, 0, win) == MPI_SUCCESS,
        "B's shared lock of T1");
  MPI_Send(NULL, 0, MPI_BYTE, RANK_A, TAG_GOT, MPI_COMM_WORLD);
  CHECK(MPI_Win_unlock(RANK_T1, win) == MPI_SUCCESS, "B unlocks T1");
  CHECK(MPI_Win_unlock(RANK_T2, win) == MPI_SUCCESS, "B unlocks T2");
}

static void run_cycle(int rank) {
  if (rank == RANK_A) /* once T2's exclusive request waits behind B */
    locker_between(RANK_T2, TAG_GO, lock_all_body, RANK_T1, TAG_SENT);
  else if (rank == RANK_B)
    run_b();
  else if (rank == RANK_T1) /* A's shared lock here is granted */
    locker_between(RANK_A, TAG_SENT, exclusive_self_body, RANK_B, TAG_GO);
  else /* B's shared lock here is granted */
    locker_between(RANK_B, TAG_HELD, exclusive_self_body, RANK_A, TAG_GO);
}

/* ---- a hand-off of shared locks past a waiting exclusive request ----
 * S1 and S2 pass a shared lock of rank 0's window to each other, the next
 * holder locking before the last one unlocks (and the last one waiting
 * for the next one's word), while E's exclusive request waits: the
 * shared requests must pass it (queued behind it, the next holder would
 * wait for E, E for the last holder, the last holder for the next one's
 * message), and E gets the lock once the hand-off ends, with every
 * holder's increment of the counter done. */
enum { RELAY_TARGET = 0, RELAY_S1 = 1, RELAY_S2 = 2, RELAY_E = 3 };
enum { RELAY_ROUNDS = 40 };
static MPI_Win counter_win;
static int counter, counter_seen = -1;

static void relay_exclusive_body(void) {
  atomic_store(&locker.entered, 1);
  CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, RELAY_TARGET, 0, counter_win) ==
            MPI_SUCCESS,
        "E's exclusive lock");
  atomic_store(&locker.returned, 1);
  MPI_Get(&counter_seen, 1, MPI_INT, RELAY_TARGET, 0, 1, MPI_INT, counter_win);
  CHECK(MPI_Win_unlock(RELAY_TARGET, counter_win) == MPI_SUCCESS, "E's unlock");
}

static void relay_shared(int me) {
  int other = me == RELAY_S1 ? RELAY_S2 : RELAY_S1, one = 1;
  int holding = me == RELAY_S1;
  if (holding) { /* E's request waits behind this one before the relay */
    MPI_Win_lock(MPI_LOCK_SHARED, RELAY_TARGET, 0, counter_win);
    MPI_Send(NULL, 0, MPI_BYTE, RELAY_E, TAG_HELD, MPI_COMM_WORLD);
    MPI_Recv(NULL, 0, MPI_BYTE, RELAY_E, TAG_GO, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  }
  for (int round = 0; round < RELAY_ROUNDS; round++) {
    if (holding) {
      MPI_Send(NULL, 0, MPI_BYTE, other, TAG_GO, MPI_COMM_WORLD);
      MPI_Recv(NULL, 0, MPI_BYTE, other, TAG_GOT, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      MPI_Win_unlock(RELAY_TARGET, counter_win);
    } else {
      MPI_Recv(NULL, 0, MPI_BYTE, other, TAG_GO, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      MPI_Win_lock(MPI_LOCK_SHARED, RELAY_TARGET, 0, counter_win);
      MPI_Accumulate(&one, 1, MPI_INT, RELAY_TARGET, 0, 1, MPI_INT, MPI_SUM,
                     counter_win);
      MPI_Win_flush(RELAY_TARGET, counter_win);
      MPI_Send(NULL, 0, MPI_BYTE, other, TAG_GOT, MPI_COMM_WORLD);
    }
    holding = !holding;
  }
  if (holding)
    MPI_Win_unlock(RELAY_TARGET, counter_win);
}

static void run_relay(int rank) {
  MPI_Win_create(&counter, sizeof counter, sizeof counter, MPI_INFO_NULL,
                 MPI_COMM_WORLD, &counter_win);
  if (rank == RELAY_E) {
    locker_between(RELAY_S1, TAG_HELD, relay_exclusive_body, RELAY_S1, TAG_GO);
    CHECK(counter_seen == RELAY_ROUNDS, "E saw %d increments of %d",
          counter_seen, RELAY_ROUNDS);
  } else if (rank != RELAY_TARGET) {
    relay_shared(rank);
  }
  MPI_Win_free(&counter_win);
}

int main(int argc, char **argv) {
  int provided, rank, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 4, "needs 4 ranks, got %d", size);
  CHECK(provided == MPI_THREAD_MULTIPLE, "needs MPI_THREAD_MULTIPLE");
  MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, MPI_COMM_WORLD,
                 &win);
  run_cycle(rank);
  MPI_Win_free(&win);
  if (rank == RANK_T1 || rank == RANK_T2)
    CHECK(cell == 100 + rank, "rank %d's cell %d", rank, cell);
  run_relay(rank);
  MPI_Finalize();
  if (rank == 0)
    printf("rma_lock_order: ok\n");
  return 0;
}
