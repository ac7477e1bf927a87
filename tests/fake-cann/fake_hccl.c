/*
 * TEST DOUBLE of libhccl.so -- never installed, never shipped.  Point-to-
 * point HcclSend/HcclRecv between processes, run on the ACL double's
 * streams, over the ACL double's device memory:
 *  - HcclGetRootInfo names a rendezvous file in /dev/shm/fake-cann-<uid>/;
 *    HcclCommInitRootInfo maps it and blocks until all nRanks joined;
 *  - each ordered pair of ranks has a lane: a ring of posted sends.  Calls
 *    take a sequence number per (comm, peer, direction) when issued, so
 *    sends and receives pair one-to-one in issue order as the real ones do;
 *  - HcclSend queues a task on the stream that posts its buffer (pid, memfd,
 *    offset) and blocks the stream until the receiver took it; HcclRecv's
 *    task waits for the post, checks count and type, and reads the bytes
 *    straight from the sender's memfd into its own device memory;
 *  - a count or type mismatch fails both tasks: the streams report
 *    ACL_ERROR_RT_INTERNAL_ERROR and HcclGetCommAsyncError HCCL_E_PARA.
 * Waits end after HCCL_CONNECT_TIMEOUT (init) or HCCL_EXEC_TIMEOUT (tasks)
 * seconds, default 120, with HCCL_E_TIMEOUT.  See README.md.
 */
#define _GNU_SOURCE
#include "fake_hccl.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FH_SHARED_MAGIC 0x4843434cu /* "HCCL" */
#define FH_COMM_MAGIC 0x66686363u
#define FH_MAX_RANKS 16
#define FH_RING 16
#define FH_ROOT_PREFIX "fakehccl-root:"

enum { FH_FREE = 0, FH_POSTED = 1, FH_DONE = 2 };

typedef struct fh_entry {
  atomic_uint state;
  int32_t status; /* what the receiver decided (HcclResult) */
  uint64_t seq;
  int32_t pid, fd; /* the sender's memfd */
  uint64_t offset, count;
  int32_t dtype;
} fh_entry_t;

/* The rendezvous file.  lanes[src * FH_MAX_RANKS + dst]. */
typedef struct fh_shared {
  atomic_uint magic;
  uint32_t nranks;
  atomic_int joined, left;
  atomic_int pids[FH_MAX_RANKS];
  fh_entry_t lanes[FH_MAX_RANKS * FH_MAX_RANKS][FH_RING];
} fh_shared_t;

typedef struct fh_comm {
  uint32_t magic;
  uint32_t nranks, rank;
  fh_shared_t *sh;
  char path[200];
  pthread_mutex_t mu;
  uint64_t send_seq[FH_MAX_RANKS], recv_seq[FH_MAX_RANKS];
  atomic_int pending; /* tasks queued on streams, not yet run */
  atomic_int async_error;
} fh_comm_t;

typedef struct fh_task {
  fh_comm_t *comm;
  int send;
  uint32_t peer;
  uint64_t seq;
  void *shadow; /* this side's bytes (the ACL double's mapping) */
  int fd;
  uint64_t offset, count, bytes;
  int dtype;
} fh_task_t;

static atomic_ulong fh_root_seq;

static double fh_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double fh_timeout(const char *env) {
  const char *s = getenv(env);
  double t = s != NULL ? atof(s) : 0;
  return t > 0 ? t : 120.0;
}

/* Spins briefly, then sleeps: waits last as long as the peer process. */
static void fh_pause(unsigned *spins) {
  if ((*spins)++ < 200) {
    sched_yield();
    return;
  }
  struct timespec ts = {0, 20000};
  nanosleep(&ts, NULL);
}

static size_t fh_type_size(HcclDataType t) {
  switch (t) {
  case HCCL_DATA_TYPE_INT8:
  case HCCL_DATA_TYPE_UINT8:
  case HCCL_DATA_TYPE_HIF8:
  case HCCL_DATA_TYPE_FP8E4M3:
  case HCCL_DATA_TYPE_FP8E5M2:
  case HCCL_DATA_TYPE_FP8E8M0:
    return 1;
  case HCCL_DATA_TYPE_INT16:
  case HCCL_DATA_TYPE_UINT16:
  case HCCL_DATA_TYPE_FP16:
  case HCCL_DATA_TYPE_BFP16:
    return 2;
  case HCCL_DATA_TYPE_INT32:
  case HCCL_DATA_TYPE_UINT32:
  case HCCL_DATA_TYPE_FP32:
    return 4;
  case HCCL_DATA_TYPE_INT64:
  case HCCL_DATA_TYPE_UINT64:
  case HCCL_DATA_TYPE_FP64:
    return 8;
  case HCCL_DATA_TYPE_INT128:
    return 16;
  default:
    return 0;
  }
}

static void fh_dir(char *dir, size_t len) { fakecann_dir(dir, len); }

HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo) {
  if (rootInfo == NULL)
    return HCCL_E_PTR;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  memset(rootInfo, 0, sizeof *rootInfo);
  snprintf(rootInfo->internal, sizeof rootInfo->internal,
           FH_ROOT_PREFIX "fakehccl-%d-%lu-%ld%09ld", (int)getpid(),
           atomic_fetch_add(&fh_root_seq, 1) + 1, (long)ts.tv_sec,
           (long)ts.tv_nsec);
  return HCCL_SUCCESS;
}

/* Maps (creating if first) the rendezvous file the root info names. */
static HcclResult fh_map(const HcclRootInfo *ri, fh_comm_t *c) {
  const char *id = ri->internal + strlen(FH_ROOT_PREFIX);
  if (strncmp(ri->internal, FH_ROOT_PREFIX, strlen(FH_ROOT_PREFIX)) != 0 ||
      memchr(id, '\0', 100) == NULL || strchr(id, '/') != NULL)
    return HCCL_E_PARA;
  char dir[96];
  fh_dir(dir, sizeof dir);
  if (mkdir(dir, 0700) != 0 && errno != EEXIST)
    return HCCL_E_OPEN_FILE_FAILURE;
  snprintf(c->path, sizeof c->path, "%s/%.100s", dir, id);
  int fd = open(c->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    return HCCL_E_OPEN_FILE_FAILURE;
  struct stat st;
  /* Growing only: a late joiner never truncates what others wrote. */
  if (fstat(fd, &st) != 0 || ((size_t)st.st_size < sizeof(fh_shared_t) &&
                              ftruncate(fd, sizeof(fh_shared_t)) != 0)) {
    close(fd);
    return HCCL_E_SYSCALL;
  }
  void *p = mmap(NULL, sizeof(fh_shared_t), PROT_READ | PROT_WRITE, MAP_SHARED,
                 fd, 0);
  close(fd);
  if (p == MAP_FAILED)
    return HCCL_E_MEMORY;
  c->sh = p;
  return HCCL_SUCCESS;
}

static HcclResult fh_join(fh_comm_t *c) {
  fh_shared_t *sh = c->sh;
  unsigned zero = 0, spins = 0;
  if (atomic_compare_exchange_strong(&sh->magic, &zero, 1u)) {
    sh->nranks = c->nranks;
    atomic_store(&sh->magic, FH_SHARED_MAGIC);
  }
  double deadline = fh_now() + fh_timeout("HCCL_CONNECT_TIMEOUT");
  while (atomic_load(&sh->magic) != FH_SHARED_MAGIC)
    fh_pause(&spins);
  if (sh->nranks != c->nranks)
    return HCCL_E_PARA; /* nRanks must be identical everywhere */
  int none = 0;
  if (!atomic_compare_exchange_strong(&sh->pids[c->rank], &none, (int)getpid()))
    return HCCL_E_PARA; /* this rank joined already */
  atomic_fetch_add(&sh->joined, 1);
  while (atomic_load(&sh->joined) < (int)c->nranks) {
    if (fh_now() > deadline)
      return HCCL_E_TIMEOUT;
    fh_pause(&spins);
  }
  return HCCL_SUCCESS;
}

HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo,
                                uint32_t rank, HcclComm *comm) {
  if (rootInfo == NULL || comm == NULL)
    return HCCL_E_PTR;
  if (nRanks == 0 || rank >= nRanks)
    return HCCL_E_PARA;
  if (nRanks > FH_MAX_RANKS)
    return HCCL_E_NOT_SUPPORT;
  int32_t dev;
  if (aclrtGetDevice(&dev) != ACL_SUCCESS)
    return HCCL_E_RUNTIME; /* aclrtSetDevice first, in this thread */
  fh_comm_t *c = calloc(1, sizeof *c);
  if (c == NULL)
    return HCCL_E_MEMORY;
  c->nranks = nRanks;
  c->rank = rank;
  HcclResult rc = fh_map(rootInfo, c);
  if (rc == HCCL_SUCCESS)
    rc = fh_join(c);
  if (rc != HCCL_SUCCESS) {
    if (c->sh != NULL)
      munmap(c->sh, sizeof *c->sh);
    free(c);
    return rc;
  }
  pthread_mutex_init(&c->mu, NULL);
  c->magic = FH_COMM_MAGIC;
  *comm = c;
  return HCCL_SUCCESS;
}

static fh_comm_t *fh_comm(HcclComm comm) {
  fh_comm_t *c = comm;
  return c != NULL && c->magic == FH_COMM_MAGIC ? c : NULL;
}

HcclResult HcclCommDestroy(HcclComm comm) {
  fh_comm_t *c = fh_comm(comm);
  if (c == NULL)
    return HCCL_E_PTR;
  unsigned spins = 0;
  while (atomic_load(&c->pending) > 0) /* tasks still hold c */
    fh_pause(&spins);
  if (atomic_fetch_add(&c->sh->left, 1) + 1 == (int)c->nranks)
    unlink(c->path);
  munmap(c->sh, sizeof *c->sh);
  c->magic = 0;
  pthread_mutex_destroy(&c->mu);
  free(c);
  return HCCL_SUCCESS;
}

HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize) {
  fh_comm_t *c = fh_comm(comm);
  if (c == NULL || rankSize == NULL)
    return HCCL_E_PTR;
  *rankSize = c->nranks;
  return HCCL_SUCCESS;
}

HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank) {
  fh_comm_t *c = fh_comm(comm);
  if (c == NULL || rank == NULL)
    return HCCL_E_PTR;
  *rank = c->rank;
  return HCCL_SUCCESS;
}

HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError) {
  fh_comm_t *c = fh_comm(comm);
  if (c == NULL || asyncError == NULL)
    return HCCL_E_PTR;
  *asyncError = (HcclResult)atomic_load(&c->async_error);
  return HCCL_SUCCESS;
}

/* ---- the tasks (run on a stream worker) --------------------------------- */

static fh_entry_t *fh_entry(fh_comm_t *c, uint32_t src, uint32_t dst,
                            uint64_t seq) {
  return &c->sh->lanes[src * FH_MAX_RANKS + dst][seq % FH_RING];
}

static HcclResult fh_run_send(fh_task_t *t) {
  fh_comm_t *c = t->comm;
  fh_entry_t *e = fh_entry(c, c->rank, t->peer, t->seq);
  double deadline = fh_now() + fh_timeout("HCCL_EXEC_TIMEOUT");
  unsigned spins = 0;
  while (atomic_load(&e->state) != FH_FREE) {
    if (fh_now() > deadline)
      return HCCL_E_TIMEOUT;
    fh_pause(&spins);
  }
  e->seq = t->seq;
  e->pid = (int32_t)getpid();
  e->fd = t->fd;
  e->offset = t->offset;
  e->count = t->count;
  e->dtype = t->dtype;
  e->status = HCCL_SUCCESS;
  atomic_store(&e->state, FH_POSTED);
  /* Synchronous, as documented: the stream moves on once the peer took
   * the data. */
  while (atomic_load(&e->state) != FH_DONE) {
    if (fh_now() > deadline)
      return HCCL_E_TIMEOUT;
    fh_pause(&spins);
  }
  HcclResult rc = (HcclResult)e->status;
  atomic_store(&e->state, FH_FREE);
  return rc;
}

static HcclResult fh_read_peer(const fh_entry_t *e, void *dst, size_t n) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)e->pid, (int)e->fd);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return HCCL_E_SYSCALL;
  size_t done = 0;
  while (done < n) {
    ssize_t r =
        pread(fd, (char *)dst + done, n - done, (off_t)(e->offset + done));
    if (r <= 0 && !(r < 0 && errno == EINTR))
      break;
    if (r > 0)
      done += (size_t)r;
  }
  close(fd);
  return done == n ? HCCL_SUCCESS : HCCL_E_SYSCALL;
}

static HcclResult fh_run_recv(fh_task_t *t) {
  fh_comm_t *c = t->comm;
  fh_entry_t *e = fh_entry(c, t->peer, c->rank, t->seq);
  double deadline = fh_now() + fh_timeout("HCCL_EXEC_TIMEOUT");
  unsigned spins = 0;
  while (atomic_load(&e->state) != FH_POSTED || e->seq != t->seq) {
    if (fh_now() > deadline)
      return HCCL_E_TIMEOUT;
    fh_pause(&spins);
  }
  HcclResult rc = HCCL_SUCCESS;
  if (e->count != t->count || e->dtype != t->dtype)
    rc = HCCL_E_PARA; /* send and receive must agree on count and type */
  else
    rc = fh_read_peer(e, t->shadow, t->bytes);
  e->status = rc;
  atomic_store(&e->state, FH_DONE);
  return rc;
}

static int fh_run(void *arg) {
  fh_task_t *t = arg;
  fh_comm_t *c = t->comm;
  HcclResult rc = t->send ? fh_run_send(t) : fh_run_recv(t);
  if (rc != HCCL_SUCCESS) {
    int none = HCCL_SUCCESS;
    atomic_compare_exchange_strong(&c->async_error, &none, (int)rc);
  }
  free(t);
  atomic_fetch_sub(&c->pending, 1);
  return rc != HCCL_SUCCESS;
}

static HcclResult fh_enqueue(int send, void *buf, uint64_t count,
                             HcclDataType type, uint32_t peer, HcclComm comm,
                             aclrtStream stream) {
  fh_comm_t *c = fh_comm(comm);
  if (c == NULL || buf == NULL)
    return HCCL_E_PTR;
  size_t esize = fh_type_size(type);
  if (stream == NULL || esize == 0 || count == 0 || peer >= c->nranks ||
      peer == c->rank || count > SIZE_MAX / esize)
    return HCCL_E_PARA;
  int32_t dev;
  if (aclrtGetDevice(&dev) != ACL_SUCCESS)
    return HCCL_E_RUNTIME;
  fh_task_t *t = calloc(1, sizeof *t);
  if (t == NULL)
    return HCCL_E_MEMORY;
  t->comm = c;
  t->send = send;
  t->peer = peer;
  t->count = count;
  t->dtype = type;
  t->bytes = count * esize;
  if (fakecann_device_span(buf, t->bytes, &t->shadow, &t->fd, &t->offset) !=
      ACL_SUCCESS) {
    free(t);
    return HCCL_E_PARA; /* not device memory, or past its allocation */
  }
  pthread_mutex_lock(&c->mu);
  t->seq = send ? c->send_seq[peer]++ : c->recv_seq[peer]++;
  atomic_fetch_add(&c->pending, 1);
  aclError err = fakecann_stream_call(stream, fh_run, t);
  pthread_mutex_unlock(&c->mu);
  if (err != ACL_SUCCESS) {
    atomic_fetch_sub(&c->pending, 1);
    free(t);
    return HCCL_E_RUNTIME;
  }
  return HCCL_SUCCESS;
}

HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType,
                    uint32_t destRank, HcclComm comm, aclrtStream stream) {
  return fh_enqueue(1, sendBuf, count, dataType, destRank, comm, stream);
}

HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType,
                    uint32_t srcRank, HcclComm comm, aclrtStream stream) {
  return fh_enqueue(0, recvBuf, count, dataType, srcRank, comm, stream);
}

const char *HcclGetErrorString(HcclResult code) {
  switch (code) {
  case HCCL_SUCCESS:
    return "success";
  case HCCL_E_PARA:
    return "parameter error";
  case HCCL_E_PTR:
    return "empty pointer";
  case HCCL_E_MEMORY:
    return "memory error";
  case HCCL_E_NOT_SUPPORT:
    return "not supported";
  case HCCL_E_TIMEOUT:
    return "timeout";
  case HCCL_E_SYSCALL:
    return "system call error";
  case HCCL_E_RUNTIME:
    return "runtime error";
  case HCCL_E_OPEN_FILE_FAILURE:
    return "open file failure";
  default:
    return "error (fake-cann libhccl test double)";
  }
}
