/* MPI_Alloc_mem registers its memory with verbs at once: 2 ranks, rank 1
 * sends SIZE bytes (a rendezvous: rank 0 RDMA READs them) from memory of
 * MPI_Alloc_mem into memory of MPI_Alloc_mem, twice with other bytes; the
 * registration cache must find every region it looks up during the
 * transfers already registered (verbs_regcache_misses does not move,
 * verbs_regcache_hits does, on both ranks).  Then the same transfer from
 * and into malloc'd memory must register (misses move), which shows the
 * counters see the lookups.  After MPI_Free_mem, memory malloc'd in its
 * place carries one more transfer (the double checks that no stale
 * registration serves it), and every byte of every transfer is checked.
 * Each rank prints "PASS rank R". */
#include "../mpi/mpitest.h"

#define SIZE ((size_t)1 << 20)

static int rank;
static MPI_T_pvar_session session;
static MPI_T_pvar_handle h_hits, h_misses;

static MPI_T_pvar_handle open_counter(const char *name) {
  int index = -1, count = 0;
  MPI_T_pvar_handle h;
  CHECK(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &index) ==
            MPI_SUCCESS,
        "no performance variable %s", name);
  CHECK(MPI_T_pvar_handle_alloc(session, index, NULL, &h, &count) ==
            MPI_SUCCESS,
        "handle_alloc %s", name);
  return h;
}

static void read_counts(unsigned long long *hits, unsigned long long *misses) {
  CHECK(MPI_T_pvar_read(session, h_hits, hits) == MPI_SUCCESS, "read hits");
  CHECK(MPI_T_pvar_read(session, h_misses, misses) == MPI_SUCCESS,
        "read misses");
}

static unsigned char pattern(size_t i, int seed) {
  return (unsigned char)(i * 131 + (size_t)seed * 17 + 3);
}

/* Rank 1 sends buf with seed's bytes, rank 0 receives into buf and checks
 * them. */
static void transfer(unsigned char *buf, int seed, const char *what) {
  if (rank == 1) {
    for (size_t i = 0; i < SIZE; i++)
      buf[i] = pattern(i, seed);
    MPI_Send(buf, (int)SIZE, MPI_BYTE, 0, seed, MPI_COMM_WORLD);
  } else {
    memset(buf, 0, SIZE);
    MPI_Recv(buf, (int)SIZE, MPI_BYTE, 1, seed, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    for (size_t i = 0; i < SIZE; i++)
      CHECK(buf[i] == pattern(i, seed), "%s: byte %zu is %u, want %u", what,
            i, buf[i], pattern(i, seed));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS,
        "T_init");
  CHECK(MPI_T_pvar_session_create(&session) == MPI_SUCCESS, "session");
  h_hits = open_counter("verbs_regcache_hits");
  h_misses = open_counter("verbs_regcache_misses");

  unsigned char *mem = NULL;
  CHECK(MPI_Alloc_mem((MPI_Aint)SIZE, MPI_INFO_NULL, &mem) == MPI_SUCCESS,
        "Alloc_mem");
  unsigned long long hits0, misses0, hits1, misses1;
  read_counts(&hits0, &misses0);
  transfer(mem, 1, "Alloc_mem, first");
  transfer(mem, 2, "Alloc_mem, second");
  read_counts(&hits1, &misses1);
  CHECK(misses1 == misses0, "Alloc_mem memory registered on demand: %llu misses",
        misses1 - misses0);
  CHECK(hits1 > hits0, "no registration lookup hit during the transfers");

  unsigned char *plain = malloc(SIZE);
  CHECK(plain != NULL, "malloc");
  transfer(plain, 3, "malloc");
  read_counts(&hits0, &misses0);
  CHECK(misses0 > misses1, "malloc'd memory did not register on demand");
  free(plain);

  CHECK(MPI_Free_mem(mem) == MPI_SUCCESS, "Free_mem");
  unsigned char *after = malloc(SIZE);
  CHECK(after != NULL, "malloc after Free_mem");
  transfer(after, 4, "after Free_mem");
  free(after);

  MPI_T_pvar_session_free(&session);
  MPI_T_finalize();
  printf("PASS rank %d\n", rank);
  MPI_Finalize();
  return 0;
}
