/* Rendezvous buffers that are freed, unmapped or remapped between
 * messages, where a cache of pinned registrations would go stale: 2 ranks,
 * rank 1 sends SIZE bytes (a rendezvous: rank 0 RDMA READs) twice per
 * round from the same buffer (the second send finds its registrations
 * cached), in a pattern that changes every round; rank 0 checks every
 * byte.  Cases (the arguments, all when none):
 *   malloc  both ranks malloc, use and free a buffer each round;
 *   munmap  both ranks munmap the buffer and map it again at the same
 *           address (fresh pages under the receiver's and the sender's
 *           cached regions);
 *   mremap  the sender shrinks its mapping in place and grows it back
 *           (fresh pages in the tail of the sender's cached region).
 * verbs_regcache_reuse.sh reads the cache's figures from the debug log
 * and runs the last two without the memory hooks, where the double must
 * see the stale regions.  Each rank prints "PASS rank R". */
#define _GNU_SOURCE /* mremap */
#include "../mpi/mpitest.h"

#include <sys/mman.h>
#include <unistd.h>

#define SIZE ((size_t)4 << 20)
#define ROUNDS 4

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static int rank;

static unsigned char pattern(size_t i, int round, int which) {
  return (unsigned char)(i * 131 + (size_t)round * 7 + (size_t)which * 53);
}

/* Rank 1 sends buf twice (round's pattern), rank 0 receives into buf and
 * checks each message. */
static void exchange(unsigned char *buf, int round, const char *name) {
  for (int which = 0; which < 2; which++) {
    if (rank == 1) {
      for (size_t i = 0; i < SIZE; i++)
        buf[i] = pattern(i, round, which);
      int rc = MPI_Send(buf, (int)SIZE, MPI_BYTE, 0, which, MPI_COMM_WORLD);
      CHECK(rc == MPI_SUCCESS, "%s round %d: send: %s", name, round,
            mt_errstr(rc));
    } else {
      memset(buf, 0xee, SIZE);
      int rc = MPI_Recv(buf, (int)SIZE, MPI_BYTE, 1, which, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE);
      CHECK(rc == MPI_SUCCESS, "%s round %d: recv: %s", name, round,
            mt_errstr(rc));
      for (size_t i = 0; i < SIZE; i++)
        CHECK(buf[i] == pattern(i, round, which),
              "%s round %d message %d: byte %zu is 0x%02x, not 0x%02x", name,
              round, which, i, buf[i], pattern(i, round, which));
    }
  }
}

static void case_malloc(void) {
  for (int round = 0; round < ROUNDS; round++) {
    unsigned char *buf = malloc(SIZE);
    CHECK(buf != NULL, "malloc");
    exchange(buf, round, "malloc");
    free(buf);
  }
}

static unsigned char *map_at(void *where) {
  void *p = mmap(
      where, SIZE, PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS | (where ? MAP_FIXED_NOREPLACE : 0), -1, 0);
  CHECK(p != MAP_FAILED, "mmap");
  return p;
}

static void case_munmap(void) {
  unsigned char *buf = map_at(NULL);
  for (int round = 0; round < ROUNDS; round++) {
    exchange(buf, round, "munmap");
    CHECK(munmap(buf, SIZE) == 0, "munmap");
    unsigned char *again = map_at(buf);
    /* A kernel without MAP_FIXED_NOREPLACE takes it as a hint. */
    CHECK(again == buf, "mapped again at %p, not %p", (void *)again,
          (void *)buf);
  }
  munmap(buf, SIZE);
}

static void case_mremap(void) {
  unsigned char *buf = map_at(NULL);
  for (int round = 0; round < ROUNDS; round++) {
    exchange(buf, round, "mremap");
    if (rank != 1)
      continue;
    CHECK(mremap(buf, SIZE, SIZE / 2, 0) == buf, "mremap shrink");
    CHECK(mremap(buf, SIZE / 2, SIZE, 0) == buf, "mremap grow in place");
  }
  munmap(buf, SIZE);
}

int main(int argc, char **argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "needs 2 ranks, got %d", size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  static const struct {
    const char *name;
    void (*run)(void);
  } cases[] = {{"malloc", case_malloc},
               {"munmap", case_munmap},
               {"mremap", case_mremap}};
  for (int a = 1; a < argc; a++) {
    int known = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      if (strcmp(argv[a], cases[i].name) == 0) {
        cases[i].run();
        known = 1;
      }
    CHECK(known, "unknown case %s", argv[a]);
  }
  for (size_t i = 0; argc == 1 && i < sizeof cases / sizeof cases[0]; i++)
    cases[i].run();
  MPI_Barrier(MPI_COMM_WORLD);
  printf("PASS rank %d\n", rank);
  MPI_Finalize();
  return 0;
}
