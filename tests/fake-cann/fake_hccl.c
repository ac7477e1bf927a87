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
 *  - collectives (HcclAllReduce, HcclBroadcast, HcclAllGather,
 *    HcclReduceScatter, HcclReduce, HcclAlltoAllV) take a number per comm
 *    when issued; their stream task posts the rank's input (pid, memfd,
 *    offset, arguments) in its slot of the file, reads the parts of the
 *    other ranks' inputs it needs straight from their memfds, tells each it
 *    is done with it, and writes its output only once every rank is done
 *    with its input (so in-place calls are safe).  Arguments that differ
 *    between the ranks fail every rank's task, as a mismatched send does.
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

enum {
  FH_ALLREDUCE = 1,
  FH_BROADCAST,
  FH_ALLGATHER,
  FH_REDUCE_SCATTER,
  FH_REDUCE,
  FH_ALLTOALLV
};

/* One rank's input to one collective, as the others read it. */
typedef struct fh_post {
  atomic_uint state;  /* FH_FREE or FH_POSTED */
  atomic_int readers; /* ranks done with this input */
  uint64_t seq;
  int32_t pid, fd; /* the input's memfd (-1: no input) */
  uint64_t offset;
  int32_t kind, dtype, op;
  uint32_t root;
  uint64_t count;
  /* HcclAlltoAllV: elements for each rank, and where they start. */
  uint64_t counts[FH_MAX_RANKS], displs[FH_MAX_RANKS];
} fh_post_t;

/* The rendezvous file.  lanes[src * FH_MAX_RANKS + dst]; posts[rank]. */
typedef struct fh_shared {
  atomic_uint magic;
  uint32_t nranks;
  atomic_int joined, left;
  atomic_int pids[FH_MAX_RANKS];
  fh_entry_t lanes[FH_MAX_RANKS * FH_MAX_RANKS][FH_RING];
  fh_post_t posts[FH_MAX_RANKS][FH_RING];
} fh_shared_t;

typedef struct fh_comm {
  uint32_t magic;
  uint32_t nranks, rank;
  fh_shared_t *sh;
  char path[200];
  pthread_mutex_t mu;
  uint64_t send_seq[FH_MAX_RANKS], recv_seq[FH_MAX_RANKS];
  uint64_t coll_seq;
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
static atomic_ulong fh_collective_calls, fh_p2p_calls;

unsigned long fakehccl_collectives(void) {
  return atomic_load(&fh_collective_calls);
}

unsigned long fakehccl_p2p_calls(void) { return atomic_load(&fh_p2p_calls); }

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

/* n bytes at offset of another process's memfd. */
static HcclResult fh_read_memfd(int pid, int memfd, uint64_t offset, void *dst,
                                size_t n) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, memfd);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return HCCL_E_SYSCALL;
  size_t done = 0;
  while (done < n) {
    ssize_t r = pread(fd, (char *)dst + done, n - done, (off_t)(offset + done));
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
    rc = fh_read_memfd(e->pid, e->fd, e->offset, t->shadow, t->bytes);
  e->status = rc;
  atomic_store(&e->state, FH_DONE);
  return rc;
}

/* A task ends: its failure becomes the comm's async error, and the comm
 * no longer waits for it. */
static int fh_task_end(fh_comm_t *c, void *task, HcclResult rc) {
  if (rc != HCCL_SUCCESS) {
    int none = HCCL_SUCCESS;
    atomic_compare_exchange_strong(&c->async_error, &none, (int)rc);
  }
  free(task);
  atomic_fetch_sub(&c->pending, 1);
  return rc != HCCL_SUCCESS;
}

/* A zeroed task of bytes, for a thread bound to a device (as HCCL wants). */
static void *fh_task_alloc(size_t bytes, HcclResult *rc) {
  int32_t dev;
  *rc = HCCL_SUCCESS;
  if (aclrtGetDevice(&dev) != ACL_SUCCESS) {
    *rc = HCCL_E_RUNTIME;
    return NULL;
  }
  void *t = calloc(1, bytes);
  if (t == NULL)
    *rc = HCCL_E_MEMORY;
  return t;
}

/* Numbers task from *counter and queues run(task) on stream, under the
 * comm's lock so that numbers follow issue order.  Takes task. */
static HcclResult fh_queue(fh_comm_t *c, aclrtStream stream, int (*run)(void *),
                           void *task, uint64_t *counter, uint64_t *seq) {
  pthread_mutex_lock(&c->mu);
  *seq = (*counter)++;
  atomic_fetch_add(&c->pending, 1);
  aclError err = fakecann_stream_call(stream, run, task);
  pthread_mutex_unlock(&c->mu);
  if (err != ACL_SUCCESS) {
    atomic_fetch_sub(&c->pending, 1);
    free(task);
    return HCCL_E_RUNTIME;
  }
  return HCCL_SUCCESS;
}

static int fh_run(void *arg) {
  fh_task_t *t = arg;
  return fh_task_end(t->comm, t, t->send ? fh_run_send(t) : fh_run_recv(t));
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
  HcclResult rc;
  fh_task_t *t = fh_task_alloc(sizeof *t, &rc);
  if (t == NULL)
    return rc;
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
  HcclResult queued =
      fh_queue(c, stream, fh_run, t,
               send ? &c->send_seq[peer] : &c->recv_seq[peer], &t->seq);
  if (queued == HCCL_SUCCESS)
    atomic_fetch_add(&fh_p2p_calls, 1);
  return queued;
}

HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType,
                    uint32_t destRank, HcclComm comm, aclrtStream stream) {
  return fh_enqueue(1, sendBuf, count, dataType, destRank, comm, stream);
}

HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType,
                    uint32_t srcRank, HcclComm comm, aclrtStream stream) {
  return fh_enqueue(0, recvBuf, count, dataType, srcRank, comm, stream);
}

/* ---- collectives --------------------------------------------------------- */

typedef struct fh_coll {
  fh_comm_t *comm;
  uint64_t seq;
  int kind, dtype, op;
  uint32_t root;
  uint64_t count;
  size_t esize;
  void *in; /* this rank's input (shadow), NULL if it has none */
  int in_fd;
  uint64_t in_offset;
  void *out; /* this rank's output (shadow), NULL if it has none */
  size_t out_bytes;
  uint64_t scounts[FH_MAX_RANKS], sdispls[FH_MAX_RANKS];
  uint64_t rcounts[FH_MAX_RANKS], rdispls[FH_MAX_RANKS];
} fh_coll_t;

static int fh_reduces(int kind) {
  return kind == FH_ALLREDUCE || kind == FH_REDUCE_SCATTER || kind == FH_REDUCE;
}

#define FH_COMBINE(T)                                                          \
  do {                                                                         \
    T *a = acc;                                                                \
    const T *b = in;                                                           \
    for (size_t i = 0; i < n; i++)                                             \
      a[i] = op == HCCL_REDUCE_SUM    ? (T)(a[i] + b[i])                       \
             : op == HCCL_REDUCE_PROD ? (T)(a[i] * b[i])                       \
             : op == HCCL_REDUCE_MAX  ? (a[i] > b[i] ? a[i] : b[i])            \
                                      : (a[i] < b[i] ? a[i] : b[i]);            \
  } while (0)

/* acc[i] = acc[i] op in[i] over n elements; 0 for a type the double does
 * not reduce. */
static int fh_combine(int dtype, int op, void *acc, const void *in, size_t n) {
  switch (dtype) {
  case HCCL_DATA_TYPE_INT8:
    FH_COMBINE(int8_t);
    return 1;
  case HCCL_DATA_TYPE_UINT8:
    FH_COMBINE(uint8_t);
    return 1;
  case HCCL_DATA_TYPE_INT16:
    FH_COMBINE(int16_t);
    return 1;
  case HCCL_DATA_TYPE_UINT16:
    FH_COMBINE(uint16_t);
    return 1;
  case HCCL_DATA_TYPE_INT32:
    FH_COMBINE(int32_t);
    return 1;
  case HCCL_DATA_TYPE_UINT32:
    FH_COMBINE(uint32_t);
    return 1;
  case HCCL_DATA_TYPE_INT64:
    FH_COMBINE(int64_t);
    return 1;
  case HCCL_DATA_TYPE_UINT64:
    FH_COMBINE(uint64_t);
    return 1;
  case HCCL_DATA_TYPE_FP32:
    FH_COMBINE(float);
    return 1;
  case HCCL_DATA_TYPE_FP64:
    FH_COMBINE(double);
    return 1;
  default:
    return 0;
  }
}

/* Where in rank p's input the bytes this rank needs start, and how many
 * (0: none). */
static size_t fh_coll_part(const fh_coll_t *t, const fh_post_t *p,
                           uint32_t from, uint64_t *rel) {
  uint32_t me = t->comm->rank;
  size_t block = (size_t)t->count * t->esize;
  *rel = 0;
  switch (t->kind) {
  case FH_ALLREDUCE:
  case FH_ALLGATHER:
    return block;
  case FH_REDUCE:
    return me == t->root ? block : 0;
  case FH_BROADCAST:
    return me != t->root && from == t->root ? block : 0;
  case FH_REDUCE_SCATTER:
    *rel = (uint64_t)me * block;
    return block;
  default: /* FH_ALLTOALLV */
    *rel = p->displs[me] * t->esize;
    return (size_t)(p->counts[me] * t->esize);
  }
}

/* Whether rank p's post agrees with ours, as every rank's must. */
static int fh_coll_agrees(const fh_coll_t *t, const fh_post_t *p,
                          uint32_t from) {
  if (p->kind != t->kind || p->dtype != t->dtype)
    return 0;
  if (t->kind == FH_ALLTOALLV)
    return p->counts[t->comm->rank] == t->rcounts[from];
  return p->count == t->count && p->op == t->op && p->root == t->root;
}

/* Folds in rank from's part (len bytes at part) into the result acc. */
static void fh_coll_take(const fh_coll_t *t, uint32_t from, const void *part,
                         size_t len, char *acc, int *first) {
  switch (t->kind) {
  case FH_ALLGATHER:
    memcpy(acc + (size_t)from * len, part, len);
    break;
  case FH_ALLTOALLV:
    memcpy(acc + t->rdispls[from] * t->esize, part, len);
    break;
  case FH_BROADCAST:
    memcpy(acc, part, len);
    break;
  default:
    if (*first)
      memcpy(acc, part, len);
    else
      fh_combine(t->dtype, t->op, acc, part, len / t->esize);
    *first = 0;
  }
}

static HcclResult fh_wait_post(fh_post_t *p, uint64_t seq, double deadline) {
  unsigned spins = 0;
  while (atomic_load(&p->state) != FH_POSTED || p->seq != seq) {
    if (fh_now() > deadline)
      return HCCL_E_TIMEOUT;
    fh_pause(&spins);
  }
  return HCCL_SUCCESS;
}

static HcclResult fh_run_coll(fh_coll_t *t) {
  fh_comm_t *c = t->comm;
  fh_shared_t *sh = c->sh;
  uint32_t me = c->rank, n = c->nranks;
  size_t slot = t->seq % FH_RING;
  double deadline = fh_now() + fh_timeout("HCCL_EXEC_TIMEOUT");
  unsigned spins = 0;
  fh_post_t *mine = &sh->posts[me][slot];
  while (atomic_load(&mine->state) != FH_FREE) {
    if (fh_now() > deadline)
      return HCCL_E_TIMEOUT;
    fh_pause(&spins);
  }
  mine->seq = t->seq;
  mine->pid = (int32_t)getpid();
  mine->fd = t->in != NULL ? t->in_fd : -1;
  mine->offset = t->in_offset;
  mine->kind = t->kind;
  mine->dtype = t->dtype;
  mine->op = t->op;
  mine->root = t->root;
  mine->count = t->count;
  memcpy(mine->counts, t->scounts, sizeof mine->counts);
  memcpy(mine->displs, t->sdispls, sizeof mine->displs);
  atomic_store(&mine->readers, 0);
  atomic_store(&mine->state, FH_POSTED);

  /* The result starts as the output's bytes: an alltoallv leaves the gaps
   * between its blocks as they were. */
  char *acc = malloc(t->out_bytes ? t->out_bytes : 1);
  char *part = NULL;
  HcclResult rc = acc != NULL ? HCCL_SUCCESS : HCCL_E_MEMORY;
  if (rc == HCCL_SUCCESS && t->out != NULL)
    memcpy(acc, t->out, t->out_bytes);
  int first = 1;
  /* Every rank reads every other rank's post (in rank order, so sums
   * come out alike everywhere) and says it is done with it, even after a
   * failure: no rank is left waiting. */
  for (uint32_t from = 0; from < n; from++) {
    fh_post_t *p = &sh->posts[from][slot];
    HcclResult wrc =
        from == me ? HCCL_SUCCESS : fh_wait_post(p, t->seq, deadline);
    if (wrc != HCCL_SUCCESS) {
      rc = wrc;
      continue;
    }
    if (rc == HCCL_SUCCESS && !fh_coll_agrees(t, p, from))
      rc = HCCL_E_PARA;
    uint64_t rel;
    size_t len = fh_coll_part(t, p, from, &rel);
    if (rc == HCCL_SUCCESS && len > 0) {
      free(part);
      part = malloc(len);
      if (part == NULL)
        rc = HCCL_E_MEMORY;
      else if (from == me)
        memcpy(part, (char *)t->in + rel, len);
      else
        rc = fh_read_memfd(p->pid, p->fd, p->offset + rel, part, len);
      if (rc == HCCL_SUCCESS)
        fh_coll_take(t, from, part, len, acc, &first);
    }
    if (from != me)
      atomic_fetch_add(&p->readers, 1);
  }
  free(part);
  /* Our input stays untouched until every other rank read it. */
  while (atomic_load(&mine->readers) < (int)n - 1) {
    if (fh_now() > deadline) {
      rc = HCCL_E_TIMEOUT;
      break;
    }
    fh_pause(&spins);
  }
  atomic_store(&mine->state, FH_FREE);
  if (rc == HCCL_SUCCESS && t->out != NULL)
    memcpy(t->out, acc, t->out_bytes);
  free(acc);
  return rc;
}

static int fh_run_coll_task(void *arg) {
  fh_coll_t *t = arg;
  return fh_task_end(t->comm, t, fh_run_coll(t));
}

/* The double's mapping of [buf, buf + bytes), which must be device memory;
 * fd and offset may be NULL. */
static HcclResult fh_span(const void *buf, size_t bytes, void **shadow, int *fd,
                          uint64_t *offset) {
  int dummy_fd;
  uint64_t dummy_offset;
  if (bytes == 0) {
    *shadow = NULL;
    return HCCL_SUCCESS;
  }
  return fakecann_device_span(buf, bytes, shadow, fd ? fd : &dummy_fd,
                              offset ? offset : &dummy_offset) == ACL_SUCCESS
             ? HCCL_SUCCESS
             : HCCL_E_PARA; /* not device memory, or past its allocation */
}

/* Checks the arguments every collective has and starts its task. */
static HcclResult fh_coll_new(int kind, HcclComm comm, HcclDataType dtype,
                              int op, aclrtStream stream, fh_coll_t **out) {
  fh_comm_t *c = fh_comm(comm);
  if (c == NULL)
    return HCCL_E_PTR;
  size_t esize = fh_type_size(dtype);
  if (stream == NULL || esize == 0)
    return HCCL_E_PARA;
  if (fh_reduces(kind)) {
    char probe[16] = {0};
    if (op < HCCL_REDUCE_SUM || op > HCCL_REDUCE_MIN ||
        !fh_combine(dtype, op, probe, probe, 1))
      return HCCL_E_NOT_SUPPORT;
  }
  HcclResult rc;
  fh_coll_t *t = fh_task_alloc(sizeof *t, &rc);
  if (t == NULL)
    return rc;
  t->comm = c;
  t->kind = kind;
  t->dtype = dtype;
  t->op = op;
  t->esize = esize;
  *out = t;
  return HCCL_SUCCESS;
}

/* Resolves the task's input and output, then queues it in issue order. */
static HcclResult fh_coll_issue(fh_coll_t *t, const void *in, size_t in_bytes,
                                void *out, size_t out_bytes,
                                aclrtStream stream) {
  fh_comm_t *c = t->comm;
  HcclResult rc = fh_span(in, in_bytes, &t->in, &t->in_fd, &t->in_offset);
  if (rc == HCCL_SUCCESS)
    rc = fh_span(out, out_bytes, &t->out, NULL, NULL);
  if (rc != HCCL_SUCCESS) {
    free(t);
    return rc;
  }
  t->out_bytes = t->out != NULL ? out_bytes : 0;
  rc = fh_queue(c, stream, fh_run_coll_task, t, &c->coll_seq, &t->seq);
  if (rc == HCCL_SUCCESS)
    atomic_fetch_add(&fh_collective_calls, 1);
  return rc;
}

HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count,
                         HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                         aclrtStream stream) {
  if (sendBuf == NULL || recvBuf == NULL)
    return HCCL_E_PTR;
  fh_coll_t *t;
  HcclResult rc = fh_coll_new(FH_ALLREDUCE, comm, dataType, op, stream, &t);
  if (rc != HCCL_SUCCESS)
    return rc;
  t->count = count;
  size_t bytes = count * t->esize;
  return fh_coll_issue(t, sendBuf, bytes, recvBuf, bytes, stream);
}

HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType,
                         uint32_t root, HcclComm comm, aclrtStream stream) {
  if (buf == NULL)
    return HCCL_E_PTR;
  fh_coll_t *t;
  HcclResult rc = fh_coll_new(FH_BROADCAST, comm, dataType, 0, stream, &t);
  if (rc != HCCL_SUCCESS)
    return rc;
  if (root >= t->comm->nranks) {
    free(t);
    return HCCL_E_PARA;
  }
  t->count = count;
  t->root = root;
  size_t bytes = count * t->esize;
  int is_root = root == t->comm->rank;
  return fh_coll_issue(t, buf, bytes, is_root ? NULL : buf, is_root ? 0 : bytes,
                       stream);
}

HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount,
                         HcclDataType dataType, HcclComm comm,
                         aclrtStream stream) {
  if (sendBuf == NULL || recvBuf == NULL)
    return HCCL_E_PTR;
  fh_coll_t *t;
  HcclResult rc = fh_coll_new(FH_ALLGATHER, comm, dataType, 0, stream, &t);
  if (rc != HCCL_SUCCESS)
    return rc;
  t->count = sendCount;
  size_t bytes = sendCount * t->esize;
  return fh_coll_issue(t, sendBuf, bytes, recvBuf, bytes * t->comm->nranks,
                       stream);
}

HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                             HcclDataType dataType, HcclReduceOp op,
                             HcclComm comm, aclrtStream stream) {
  if (sendBuf == NULL || recvBuf == NULL)
    return HCCL_E_PTR;
  fh_coll_t *t;
  HcclResult rc =
      fh_coll_new(FH_REDUCE_SCATTER, comm, dataType, op, stream, &t);
  if (rc != HCCL_SUCCESS)
    return rc;
  t->count = recvCount;
  size_t bytes = recvCount * t->esize;
  return fh_coll_issue(t, sendBuf, bytes * t->comm->nranks, recvBuf, bytes,
                       stream);
}

HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count,
                      HcclDataType dataType, HcclReduceOp op, uint32_t root,
                      HcclComm comm, aclrtStream stream) {
  if (sendBuf == NULL || recvBuf == NULL)
    return HCCL_E_PTR;
  fh_coll_t *t;
  HcclResult rc = fh_coll_new(FH_REDUCE, comm, dataType, op, stream, &t);
  if (rc != HCCL_SUCCESS)
    return rc;
  if (root >= t->comm->nranks) {
    free(t);
    return HCCL_E_PARA;
  }
  t->count = count;
  t->root = root;
  size_t bytes = count * t->esize;
  int is_root = root == t->comm->rank;
  return fh_coll_issue(t, sendBuf, bytes, is_root ? recvBuf : NULL,
                       is_root ? bytes : 0, stream);
}

/* Bytes from buf's start that n blocks (counts, displs in elements) span. */
static size_t fh_extent(const uint64_t *counts, const uint64_t *displs,
                        uint32_t n, size_t esize) {
  uint64_t end = 0;
  for (uint32_t i = 0; i < n; i++)
    if (counts[i] > 0 && displs[i] + counts[i] > end)
      end = displs[i] + counts[i];
  return (size_t)end * esize;
}

HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts,
                         const void *sdispls, HcclDataType sendType,
                         const void *recvBuf, const void *recvCounts,
                         const void *rdispls, HcclDataType recvType,
                         HcclComm comm, aclrtStream stream) {
  if (sendCounts == NULL || sdispls == NULL || recvCounts == NULL ||
      rdispls == NULL)
    return HCCL_E_PTR;
  if (sendType != recvType)
    return HCCL_E_PARA;
  fh_coll_t *t;
  HcclResult rc = fh_coll_new(FH_ALLTOALLV, comm, sendType, 0, stream, &t);
  if (rc != HCCL_SUCCESS)
    return rc;
  uint32_t n = t->comm->nranks;
  memcpy(t->scounts, sendCounts, n * sizeof(uint64_t));
  memcpy(t->sdispls, sdispls, n * sizeof(uint64_t));
  memcpy(t->rcounts, recvCounts, n * sizeof(uint64_t));
  memcpy(t->rdispls, rdispls, n * sizeof(uint64_t));
  size_t in_bytes = fh_extent(t->scounts, t->sdispls, n, t->esize);
  size_t out_bytes = fh_extent(t->rcounts, t->rdispls, n, t->esize);
  if ((in_bytes > 0 && sendBuf == NULL) || (out_bytes > 0 && recvBuf == NULL)) {
    free(t);
    return HCCL_E_PTR;
  }
  return fh_coll_issue(t, sendBuf, in_bytes, (void *)(uintptr_t)recvBuf,
                       out_bytes, stream);
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
