/*
 * MPI messages between CUDA device buffers and host buffers over the verbs
 * transport, for verbs_dmabuf.sh (the CUDA and verbs test doubles): device
 * to device, device to host and host to device, 0 B to 16 MiB, each way
 * between the two ranks, every byte checked.  Then a freed device buffer
 * whose address the driver hands out again: the new allocation's bytes
 * must arrive, at either end, not the old one's (a registration kept for
 * the freed allocation would serve those).  Which data path ran is for the
 * script to read in the debug log.  2 ranks; 77 without the driver.  Also
 * run on real GPUs and HCAs by run-on-cluster.sh.
 *
 * An argument narrows the run to some kinds, sender's then receiver's
 * buffer: "dd" (device to device), "dh", "hd", or several joined by
 * commas; the reallocation test then does not run.  The script uses it
 * where only one kind may take the path it asserts.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../device/fake_api.h"
#include "../device/mpi_check.h"

static int rank;
static fake_api_t fa;

static unsigned char byte_at(size_t i, int salt) {
  return (unsigned char)((i * 29u + (unsigned)salt * 11u + 3u) & 0xff);
}

/* n bytes (at least one allocated) holding byte_at(., salt), on the device
 * or the host. */
static unsigned char *db_buf(int dev, size_t n, int salt) {
  size_t alloc = n ? n : 1;
  unsigned char *h = malloc(alloc), *p = h;
  CHECK(h != NULL);
  for (size_t i = 0; i < alloc; i++)
    h[i] = byte_at(i, salt);
  if (dev) {
    CHECK(fa.malloc_dev((void **)&p, alloc, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
    CHECK(fa.memcpy_sync(p, alloc, h, alloc, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
    free(h);
  }
  return p;
}

static void db_free(int dev, unsigned char *p) {
  if (dev)
    CHECK(fa.free_dev(p) == 0);
  else
    free(p);
}

static void db_expect(int dev, const unsigned char *p, size_t n, int salt) {
  unsigned char *h = (unsigned char *)p;
  if (dev && n > 0) {
    CHECK((h = malloc(n)) != NULL);
    CHECK(fa.memcpy_sync(h, n, p, n, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
  }
  for (size_t i = 0; i < n; i++)
    if (h[i] != byte_at(i, salt)) {
      fprintf(stderr, "rank %d: byte %zu of %zu is %u, want %u\n", rank, i, n,
              h[i], byte_at(i, salt));
      CHECK(0);
    }
  if (dev && n > 0)
    free(h);
}

/* from sends n bytes (its buffer on the device when sdev) to the other
 * rank's buffer (on the device when rdev). */
static void db_message(int from, int sdev, int rdev, size_t n, int salt) {
  MPI_Status st;
  int count = -1;
  if (rank == from) {
    unsigned char *s = db_buf(sdev, n, salt);
    CHECK(MPI_Send(s, (int)n, MPI_BYTE, 1 - rank, salt, MPI_COMM_WORLD) == 0);
    db_free(sdev, s);
  } else {
    unsigned char *r = db_buf(rdev, n, 0);
    CHECK(MPI_Recv(r, (int)n, MPI_BYTE, from, salt, MPI_COMM_WORLD, &st) == 0);
    CHECK(MPI_Get_count(&st, MPI_BYTE, &count) == 0 && count == (int)n);
    db_expect(rdev, r, n, salt);
    db_free(rdev, r);
  }
}

/* Rank 0 sends from a device buffer, frees it, allocates one of the same
 * size (the driver usually hands the address out again: the CUDA double
 * always does), fills it anew and sends again; rank 1 receives into a
 * device buffer it frees and reallocates the same way.  Both messages
 * must carry their own bytes.  Says how often the address came back. */
static void db_reallocated(size_t n) {
  int reused = 0;
  unsigned char *b = db_buf(1, n, rank == 0 ? 71 : 0);
  for (int round = 0; round < 2; round++) {
    int salt = 71 + round;
    if (rank == 0) {
      CHECK(MPI_Send(b, (int)n, MPI_BYTE, 1, salt, MPI_COMM_WORLD) == 0);
    } else {
      CHECK(MPI_Recv(b, (int)n, MPI_BYTE, 0, salt, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE) == 0);
      db_expect(1, b, n, salt);
    }
    unsigned char *old = b;
    db_free(1, b);
    b = db_buf(1, n, rank == 0 ? salt + 1 : 0);
    reused += b == old;
  }
  db_free(1, b);
  printf("verbs_dmabuf: rank %d: freed address reused %d of 2 times\n", rank,
         reused);
}

/* Whether the comma-separated list names kind. */
static int db_listed(const char *list, const char *kind) {
  size_t n = strlen(kind);
  for (const char *p = list; *p != '\0'; p += *p == ',') {
    if (strncmp(p, kind, n) == 0 && (p[n] == ',' || p[n] == '\0'))
      return 1;
    p += strcspn(p, ",");
  }
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2 || fake_api_load_cuda(0, &fa) != 0) {
    MPI_Finalize();
    return 77;
  }
  static const size_t sizes[] = {0,      1,          4095,           4096,
                                 100003, (1u << 20), (4u << 20) + 3, 16u << 20};
  static const struct {
    const char *name;
    int sdev, rdev;
  } kinds[] = {{"dd", 1, 1}, {"dh", 1, 0}, {"hd", 0, 1}};
  const char *only = argc > 1 ? argv[1] : NULL;
  int salt = 1, ran = 0;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    if (only != NULL && !db_listed(only, kinds[k].name))
      continue;
    ran++;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
      for (int from = 0; from < 2; from++, salt++)
        db_message(from, kinds[k].sdev, kinds[k].rdev, sizes[i], salt);
  }
  CHECK(ran > 0); /* a misspelt kind tests nothing */
  if (only == NULL)
    db_reallocated(256u << 10);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("verbs_dmabuf: ok\n");
  MPI_Finalize();
  return 0;
}
