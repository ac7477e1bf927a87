/* A receiver out of memory loses no message without a word.  Four
 * messages reach rank 0 before their receives are posted, while its
 * allocations fail: an eager one, a synchronous one, a rendezvous one and
 * a small marker.  Then each receive either gets its bytes intact or
 * returns MPI_ERR_NO_MEM (MPI_ERRORS_RETURN), never hangs; the rendezvous
 * one, whose envelope carries all there is to keep, is delivered; the
 * synchronous sender completes; and the pair's traffic goes on.
 *   nomem_recv payload DIR   allocations of 1024 bytes and more fail: the
 *                            eager payloads find no room, envelopes do
 *   nomem_recv all DIR       every allocation fails, so even the envelopes
 *                            come from what the library set aside
 * The failures come from this program's own malloc, calloc and realloc,
 * which the library's calls reach (an executable's definitions come first).
 * DIR is an empty directory: rank 0 makes a file there once its
 * allocations fail, and rank 1 sends only when it sees it (an MPI call to
 * order the two could itself need memory). */
#include "mpitest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NOMEM_HOOK 0 /* the sanitizers own malloc */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||     \
    __has_feature(memory_sanitizer)
#define NOMEM_HOOK 0
#endif
#endif
#ifndef NOMEM_HOOK
#define NOMEM_HOOK 1
#endif

enum { TAG_EAGER = 7, TAG_SYNC = 8, TAG_RNDV = 9, TAG_MARK = 10, TAG_AFTER = 11 };
enum { EAGER_BYTES = 4096, SYNC_BYTES = 2048, RNDV_BYTES = 1 << 20, MARK_BYTES = 4 };

static atomic_size_t fail_from; /* allocations this big fail; 0: none */
static atomic_long failed;      /* how many did */

#if NOMEM_HOOK
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t k, size_t n);
extern void *__libc_realloc(void *p, size_t n);

static int nomem_refuse(size_t n)
{
    size_t from = atomic_load(&fail_from);
    if (from == 0 || n < from)
        return 0;
    atomic_fetch_add(&failed, 1);
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n)
{
    return nomem_refuse(n) ? NULL : __libc_malloc(n);
}

void *calloc(size_t k, size_t n)
{
    size_t bytes = k != 0 && n > (size_t)-1 / k ? (size_t)-1 : k * n;
    return nomem_refuse(bytes) ? NULL : __libc_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
    return nomem_refuse(n) ? NULL : __libc_realloc(p, n);
}
#endif

/* Whether a receive that returned rc got the message: its bytes and
 * status, or MPI_ERR_NO_MEM; anything else fails the test. */
static int delivered(const char *what, int rc, const MPI_Status *st, const void *buf,
                     int bytes, unsigned seed, int tag)
{
    if (mt_class(rc) == MPI_ERR_NO_MEM) {
        printf("rank 0: %s: MPI_ERR_NO_MEM (%s)\n", what, mt_errstr(rc));
        return 0;
    }
    CHECK(rc == MPI_SUCCESS, "%s: %s", what, mt_errstr(rc));
    CHECK(st->MPI_SOURCE == 1 && st->MPI_TAG == tag, "%s: status source %d tag %d", what,
          st->MPI_SOURCE, st->MPI_TAG);
    CHECK(mt_status_count(st, MPI_BYTE) == bytes, "%s: count %d, want %d", what,
          mt_status_count(st, MPI_BYTE), bytes);
    CHECK(mt_verify(buf, (size_t)bytes, seed) == MT_OK, "%s: wrong bytes", what);
    printf("rank 0: %s: delivered\n", what);
    return 1;
}

static void receiver(size_t from, const char *flag, unsigned char *buf)
{
    atomic_store(&fail_from, from);
    int fd = open(flag, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    CHECK(fd >= 0, "cannot create %s", flag);
    close(fd);
    int seen = 0;
    while (!seen) /* the marker came last: the others are in by now */
        MPI_Iprobe(1, TAG_MARK, MPI_COMM_WORLD, &seen, MPI_STATUS_IGNORE);
    atomic_store(&fail_from, 0);
    CHECK(atomic_load(&failed) > 0, "no allocation failed: the test proves nothing");
    MPI_Status st;
    int rc = MPI_Recv(buf, EAGER_BYTES, MPI_BYTE, 1, TAG_EAGER, MPI_COMM_WORLD, &st);
    delivered("eager", rc, &st, buf, EAGER_BYTES, 1, TAG_EAGER);
    rc = MPI_Recv(buf, SYNC_BYTES, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD, &st);
    delivered("synchronous", rc, &st, buf, SYNC_BYTES, 2, TAG_SYNC);
    rc = MPI_Recv(buf, RNDV_BYTES, MPI_BYTE, 1, TAG_RNDV, MPI_COMM_WORLD, &st);
    CHECK(delivered("rendezvous", rc, &st, buf, RNDV_BYTES, 3, TAG_RNDV),
          "the rendezvous envelope holds the whole message, yet it was lost");
    rc = MPI_Recv(buf, MARK_BYTES, MPI_BYTE, 1, TAG_MARK, MPI_COMM_WORLD, &st);
    delivered("marker", rc, &st, buf, MARK_BYTES, 4, TAG_MARK);
    /* Traffic goes on both ways. */
    mt_fill(buf, EAGER_BYTES, 5);
    CHECK(MPI_Send(buf, EAGER_BYTES, MPI_BYTE, 1, TAG_AFTER, MPI_COMM_WORLD) == MPI_SUCCESS,
          "send after");
    rc = MPI_Recv(buf, EAGER_BYTES, MPI_BYTE, 1, TAG_AFTER, MPI_COMM_WORLD, &st);
    CHECK(delivered("reply after", rc, &st, buf, EAGER_BYTES, 6, TAG_AFTER), "reply lost");
}

static void sender(const char *flag, unsigned char *buf)
{
    while (access(flag, F_OK) != 0)
        usleep(1000);
    unsigned char *parts[4] = {buf, buf + EAGER_BYTES, buf + EAGER_BYTES + SYNC_BYTES,
                               buf + EAGER_BYTES + SYNC_BYTES + RNDV_BYTES};
    mt_fill(parts[0], EAGER_BYTES, 1);
    mt_fill(parts[1], SYNC_BYTES, 2);
    mt_fill(parts[2], RNDV_BYTES, 3);
    mt_fill(parts[3], MARK_BYTES, 4);
    MPI_Request req[4];
    MPI_Isend(parts[0], EAGER_BYTES, MPI_BYTE, 0, TAG_EAGER, MPI_COMM_WORLD, &req[0]);
    MPI_Issend(parts[1], SYNC_BYTES, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(parts[2], RNDV_BYTES, MPI_BYTE, 0, TAG_RNDV, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(parts[3], MARK_BYTES, MPI_BYTE, 0, TAG_MARK, MPI_COMM_WORLD, &req[3]);
    MPI_Status st[4];
    int rc = MPI_Waitall(4, req, st);
    CHECK(rc == MPI_SUCCESS, "sends: %s", mt_errstr(rc));
    unsigned char *back = parts[2];
    rc = MPI_Recv(back, EAGER_BYTES, MPI_BYTE, 0, TAG_AFTER, MPI_COMM_WORLD, &st[0]);
    CHECK(rc == MPI_SUCCESS && mt_verify(back, EAGER_BYTES, 5) == MT_OK, "message after: %s",
          mt_errstr(rc));
    mt_fill(back, EAGER_BYTES, 6);
    rc = MPI_Send(back, EAGER_BYTES, MPI_BYTE, 0, TAG_AFTER, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "reply after: %s", mt_errstr(rc));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!NOMEM_HOOK) {
        if (rank == 0)
            printf("SKIP: the sanitizers' allocator cannot be made to fail here\n");
        MPI_Finalize();
        return 77;
    }
    CHECK(size == 2 && argc == 3, "usage: nomem_recv payload|all DIR on 2 ranks");
    size_t from = strcmp(argv[1], "all") == 0 ? 1 : 1024;
    char flag[4096];
    snprintf(flag, sizeof flag, "%s/armed", argv[2]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned char *buf = mt_malloc(EAGER_BYTES + SYNC_BYTES + RNDV_BYTES + MARK_BYTES);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        receiver(from, flag, buf);
    else
        sender(flag, buf);
    free(buf);
    MPI_Finalize();
    printf("rank %d: PASS %s\n", rank, argv[1]);
    return 0;
}
