/*
 * TEST DOUBLE of libibverbs.so.1 (rdma-core).  Not a verbs provider, never
 * installed: built only by make check so that hcmpi's verbs transport runs
 * on machines without RDMA hardware.  See tests/fake-verbs/README.md.
 *
 * Structures are rdma-core's own (infiniband/verbs.h); every object handed
 * out embeds the real struct first.  The context's ops table carries
 * post_send/post_recv/poll_cq/req_notify_cq, which verbs.h's static inline
 * wrappers call.
 *
 * One device "fakeib0", one active port (LID 1).  The "wire": every QP owns
 * a SOCK_SEQPACKET Unix socket bound at <dir>/qp-<qpn> (dir: FAKE_VERBS_DIR,
 * default /tmp/fake-verbs-<uid>; binding the path is how a QPN is claimed on
 * this host).  Modify to RTR connects to the destination QP's path; the
 * sender writes SEND messages there, the receiver accepts that connection
 * and reads them.  RDMA READ/WRITE run in the initiator with
 * process_vm_readv/writev against the region named by <dir>/mr-<rkey>
 * (owner pid, PD, address, length, access), checked against the rkey, the
 * bounds, the access flags, the PD and the peer QP's process, after the
 * peer QP's own checks from <dir>/qp-<qpn>.attr (its access flags and
 * max_dest_rd_atomic).  A SEND completes when the receiver acknowledged
 * it (ACK back on the same connection); one that finds no receive WR for
 * rnr_retry rounds of min_rnr_timer is answered with an RNR NAK.
 *
 * Atomics (fetch-and-add, compare-and-swap) run in the initiator too, a
 * process_vm_readv/writev pair under flock on <dir>/atomics: atomic
 * against the double's other atomics only, like an HCA's.
 *
 * UD QPs bind a SOCK_DGRAM socket at the same path; a UD SEND is one
 * datagram to the destination QPN's path, lost when nobody is there.
 *
 * Test hooks (not verbs): FAKE_VERBS_CORRUPT_RKEY=1 flips bits of the rkey
 * of every RDMA READ/WRITE, which must then fail with IBV_WC_REM_ACCESS_ERR;
 * FAKE_VERBS_MAX_INLINE=N is the device's inline limit (default 256);
 * FAKE_VERBS_REG_FAIL_ABOVE=N / FAKE_VERBS_REG_REMOTE_FAIL_ABOVE=N refuse
 * (ENOMEM) registrations above N bytes with local write / remote read
 * access; FAKE_VERBS_ODP=1 accepts IBV_ACCESS_ON_DEMAND;
 * FAKE_VERBS_RDMA_SHIFT=N adds N to every RDMA remote address;
 * FAKE_VERBS_NO_DMABUF=1 refuses ibv_reg_dmabuf_mr (EOPNOTSUPP);
 * FAKE_VERBS_NO_ATOMICS=1 makes ibv_query_device report no atomics;
 * FAKE_VERBS_CHECK_PINNED=0 turns off the stale-registration check of
 * pinned regions (fv_pinned.h: an RDMA READ/WRITE over pages that are no
 * longer the ones registered fails, IBV_WC_LOC_PROT_ERR on the local
 * side, IBV_WC_REM_ACCESS_ERR on the remote one).
 *
 * ibv_reg_dmabuf_mr: the region's bytes are the fd's, mapped in the
 * registering process; <dir>/mr-<rkey> then also names that mapping, and
 * RDMA at the region's iova goes there (CUDA test double: tests/fake-cuda
 * hands out a memfd as the "dma-buf").  Such a region is not pinned host
 * memory: it has no frames to check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "fv_pinned.h"

#undef ibv_get_device_list
#undef ibv_query_port
#undef ibv_reg_mr

#define FV_MAX_MSG (64 << 10)
#define FV_CQ_MAX 65536
#define FV_MSG_SEND 1
#define FV_MSG_NOP 2 /* a zero-length RDMA WRITE: acked, no receive WR */
/* Back from the receiver on the same connection: */
#define FV_MSG_ACK 3      /* every SEND up to psn landed in a receive WR */
#define FV_MSG_NAK_RNR 4  /* SEND psn found no receive WR, rnr_retry spent */
#define FV_MAX_RD_ATOM 16 /* the device's max_qp_rd_atom */

typedef struct fv_msg_hdr {
  uint32_t kind;
  uint32_t src_qpn;
  uint32_t psn;
  uint32_t len;
  uint32_t rnr_retry; /* the sender's, for the receiver's RNR verdict */
} fv_msg_hdr_t;

typedef struct fv_swr { /* a send WR waiting to complete, in post order */
  uint64_t wr_id;
  enum ibv_wc_opcode opcode;
  enum ibv_wc_status status;
  int signaled;
  int ready; /* a SEND is ready when acknowledged */
  uint32_t psn;
} fv_swr_t;

typedef struct fv_qp_rec { /* contents of <dir>/qp-<qpn>.attr */
  int32_t pid;
  uint32_t access; /* qp_access_flags */
  uint32_t max_dest_rd_atomic;
  uint32_t pd_handle;
} fv_qp_rec_t;

typedef struct fv_ud_hdr { /* a UD datagram on the wire */
  uint32_t src_qpn;
  uint32_t qkey;
  uint32_t len;
} fv_ud_hdr_t;

#define FV_UD_MTU 4096
#define FV_GRH 40

typedef struct fv_cq {
  struct ibv_cq ib;
  struct ibv_wc *ring;
  int head, count, cap;
  int armed;
  int events; /* notifications not yet taken by ibv_get_cq_event */
} fv_cq_t;

typedef struct fv_rwr {
  uint64_t wr_id;
  int num_sge;
  struct ibv_sge sge[4];
} fv_rwr_t;

typedef struct fv_out { /* a SEND the socket did not take yet */
  struct fv_out *next;
  size_t len;
  unsigned char bytes[];
} fv_out_t;

typedef struct fv_qp {
  struct ibv_qp ib;
  struct fv_qp *next;
  int sig_all;
  int ud; /* IBV_QPT_UD: listen_fd is its bound datagram socket */
  uint32_t max_inline;
  uint32_t qkey;
  int listen_fd, in_fd, out_fd;
  pid_t peer_pid;
  uint32_t dest_qpn, rq_psn, sq_psn;
  unsigned access;
  fv_rwr_t *rq;
  int rq_head, rq_count, rq_cap;
  fv_out_t *out_head, *out_tail;
  unsigned char *held; /* an arrived SEND waiting for a receive WR */
  size_t held_len;
  double held_since; /* ms */
  int in_dead;       /* an RNR NAK went back: the rest is discarded */
  int ack_owed;      /* an ACK of ack_psn is still to be written */
  uint32_t ack_psn;
  fv_swr_t *sq;
  int sq_head, sq_count, sq_cap;
  uint8_t rnr_retry, min_rnr_timer;
  uint8_t max_rd_atomic, max_dest_rd_atomic;
} fv_qp_t;

typedef struct fv_ctx {
  struct ibv_context ib;
  fv_qp_t *qps;
  int bell; /* eventfd: a completion event is pending */
  int chan_epfd;
} fv_ctx_t;

typedef struct fv_mr {
  struct ibv_mr ib;
  struct fv_mr *next;
  int access;
  /* A dma-buf region: ib.addr is its iova, the bytes are reached through
   * this mapping of the fd (NULL for host memory). */
  unsigned char *map;
  size_t map_len;
  uint64_t *frames; /* pinned host memory: each page's frame at registration */
  size_t nframes;
} fv_mr_t;

typedef struct fv_mr_rec { /* contents of <dir>/mr-<rkey> */
  int32_t pid;
  uint32_t access;
  uint32_t pd_handle;
  uint32_t nframes; /* this many page frames follow (0: not checked) */
  uint64_t addr;
  uint64_t length;
  uint64_t map; /* dma-buf: where addr's bytes lie in pid; 0 for host */
} fv_mr_rec_t;

static struct ibv_device fv_device;
static struct ibv_device *fv_list[2];
static fv_mr_t *fv_mrs;
static uint32_t fv_next_handle = 1;

static const char *fv_dir(void) {
  static char dir[80];
  if (dir[0] == '\0') {
    const char *env = getenv("FAKE_VERBS_DIR");
    if (env != NULL && env[0] != '\0')
      snprintf(dir, sizeof dir, "%.79s", env);
    else
      snprintf(dir, sizeof dir, "/tmp/fake-verbs-%u", (unsigned)getuid());
    mkdir(dir, 0700);
  }
  return dir;
}

static void fv_qp_path(uint32_t qpn, struct sockaddr_un *sa) {
  memset(sa, 0, sizeof *sa);
  sa->sun_family = AF_UNIX;
  snprintf(sa->sun_path, sizeof sa->sun_path, "%s/qp-%u", fv_dir(), qpn);
}

static void fv_mr_path(uint32_t rkey, char *buf, size_t len) {
  snprintf(buf, len, "%s/mr-%u", fv_dir(), rkey);
}

/* ---- devices ---------------------------------------------------------- */

struct ibv_device **ibv_get_device_list(int *num_devices) {
  if (fv_list[0] == NULL) {
    fv_device.node_type = IBV_NODE_CA;
    fv_device.transport_type = IBV_TRANSPORT_IB;
    snprintf(fv_device.name, sizeof fv_device.name, "fakeib0");
    snprintf(fv_device.dev_name, sizeof fv_device.dev_name, "uverbs0");
    fv_list[0] = &fv_device;
  }
  if (num_devices != NULL)
    *num_devices = 1;
  return fv_list;
}

void ibv_free_device_list(struct ibv_device **list) { (void)list; }

const char *ibv_get_device_name(struct ibv_device *device) {
  return device->name;
}

static int fv_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
static int fv_req_notify_cq(struct ibv_cq *cq, int solicited_only);
static int fv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
                        struct ibv_send_wr **bad);
static int fv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
                        struct ibv_recv_wr **bad);

struct ibv_context *ibv_open_device(struct ibv_device *device) {
  fv_ctx_t *c = calloc(1, sizeof *c);
  if (c == NULL)
    return NULL;
  c->ib.device = device;
  c->ib.cmd_fd = -1;
  c->ib.async_fd = -1;
  c->ib.num_comp_vectors = 1;
  c->ib.ops.poll_cq = fv_poll_cq;
  c->ib.ops.req_notify_cq = fv_req_notify_cq;
  c->ib.ops.post_send = fv_post_send;
  c->ib.ops.post_recv = fv_post_recv;
  pthread_mutex_init(&c->ib.mutex, NULL);
  c->bell = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  c->chan_epfd = -1;
  return &c->ib;
}

int ibv_close_device(struct ibv_context *context) {
  fv_ctx_t *c = (fv_ctx_t *)context;
  if (c->qps != NULL)
    return EBUSY;
  close(c->bell);
  free(c);
  return 0;
}

int ibv_query_port(struct ibv_context *context, uint8_t port_num,
                   struct _compat_ibv_port_attr *port_attr) {
  (void)context;
  if (port_num != 1)
    return EINVAL;
  /* The compat struct is ibv_port_attr's leading part. */
  struct ibv_port_attr *a = (struct ibv_port_attr *)port_attr;
  a->state = IBV_PORT_ACTIVE;
  a->max_mtu = IBV_MTU_4096;
  a->active_mtu = IBV_MTU_4096;
  a->gid_tbl_len = 1;
  a->max_msg_sz = 1u << 31;
  a->lid = 1;
  a->link_layer = IBV_LINK_LAYER_INFINIBAND;
  return 0;
}

/* What the transport asks of the device: atomics across the HCA
 * (FAKE_VERBS_NO_ATOMICS=1: none, a device without them). */
int ibv_query_device(struct ibv_context *context,
                     struct ibv_device_attr *device_attr) {
  (void)context;
  memset(device_attr, 0, sizeof *device_attr);
  snprintf(device_attr->fw_ver, sizeof device_attr->fw_ver, "0.0.0");
  device_attr->max_qp_rd_atom = FV_MAX_RD_ATOM;
  device_attr->max_qp_init_rd_atom = FV_MAX_RD_ATOM;
  device_attr->phys_port_cnt = 1;
  const char *off = getenv("FAKE_VERBS_NO_ATOMICS");
  device_attr->atomic_cap =
      off != NULL && off[0] == '1' ? IBV_ATOMIC_NONE : IBV_ATOMIC_HCA;
  return 0;
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
                  union ibv_gid *gid) {
  (void)context;
  if (port_num != 1 || index != 0)
    return EINVAL;
  memset(gid, 0, sizeof *gid);
  gid->raw[0] = 0xfe;
  gid->raw[1] = 0x80;
  gid->raw[15] = 1;
  return 0;
}

/* ---- PD and MR -------------------------------------------------------- */

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context) {
  struct ibv_pd *pd = calloc(1, sizeof *pd);
  if (pd == NULL)
    return NULL;
  pd->context = context;
  pd->handle = fv_next_handle++;
  return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd) {
  for (fv_mr_t *m = fv_mrs; m != NULL; m = m->next)
    if (m->ib.pd == pd)
      return EBUSY;
  free(pd);
  return 0;
}

/* Claims a host-unique rkey by creating its record file exclusively. */
static int fv_mr_publish(fv_mr_t *m) {
  fv_mr_rec_t rec = {getpid(),
                     (uint32_t)m->access,
                     m->ib.pd->handle,
                     (uint32_t)m->nframes,
                     (uint64_t)(uintptr_t)m->ib.addr,
                     m->ib.length,
                     (uint64_t)(uintptr_t)m->map};
  size_t frames_len = m->nframes * sizeof *m->frames;
  uint32_t key = ((uint32_t)getpid() << 12) ^ (fv_next_handle++ * 2654435761u);
  for (int tries = 0; tries < 1000; tries++, key += 7919) {
    if (key == 0)
      continue;
    char path[160];
    fv_mr_path(key, path, sizeof path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST)
      continue;
    if (fd < 0)
      return errno;
    ssize_t w = write(fd, &rec, sizeof rec);
    if (w == (ssize_t)sizeof rec && frames_len > 0)
      w += write(fd, m->frames, frames_len);
    close(fd);
    if (w != (ssize_t)(sizeof rec + frames_len)) {
      unlink(path);
      return EIO;
    }
    m->ib.lkey = key;
    m->ib.rkey = key;
    return 0;
  }
  return ENOMEM;
}

static size_t fv_env_size(const char *name, size_t dflt) {
  const char *env = getenv(name);
  return env != NULL && env[0] != '\0' ? (size_t)strtoull(env, NULL, 0) : dflt;
}

/* 1 when every page of [addr, addr + len) is mapped with some access, as
 * pinning needs (/proc/self/maps; a test double may be slow). */
static int fv_range_mapped(uintptr_t addr, size_t len) {
  FILE *fp = fopen("/proc/self/maps", "r");
  if (fp == NULL)
    return 0;
  char line[512];
  uintptr_t want = addr, end = addr + len;
  while (want < end && fgets(line, sizeof line, fp) != NULL) {
    unsigned long lo, hi;
    char perms[8];
    if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
      continue;
    if (lo <= want && want < hi && strncmp(perms, "---", 3) != 0)
      want = hi;
  }
  fclose(fp);
  return want >= end;
}

/* Why a registration is refused: an error number, 0 to go ahead. */
static int fv_reg_refusal(struct ibv_pd *pd, void *addr, size_t length,
                          int access) {
  if (pd == NULL || (addr == NULL && length > 0) ||
      ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
       !(access & IBV_ACCESS_LOCAL_WRITE)))
    return EINVAL;
  if (access & IBV_ACCESS_ON_DEMAND)
    /* Pages are faulted in when used: nothing to check now. */
    return fv_env_size("FAKE_VERBS_ODP", 0) ? 0 : EOPNOTSUPP;
  /* The locked-memory limit, as a test knob. */
  if ((access & IBV_ACCESS_LOCAL_WRITE) &&
      length > fv_env_size("FAKE_VERBS_REG_FAIL_ABOVE", SIZE_MAX))
    return ENOMEM;
  if ((access & IBV_ACCESS_REMOTE_READ) &&
      length > fv_env_size("FAKE_VERBS_REG_REMOTE_FAIL_ABOVE", SIZE_MAX))
    return ENOMEM;
  /* Pinning faults on what is not mapped or mapped PROT_NONE. */
  return fv_range_mapped((uintptr_t)addr, length) ? 0 : EFAULT;
}

/* A region of pd: published, then listed (NULL, errno set, on failure). */
static struct ibv_mr *fv_mr_add(struct ibv_pd *pd, void *addr, size_t length,
                                int access, unsigned char *map,
                                size_t map_len) {
  fv_mr_t *m = calloc(1, sizeof *m);
  if (m == NULL)
    return NULL;
  m->ib.context = pd->context;
  m->ib.pd = pd;
  m->ib.addr = addr;
  m->ib.length = length;
  m->ib.handle = fv_next_handle++;
  m->access = access;
  m->map = map;
  m->map_len = map_len;
  if (map == NULL && !(access & IBV_ACCESS_ON_DEMAND) && fv_pinned_enabled())
    m->frames = fv_pinned_record(addr, length, &m->nframes);
  int err = fv_mr_publish(m);
  if (err != 0) {
    free(m->frames);
    free(m);
    errno = err;
    return NULL;
  }
  m->next = fv_mrs;
  fv_mrs = m;
  return &m->ib;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
                          int access) {
  int refusal = fv_reg_refusal(pd, addr, length, access);
  if (refusal != 0) {
    errno = refusal;
    return NULL;
  }
  return fv_mr_add(pd, addr, length, access, NULL, 0);
}

/* What rdma-core >= 34 offers (IBVERBS_1.12): the region is the dma-buf
 * fd's bytes [offset, offset + length), addressed as iova.  The double
 * maps them in the registering process and serves RDMA there.  offset must
 * be page-aligned here (the double mmaps it; a limit of the double). */
struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
                                 size_t length, uint64_t iova, int fd,
                                 int access) {
  if (fv_env_size("FAKE_VERBS_NO_DMABUF", 0)) {
    errno = EOPNOTSUPP; /* a kernel or provider without dma-buf support */
    return NULL;
  }
  struct stat st;
  long page = sysconf(_SC_PAGESIZE);
  if (pd == NULL || fd < 0 || length == 0 || offset % (uint64_t)page != 0 ||
      ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
       !(access & IBV_ACCESS_LOCAL_WRITE)) ||
      (access & IBV_ACCESS_ON_DEMAND) || fstat(fd, &st) != 0 ||
      offset + length > (uint64_t)st.st_size) {
    errno = EINVAL;
    return NULL;
  }
  void *map =
      mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
  if (map == MAP_FAILED) {
    errno = EINVAL;
    return NULL;
  }
  struct ibv_mr *mr =
      fv_mr_add(pd, (void *)(uintptr_t)iova, length, access, map, length);
  if (mr == NULL)
    munmap(map, length);
  return mr;
}

int ibv_dereg_mr(struct ibv_mr *mr) {
  for (fv_mr_t **link = &fv_mrs; *link != NULL; link = &(*link)->next) {
    if (&(*link)->ib != mr)
      continue;
    fv_mr_t *m = *link;
    *link = m->next;
    char path[160];
    fv_mr_path(m->ib.rkey, path, sizeof path);
    unlink(path);
    if (m->map != NULL)
      munmap(m->map, m->map_len);
    free(m->frames);
    free(m);
    return 0;
  }
  return EINVAL;
}

static const fv_mr_t *fv_mr_by_lkey(uint32_t lkey) {
  const fv_mr_t *m = fv_mrs;
  while (m != NULL && m->ib.lkey != lkey)
    m = m->next;
  return m;
}

/* 1 when every sge lies inside a local MR of pd with the access wanted;
 * iov (when not NULL) gets where the double reaches each one's bytes (a
 * dma-buf region's through its mapping).  SEND and RECV pass iov NULL:
 * they take no dma-buf regions (not modelled). */
static int fv_sge_reach(struct ibv_pd *pd, const struct ibv_sge *sge, int n,
                        int need, struct iovec *iov) {
  for (int i = 0; i < n; i++) {
    const fv_mr_t *m = fv_mr_by_lkey(sge[i].lkey);
    uintptr_t a = (uintptr_t)sge[i].addr,
              base = (uintptr_t)(m ? m->ib.addr : 0);
    if (m == NULL || m->ib.pd != pd || (m->access & need) != need || a < base ||
        a + sge[i].length > base + m->ib.length ||
        (m->map != NULL && iov == NULL))
      return 0;
    if (iov != NULL) {
      iov[i].iov_base = m->map != NULL ? m->map + (a - base) : (void *)a;
      iov[i].iov_len = sge[i].length;
    }
  }
  return 1;
}

static int fv_sge_ok(struct ibv_pd *pd, const struct ibv_sge *sge, int n,
                     int need) {
  return fv_sge_reach(pd, sge, n, need, NULL);
}

/* ---- CQ and completion channel ---------------------------------------- */

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context) {
  fv_ctx_t *c = (fv_ctx_t *)context;
  struct ibv_comp_channel *ch = calloc(1, sizeof *ch);
  if (ch == NULL)
    return NULL;
  /* Readable when a completion event is pending or a QP's socket has
   * bytes (which become completions once drained). */
  ch->fd = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = c->bell};
  if (ch->fd < 0 || epoll_ctl(ch->fd, EPOLL_CTL_ADD, c->bell, &ev) != 0) {
    if (ch->fd >= 0)
      close(ch->fd);
    free(ch);
    return NULL;
  }
  ch->context = context;
  c->chan_epfd = ch->fd;
  return ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel) {
  if (channel->refcnt > 0)
    return EBUSY;
  fv_ctx_t *c = (fv_ctx_t *)channel->context;
  c->chan_epfd = -1;
  close(channel->fd);
  free(channel);
  return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe,
                             void *cq_context, struct ibv_comp_channel *channel,
                             int comp_vector) {
  (void)comp_vector;
  if (cqe < 1 || cqe > FV_CQ_MAX) {
    errno = EINVAL;
    return NULL;
  }
  fv_cq_t *cq = calloc(1, sizeof *cq);
  if (cq == NULL)
    return NULL;
  cq->ring = calloc((size_t)cqe, sizeof *cq->ring);
  if (cq->ring == NULL) {
    free(cq);
    return NULL;
  }
  cq->cap = cqe;
  cq->ib.context = context;
  cq->ib.channel = channel;
  cq->ib.cq_context = cq_context;
  cq->ib.cqe = cqe;
  cq->ib.handle = fv_next_handle++;
  if (channel != NULL)
    channel->refcnt++;
  return &cq->ib;
}

int ibv_destroy_cq(struct ibv_cq *ibcq) {
  fv_cq_t *cq = (fv_cq_t *)ibcq;
  fv_ctx_t *c = (fv_ctx_t *)ibcq->context;
  for (fv_qp_t *q = c->qps; q != NULL; q = q->next)
    if (q->ib.send_cq == ibcq || q->ib.recv_cq == ibcq)
      return EBUSY;
  if (ibcq->channel != NULL)
    ibcq->channel->refcnt--;
  free(cq->ring);
  free(cq);
  return 0;
}

static void fv_ring_bell(fv_ctx_t *c) {
  uint64_t one = 1;
  if (write(c->bell, &one, sizeof one) < 0)
    return; /* the counter is saturated: readable anyway */
}

static void fv_cq_push(struct ibv_cq *ibcq, const struct ibv_wc *wc) {
  fv_cq_t *cq = (fv_cq_t *)ibcq;
  if (cq->count == cq->cap) {
    /* Real hardware raises IBV_EVENT_CQ_ERR; the transport sizes its CQ so
     * this never happens, and a test double must not hide it. */
    fprintf(stderr, "fake-verbs: CQ overrun (%d entries)\n", cq->cap);
    abort();
  }
  cq->ring[(cq->head + cq->count) % cq->cap] = *wc;
  cq->count++;
  if (cq->armed && ibcq->channel != NULL) {
    cq->armed = 0;
    cq->events++;
    fv_ring_bell((fv_ctx_t *)ibcq->context);
  }
}

static int fv_req_notify_cq(struct ibv_cq *ibcq, int solicited_only) {
  (void)solicited_only;
  ((fv_cq_t *)ibcq)->armed = 1;
  return 0;
}

/* ---- QPs -------------------------------------------------------------- */

static void fv_ctx_pump(fv_ctx_t *c);

static void fv_chan_watch(fv_ctx_t *c, int fd) {
  if (c->chan_epfd < 0 || fd < 0)
    return;
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
  epoll_ctl(c->chan_epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* Binds <dir>/qp-<n>: the first free n from a per-process start. */
static int fv_qp_bind(fv_qp_t *q) {
  q->listen_fd = socket(
      AF_UNIX,
      (q->ud ? SOCK_DGRAM : SOCK_SEQPACKET) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (q->listen_fd < 0)
    return errno;
  uint32_t qpn = (((uint32_t)getpid() * 131u) & 0xfff00u) + 0x100u;
  for (int tries = 0; tries < 100000; tries++, qpn = (qpn + 1) & 0xffffff) {
    if (qpn < 2)
      continue;
    struct sockaddr_un sa;
    fv_qp_path(qpn, &sa);
    if (bind(q->listen_fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
      if (errno != EADDRINUSE)
        return errno;
      /* Taken, possibly by a killed process: never reclaimed, since a
       * live process binds before it listens and would look the same. */
      continue;
    }
    if (!q->ud && listen(q->listen_fd, 4) != 0)
      return errno;
    q->ib.qp_num = qpn;
    return 0;
  }
  return EAGAIN;
}

/* The device's inline limit: FAKE_VERBS_MAX_INLINE (default 256). */
static uint32_t fv_max_inline(void) {
  const char *env = getenv("FAKE_VERBS_MAX_INLINE");
  return env != NULL && env[0] != '\0' ? (uint32_t)strtoul(env, NULL, 0) : 256;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr) {
  if (attr->cap.max_inline_data > fv_max_inline() ||
      (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UD) ||
      attr->send_cq == NULL || attr->recv_cq == NULL || attr->srq != NULL ||
      attr->cap.max_recv_sge > 4 || attr->cap.max_recv_wr < 1) {
    errno = EINVAL;
    return NULL;
  }
  fv_qp_t *q = calloc(1, sizeof *q);
  if (q == NULL)
    return NULL;
  q->in_fd = q->out_fd = -1;
  q->ud = attr->qp_type == IBV_QPT_UD;
  q->rq_cap = (int)attr->cap.max_recv_wr;
  q->rq = calloc((size_t)q->rq_cap, sizeof *q->rq);
  q->sq_cap = attr->cap.max_send_wr > 0 ? (int)attr->cap.max_send_wr : 1;
  q->sq = calloc((size_t)q->sq_cap, sizeof *q->sq);
  int err = q->rq == NULL || q->sq == NULL ? ENOMEM : fv_qp_bind(q);
  if (err != 0) {
    if (q->listen_fd >= 0)
      close(q->listen_fd);
    free(q->sq);
    free(q->rq);
    free(q);
    errno = err;
    return NULL;
  }
  fv_ctx_t *c = (fv_ctx_t *)pd->context;
  q->ib.context = pd->context;
  q->ib.qp_context = attr->qp_context;
  q->ib.pd = pd;
  q->ib.send_cq = attr->send_cq;
  q->ib.recv_cq = attr->recv_cq;
  q->ib.handle = fv_next_handle++;
  q->ib.state = IBV_QPS_RESET;
  q->ib.qp_type = attr->qp_type;
  q->sig_all = attr->sq_sig_all;
  /* As drivers do, the grant may exceed the request. */
  q->max_inline = fv_max_inline();
  attr->cap.max_inline_data = q->max_inline;
  q->next = c->qps;
  c->qps = q;
  fv_chan_watch(c, q->listen_fd);
  return &q->ib;
}

static void fv_qp_flush(fv_qp_t *q);
static void fv_qp_error(fv_qp_t *q);

/* The attribute masks the IB spec requires for each RC transition. */
#define FV_INIT_MASK                                                           \
  (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define FV_RTR_MASK                                                            \
  (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |              \
   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define FV_RTS_MASK                                                            \
  (IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |       \
   IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)

static void fv_qp_rec_path(uint32_t qpn, char *buf, size_t len) {
  snprintf(buf, len, "%s/qp-%u.attr", fv_dir(), qpn);
}

/* What a peer's RDMA needs to know of this QP, in <dir>/qp-<qpn>.attr
 * (the responder's checks run in the initiator here). */
static int fv_qp_publish(const fv_qp_t *q) {
  fv_qp_rec_t rec = {getpid(), q->access, q->max_dest_rd_atomic,
                     q->ib.pd->handle};
  char path[160], tmp[170];
  fv_qp_rec_path(q->ib.qp_num, path, sizeof path);
  snprintf(tmp, sizeof tmp, "%s.new", path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return errno;
  ssize_t w = write(fd, &rec, sizeof rec);
  close(fd);
  if (w != (ssize_t)sizeof rec || rename(tmp, path) != 0)
    return EIO;
  return 0;
}

static int fv_to_rtr(fv_qp_t *q, const struct ibv_qp_attr *a) {
  const struct ibv_ah_attr *ah = &a->ah_attr;
  if (ah->port_num != 1 || (ah->dlid == 0 && !ah->is_global) ||
      a->path_mtu < IBV_MTU_256 || a->path_mtu > IBV_MTU_4096 ||
      a->dest_qp_num == 0 || a->dest_qp_num > 0xffffff)
    return EINVAL;
  struct sockaddr_un sa;
  fv_qp_path(a->dest_qp_num, &sa);
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return errno;
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
      getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    /* Real RC would accept the attributes and fail later with retries
     * exceeded; the QPN names no QP here, which only a bug produces. */
    int err = errno;
    close(fd);
    return err == ENOENT || err == ECONNREFUSED ? EINVAL : err;
  }
  int fl = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, fl | O_NONBLOCK);
  uint32_t me = q->ib.qp_num;
  if (write(fd, &me, sizeof me) != (ssize_t)sizeof me) {
    close(fd);
    return EIO;
  }
  q->out_fd = fd;
  fv_chan_watch((fv_ctx_t *)q->ib.context, fd); /* ACKs come back here */
  q->peer_pid = cred.pid;
  q->dest_qpn = a->dest_qp_num;
  q->rq_psn = a->rq_psn & 0xffffff;
  return 0;
}

/* UD: RESET->INIT names port, pkey and qkey; RTR needs nothing more; RTS
 * the send PSN. */
static int fv_ud_modify(fv_qp_t *q, const struct ibv_qp_attr *a, int mask) {
  enum ibv_qp_state from = q->ib.state, to = a->qp_state;
  int need = IBV_QP_STATE;
  if (from == IBV_QPS_RESET && to == IBV_QPS_INIT) {
    need |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
    if ((mask & need) != need || a->port_num != 1 || a->pkey_index != 0)
      return EINVAL;
    q->qkey = a->qkey;
  } else if (from == IBV_QPS_RTR && to == IBV_QPS_RTS) {
    need |= IBV_QP_SQ_PSN;
    if ((mask & need) != need)
      return EINVAL;
  } else if (!(from == IBV_QPS_INIT && to == IBV_QPS_RTR)) {
    return EINVAL;
  }
  q->ib.state = to;
  return 0;
}

int ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *a, int mask) {
  fv_qp_t *q = (fv_qp_t *)ibqp;
  if (!(mask & IBV_QP_STATE))
    return EINVAL;
  enum ibv_qp_state from = ibqp->state, to = a->qp_state;
  int rc = 0;
  if (to == IBV_QPS_ERR || to == IBV_QPS_RESET) {
    if (to == IBV_QPS_ERR)
      fv_qp_error(q);
    ibqp->state = to;
    return 0;
  }
  if (q->ud)
    return fv_ud_modify(q, a, mask);
  if (from == IBV_QPS_RESET && to == IBV_QPS_INIT) {
    if ((mask & FV_INIT_MASK) != FV_INIT_MASK || a->port_num != 1 ||
        a->pkey_index != 0)
      return EINVAL;
    q->access = a->qp_access_flags;
    rc = fv_qp_publish(q);
  } else if (from == IBV_QPS_INIT && to == IBV_QPS_RTR) {
    if ((mask & FV_RTR_MASK) != FV_RTR_MASK ||
        a->max_dest_rd_atomic > FV_MAX_RD_ATOM || a->min_rnr_timer > 31)
      return EINVAL;
    q->max_dest_rd_atomic = a->max_dest_rd_atomic;
    q->min_rnr_timer = a->min_rnr_timer;
    rc = fv_to_rtr(q, a);
    if (rc == 0)
      rc = fv_qp_publish(q);
  } else if (from == IBV_QPS_RTR && to == IBV_QPS_RTS) {
    if ((mask & FV_RTS_MASK) != FV_RTS_MASK || a->timeout > 31 ||
        a->retry_cnt > 7 || a->rnr_retry > 7 ||
        a->max_rd_atomic > FV_MAX_RD_ATOM)
      return EINVAL;
    q->sq_psn = a->sq_psn & 0xffffff;
    q->rnr_retry = a->rnr_retry;
    q->max_rd_atomic = a->max_rd_atomic;
  } else {
    return EINVAL;
  }
  if (rc == 0)
    ibqp->state = to;
  return rc;
}

int ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *a, int mask,
                 struct ibv_qp_init_attr *init) {
  (void)mask;
  memset(a, 0, sizeof *a);
  a->qp_state = ibqp->state;
  a->cur_qp_state = ibqp->state;
  a->dest_qp_num = ((fv_qp_t *)ibqp)->dest_qpn;
  if (init != NULL) {
    memset(init, 0, sizeof *init);
    init->send_cq = ibqp->send_cq;
    init->recv_cq = ibqp->recv_cq;
    init->qp_type = ibqp->qp_type;
  }
  return 0;
}

static void fv_qp_read_in(fv_qp_t *q);

int ibv_destroy_qp(struct ibv_qp *ibqp) {
  fv_qp_t *q = (fv_qp_t *)ibqp;
  /* What already reached this QP is taken and acknowledged first, as the
   * HCA would have done on arrival: the sender sees no retries exceeded
   * for packets that landed before the process came to tear down. */
  if (!q->ud && q->in_fd >= 0)
    fv_qp_read_in(q);
  fv_ctx_t *c = (fv_ctx_t *)ibqp->context;
  for (fv_qp_t **link = &c->qps; *link != NULL; link = &(*link)->next)
    if (*link == q) {
      *link = q->next;
      break;
    }
  struct sockaddr_un sa;
  fv_qp_path(ibqp->qp_num, &sa);
  unlink(sa.sun_path);
  char rec[160];
  fv_qp_rec_path(ibqp->qp_num, rec, sizeof rec);
  unlink(rec);
  free(q->sq);
  if (q->listen_fd >= 0)
    close(q->listen_fd);
  if (q->in_fd >= 0)
    close(q->in_fd);
  if (q->out_fd >= 0)
    close(q->out_fd);
  while (q->out_head != NULL) {
    fv_out_t *o = q->out_head;
    q->out_head = o->next;
    free(o);
  }
  free(q->held);
  free(q->rq);
  free(q);
  return 0;
}

/* ---- completions ------------------------------------------------------ */

static void fv_complete(struct ibv_cq *cq, fv_qp_t *q, uint64_t wr_id,
                        enum ibv_wc_status st, enum ibv_wc_opcode op,
                        uint32_t len) {
  struct ibv_wc wc;
  memset(&wc, 0, sizeof wc);
  wc.wr_id = wr_id;
  wc.status = st;
  wc.opcode = op;
  wc.byte_len = len;
  wc.qp_num = q->ib.qp_num;
  wc.src_qp = q->dest_qpn;
  fv_cq_push(cq, &wc);
}

/* Error state: outstanding receives complete with IBV_WC_WR_FLUSH_ERR. */
static void fv_qp_flush(fv_qp_t *q) {
  while (q->rq_count > 0) {
    fv_rwr_t *r = &q->rq[q->rq_head];
    q->rq_head = (q->rq_head + 1) % q->rq_cap;
    q->rq_count--;
    fv_complete(q->ib.recv_cq, q, r->wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV,
                0);
  }
  while (q->out_head != NULL) {
    fv_out_t *o = q->out_head;
    q->out_head = o->next;
    free(o);
  }
  q->out_tail = NULL;
}

/* Completes the send WRs at the head that are done, in post order. */
static void fv_sq_drain(fv_qp_t *q) {
  while (q->sq_count > 0 && q->sq[q->sq_head].ready) {
    fv_swr_t *w = &q->sq[q->sq_head];
    q->sq_head = (q->sq_head + 1) % q->sq_cap;
    q->sq_count--;
    if (w->signaled || w->status != IBV_WC_SUCCESS)
      fv_complete(q->ib.send_cq, q, w->wr_id, w->status, w->opcode, 0);
  }
}

/* Error state: pending sends and receives flush; the connection closes,
 * so the peer's next packet finds no QP (its retries run out), as a QP in
 * error on hardware answers nothing. */
static void fv_qp_error(fv_qp_t *q) {
  q->ib.state = IBV_QPS_ERR;
  fv_qp_flush(q);
  for (int i = 0; i < q->sq_count; i++) {
    fv_swr_t *w = &q->sq[(q->sq_head + i) % q->sq_cap];
    if (!w->ready) {
      w->ready = 1;
      w->status = IBV_WC_WR_FLUSH_ERR;
    }
  }
  fv_sq_drain(q);
  if (q->in_fd >= 0)
    close(q->in_fd);
  if (q->out_fd >= 0)
    close(q->out_fd);
  q->in_fd = q->out_fd = -1;
}

/* Marks the pending SEND psn (or all up to it, cumulative) with st. */
static void fv_sq_answer(fv_qp_t *q, uint32_t psn, int upto,
                         enum ibv_wc_status st) {
  for (int i = 0; i < q->sq_count; i++) {
    fv_swr_t *w = &q->sq[(q->sq_head + i) % q->sq_cap];
    uint32_t behind = (psn - w->psn) & 0xffffff;
    if (w->ready || w->opcode != IBV_WC_SEND ||
        (upto ? behind >= 0x800000 : behind != 0))
      continue;
    w->ready = 1;
    w->status = st;
  }
  fv_sq_drain(q);
  if (st != IBV_WC_SUCCESS)
    fv_qp_error(q);
}

static int fv_sq_unacked(const fv_qp_t *q) {
  for (int i = 0; i < q->sq_count; i++)
    if (!q->sq[(q->sq_head + i) % q->sq_cap].ready)
      return 1;
  return 0;
}

/* ACKs and NAKs from the receiver.  EOF: the peer QP is gone, and what
 * it did not acknowledge exceeds its retries. */
static void fv_qp_read_acks(fv_qp_t *q) {
  fv_msg_hdr_t h;
  while (q->out_fd >= 0) {
    ssize_t n = recv(q->out_fd, &h, sizeof h, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && errno == EAGAIN)
      return;
    if (n <= 0 && fv_sq_unacked(q)) {
      fv_sq_answer(q, q->sq_psn - 1, 1, IBV_WC_RETRY_EXC_ERR);
      return;
    }
    if (n <= 0) { /* nothing owed: the next send finds the QP gone */
      close(q->out_fd);
      q->out_fd = -1;
      return;
    }
    if (n == (ssize_t)sizeof h && h.kind == FV_MSG_ACK)
      fv_sq_answer(q, h.psn, 1, IBV_WC_SUCCESS);
    else if (n == (ssize_t)sizeof h && h.kind == FV_MSG_NAK_RNR)
      fv_sq_answer(q, h.psn, 0, IBV_WC_RNR_RETRY_EXC_ERR);
  }
}

/* Writes what the receiver owes the sender; 0 when the socket is full. */
static int fv_qp_answer(fv_qp_t *q, uint32_t kind, uint32_t psn) {
  fv_msg_hdr_t h = {kind, q->ib.qp_num, psn, 0, 0};
  return send(q->in_fd, &h, sizeof h, MSG_DONTWAIT | MSG_NOSIGNAL) ==
         (ssize_t)sizeof h;
}

/* Copies len bytes into the receive WR's SGEs; returns what did not fit. */
static size_t fv_scatter(const fv_rwr_t *r, const unsigned char *src,
                         size_t len) {
  for (int i = 0; i < r->num_sge && len > 0; i++) {
    size_t n = r->sge[i].length < len ? r->sge[i].length : len;
    memcpy((void *)(uintptr_t)r->sge[i].addr, src, n);
    src += n;
    len -= n;
  }
  return len;
}

/* Scatters a SEND into the oldest receive WR; 0 when none is posted. */
static int fv_deliver(fv_qp_t *q, const unsigned char *buf, size_t len) {
  const fv_msg_hdr_t *h = (const fv_msg_hdr_t *)buf;
  if (q->rq_count == 0)
    return 0;
  fv_rwr_t *r = &q->rq[q->rq_head];
  q->rq_head = (q->rq_head + 1) % q->rq_cap;
  q->rq_count--;
  if (h->psn != q->rq_psn) {
    fprintf(stderr, "fake-verbs: QP %u: PSN %u, expected %u\n", q->ib.qp_num,
            h->psn, q->rq_psn);
    fv_complete(q->ib.recv_cq, q, r->wr_id, IBV_WC_REM_INV_REQ_ERR, IBV_WC_RECV,
                0);
    fv_qp_error(q);
    return 1;
  }
  q->rq_psn = (q->rq_psn + 1) & 0xffffff;
  if (fv_scatter(r, buf + sizeof *h, len - sizeof *h) > 0) {
    fv_complete(q->ib.recv_cq, q, r->wr_id, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 0);
    fv_qp_error(q);
    return 1;
  }
  fv_complete(q->ib.recv_cq, q, r->wr_id, IBV_WC_SUCCESS, IBV_WC_RECV, h->len);
  q->ack_psn = h->psn;
  q->ack_owed = 1;
  return 1;
}

static double fv_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The IB spec's RNR NAK timer codes, in ms (0 is the longest). */
static double fv_rnr_ms(unsigned code) {
  static const double ms[32] = {
      655.36, 0.01,  0.02,  0.03,   0.04,   0.06,   0.08,   0.12,
      0.16,   0.24,  0.32,  0.48,   0.64,   0.96,   1.28,   1.92,
      2.56,   3.84,  5.12,  7.68,   10.24,  15.36,  20.48,  30.72,
      40.96,  61.44, 81.92, 122.88, 163.84, 245.76, 327.68, 491.52};
  return ms[code & 31];
}

/* A SEND held without a receive WR: the sender retries every
 * min_rnr_timer, rnr_retry times (7: for ever), then gives up with
 * IBV_WC_RNR_RETRY_EXC_ERR; this side drops it and what follows. */
static int fv_qp_rnr_spent(fv_qp_t *q) {
  const fv_msg_hdr_t *h = (const fv_msg_hdr_t *)q->held;
  if (h->rnr_retry >= 7 || fv_now_ms() - q->held_since <
                               (h->rnr_retry + 1) * fv_rnr_ms(q->min_rnr_timer))
    return 0;
  if (!fv_qp_answer(q, FV_MSG_NAK_RNR, h->psn))
    return 0;
  free(q->held);
  q->held = NULL;
  q->in_dead = 1;
  return 1;
}

static void fv_qp_send_ack(fv_qp_t *q) {
  if (q->ack_owed && q->in_fd >= 0 && fv_qp_answer(q, FV_MSG_ACK, q->ack_psn))
    q->ack_owed = 0;
}

static void fv_qp_read_in(fv_qp_t *q) {
  static unsigned char buf[FV_MAX_MSG + sizeof(fv_msg_hdr_t)];
  if (q->held != NULL && !fv_deliver(q, q->held, q->held_len)) {
    fv_qp_rnr_spent(q);
    fv_qp_send_ack(q);
    return;
  }
  free(q->held);
  q->held = NULL;
  /* A QP still in INIT: real RC drops what arrives and the sender's
   * retransmission (retry_cnt) brings it again once we reach RTR; leaving
   * it in the socket is that retransmission. */
  while (q->in_fd >= 0 && q->held == NULL && q->ib.state != IBV_QPS_INIT) {
    ssize_t n = recv(q->in_fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR)
      continue;
    if (n == 0) { /* the peer QP is gone: nothing more will come */
      close(q->in_fd);
      q->in_fd = -1;
      break;
    }
    if (n < (ssize_t)sizeof(fv_msg_hdr_t))
      break;
    if (((const fv_msg_hdr_t *)buf)->kind == FV_MSG_NOP || q->in_dead)
      continue;
    if (q->ib.state != IBV_QPS_RTR && q->ib.state != IBV_QPS_RTS)
      continue; /* dropped, as the wire drops packets to a dead QP */
    if (!fv_deliver(q, buf, (size_t)n)) {
      /* No receive WR: hold it (real RC: receiver-not-ready retries). */
      q->held = malloc((size_t)n);
      if (q->held == NULL)
        abort();
      memcpy(q->held, buf, (size_t)n);
      q->held_len = (size_t)n;
      q->held_since = fv_now_ms();
    }
  }
  fv_qp_send_ack(q);
}

static void fv_qp_accept(fv_qp_t *q) {
  if (q->in_fd >= 0)
    return;
  int fd = accept4(q->listen_fd, NULL, NULL, SOCK_CLOEXEC);
  if (fd < 0)
    return;
  uint32_t src = 0;
  /* The connector writes its QPN right after connect: a blocking read of
   * microseconds at most. */
  ssize_t n = recv(fd, &src, sizeof src, 0);
  if (n != (ssize_t)sizeof src) {
    close(fd);
    return;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  q->in_fd = fd;
  fv_chan_watch((fv_ctx_t *)q->ib.context, fd);
}

/* Sends what the socket did not take earlier. */
static void fv_qp_flush_out(fv_qp_t *q) {
  while (q->out_head != NULL) {
    fv_out_t *o = q->out_head;
    ssize_t n = send(q->out_fd, o->bytes, o->len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
      return;
    if (n < 0) {
      fv_qp_error(q);
      return;
    }
    q->out_head = o->next;
    if (q->out_head == NULL)
      q->out_tail = NULL;
    free(o);
  }
}

/* UD: datagrams into posted receives, each behind a 40-byte GRH.  One
 * with another qkey is dropped, as hardware drops it; without a posted
 * receive datagrams wait in the socket (hardware would drop those too,
 * and the transport repeats what matters). */
static void fv_ud_read_in(fv_qp_t *q) {
  static unsigned char buf[FV_GRH + sizeof(fv_ud_hdr_t) + FV_UD_MTU];
  fv_ud_hdr_t h;
  while (q->rq_count > 0 &&
         (q->ib.state == IBV_QPS_RTR || q->ib.state == IBV_QPS_RTS)) {
    ssize_t n =
        recv(q->listen_fd, buf + FV_GRH, sizeof buf - FV_GRH, MSG_DONTWAIT);
    if (n < (ssize_t)sizeof h)
      return;
    memcpy(&h, buf + FV_GRH, sizeof h);
    if (h.qkey != q->qkey || h.len != (size_t)n - sizeof h)
      continue;
    memset(buf, 0, FV_GRH);
    memmove(buf + FV_GRH, buf + FV_GRH + sizeof h, h.len);
    fv_rwr_t *r = &q->rq[q->rq_head];
    q->rq_head = (q->rq_head + 1) % q->rq_cap;
    q->rq_count--;
    struct ibv_wc wc;
    memset(&wc, 0, sizeof wc);
    wc.wr_id = r->wr_id;
    wc.status = fv_scatter(r, buf, FV_GRH + h.len) > 0 ? IBV_WC_LOC_LEN_ERR
                                                       : IBV_WC_SUCCESS;
    wc.opcode = IBV_WC_RECV;
    wc.byte_len = FV_GRH + h.len;
    wc.qp_num = q->ib.qp_num;
    wc.src_qp = h.src_qpn;
    wc.wc_flags = IBV_WC_GRH;
    fv_cq_push(q->ib.recv_cq, &wc);
  }
}

/* A UD SEND: one datagram to the socket of the destination QPN. */
static int fv_ud_send(fv_qp_t *q, const struct ibv_send_wr *wr) {
  static unsigned char buf[sizeof(fv_ud_hdr_t) + FV_UD_MTU];
  size_t len = 0;
  for (int i = 0; i < wr->num_sge; i++)
    len += wr->sg_list[i].length;
  if (wr->opcode != IBV_WR_SEND || wr->wr.ud.ah == NULL)
    return IBV_WC_LOC_QP_OP_ERR;
  if (len > FV_UD_MTU)
    return IBV_WC_LOC_LEN_ERR;
  if (!(wr->send_flags & IBV_SEND_INLINE) &&
      !fv_sge_ok(q->ib.pd, wr->sg_list, wr->num_sge, 0))
    return IBV_WC_LOC_PROT_ERR;
  fv_ud_hdr_t h = {q->ib.qp_num, wr->wr.ud.remote_qkey, (uint32_t)len};
  memcpy(buf, &h, sizeof h);
  size_t at = sizeof h;
  for (int i = 0; i < wr->num_sge; i++) {
    memcpy(buf + at, (void *)(uintptr_t)wr->sg_list[i].addr,
           wr->sg_list[i].length);
    at += wr->sg_list[i].length;
  }
  struct sockaddr_un sa;
  fv_qp_path(wr->wr.ud.remote_qpn, &sa);
  /* Refused (nobody bound there, its queue full): lost, and UD says
   * nothing of it. */
  (void)sendto(q->listen_fd, buf, at, MSG_DONTWAIT | MSG_NOSIGNAL,
               (struct sockaddr *)&sa, sizeof sa);
  return IBV_WC_SUCCESS;
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr) {
  if (pd == NULL || attr->port_num != 1 ||
      (attr->dlid == 0 && !attr->is_global)) {
    errno = EINVAL;
    return NULL;
  }
  struct ibv_ah *ah = calloc(1, sizeof *ah);
  if (ah == NULL)
    return NULL;
  ah->context = pd->context;
  ah->pd = pd;
  ah->handle = fv_next_handle++;
  return ah;
}

int ibv_destroy_ah(struct ibv_ah *ah) {
  free(ah);
  return 0;
}

static void fv_ctx_pump(fv_ctx_t *c) {
  for (fv_qp_t *q = c->qps; q != NULL; q = q->next) {
    if (q->ud) {
      fv_ud_read_in(q);
      continue;
    }
    fv_qp_accept(q);
    fv_qp_read_in(q);
    fv_qp_read_acks(q);
    if (q->out_head != NULL && q->ib.state == IBV_QPS_RTS)
      fv_qp_flush_out(q);
  }
}

static int fv_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc) {
  fv_cq_t *cq = (fv_cq_t *)ibcq;
  fv_ctx_pump((fv_ctx_t *)ibcq->context);
  int got = 0;
  while (got < n && cq->count > 0) {
    wc[got++] = cq->ring[cq->head];
    cq->head = (cq->head + 1) % cq->cap;
    cq->count--;
  }
  return got;
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
                     void **cq_context) {
  fv_ctx_t *c = (fv_ctx_t *)channel->context;
  int nonblock = fcntl(channel->fd, F_GETFL) & O_NONBLOCK;
  for (;;) {
    uint64_t v;
    if (read(c->bell, &v, sizeof v) < 0 && errno != EAGAIN)
      return -1;
    fv_ctx_pump(c);
    /* The CQs of this channel are those of the context's QPs. */
    for (fv_qp_t *q = c->qps; q != NULL; q = q->next) {
      struct ibv_cq *pair[2] = {q->ib.send_cq, q->ib.recv_cq};
      for (int i = 0; i < 2; i++) {
        fv_cq_t *f = (fv_cq_t *)pair[i];
        if (pair[i]->channel != channel || f->events == 0)
          continue;
        f->events--;
        if (f->events > 0)
          fv_ring_bell(c);
        *cq = pair[i];
        *cq_context = pair[i]->cq_context;
        return 0;
      }
    }
    if (nonblock) {
      errno = EAGAIN;
      return -1;
    }
    struct epoll_event ev;
    epoll_wait(channel->fd, &ev, 1, -1);
  }
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents) {
  cq->comp_events_completed += nevents;
}

/* ---- posting ---------------------------------------------------------- */

static int fv_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
                        struct ibv_recv_wr **bad) {
  fv_qp_t *q = (fv_qp_t *)ibqp;
  for (; wr != NULL; wr = wr->next) {
    if (ibqp->state == IBV_QPS_RESET || q->rq_count == q->rq_cap ||
        wr->num_sge > 4 ||
        !fv_sge_ok(ibqp->pd, wr->sg_list, wr->num_sge,
                   IBV_ACCESS_LOCAL_WRITE)) {
      *bad = wr;
      return ibqp->state == IBV_QPS_RESET || wr->num_sge > 4 ? EINVAL : ENOMEM;
    }
    fv_rwr_t *r = &q->rq[(q->rq_head + q->rq_count) % q->rq_cap];
    r->wr_id = wr->wr_id;
    r->num_sge = wr->num_sge;
    memcpy(r->sge, wr->sg_list, (size_t)wr->num_sge * sizeof *r->sge);
    q->rq_count++;
    if (ibqp->state == IBV_QPS_ERR)
      fv_qp_flush(q);
  }
  return 0;
}

static int fv_send_msg(fv_qp_t *q, const struct ibv_send_wr *wr, int inl) {
  size_t len = 0;
  for (int i = 0; i < wr->num_sge; i++)
    len += wr->sg_list[i].length;
  if (len > FV_MAX_MSG ||
      (!inl && !fv_sge_ok(q->ib.pd, wr->sg_list, wr->num_sge, 0)))
    return IBV_WC_LOC_PROT_ERR;
  fv_out_t *o = malloc(sizeof *o + sizeof(fv_msg_hdr_t) + len);
  if (o == NULL)
    return IBV_WC_GENERAL_ERR;
  fv_msg_hdr_t h = {FV_MSG_SEND, q->ib.qp_num, q->sq_psn, (uint32_t)len,
                    q->rnr_retry};
  q->sq_psn = (q->sq_psn + 1) & 0xffffff;
  memcpy(o->bytes, &h, sizeof h);
  size_t at = sizeof h;
  for (int i = 0; i < wr->num_sge; i++) {
    memcpy(o->bytes + at, (void *)(uintptr_t)wr->sg_list[i].addr,
           wr->sg_list[i].length);
    at += wr->sg_list[i].length;
  }
  o->len = at;
  o->next = NULL;
  if (q->out_tail != NULL)
    q->out_tail->next = o;
  else
    q->out_head = o;
  q->out_tail = o;
  fv_qp_flush_out(q);
  /* A peer that closed its QP is what retries-exceeded reports. */
  return q->ib.state == IBV_QPS_ERR ? IBV_WC_RETRY_EXC_ERR : IBV_WC_SUCCESS;
}

/* 1 when the record file at path holds len bytes, read into rec. */
static int fv_read_rec(const char *path, void *rec, size_t len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ssize_t n = read(fd, rec, len);
  close(fd);
  return n == (ssize_t)len;
}

static int fv_rkey_lookup(uint32_t rkey, fv_mr_rec_t *rec) {
  char path[160];
  fv_mr_path(rkey, path, sizeof path);
  return fv_read_rec(path, rec, sizeof *rec);
}

/* 1 when a local SGE of a pinned region no longer has its pages. */
static int fv_local_stale(const struct ibv_send_wr *wr) {
  for (int i = 0; i < wr->num_sge; i++) {
    const fv_mr_t *m = fv_mr_by_lkey(wr->sg_list[i].lkey);
    if (m != NULL && m->frames != NULL &&
        fv_pinned_stale(getpid(), (uintptr_t)m->ib.addr, m->frames,
                        (uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length,
                        "local", m->ib.lkey))
      return 1;
  }
  return 0;
}

/* 1 when [ra, ra + len) of the peer's pinned region rec (rkey) no longer
 * has its pages: the frames of just those pages come from the record. */
static int fv_remote_stale(pid_t pid, uint32_t rkey, const fv_mr_rec_t *rec,
                           uint64_t ra, size_t len) {
  if (rec->nframes == 0 || len == 0)
    return 0;
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  uint64_t first = ra / page - rec->addr / page;
  uint64_t n = (ra + len - 1) / page - ra / page + 1;
  uint64_t *frames = malloc(n * sizeof *frames);
  char path[160];
  fv_mr_path(rkey, path, sizeof path);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  ssize_t got = -1;
  if (fd >= 0 && frames != NULL)
    got = pread(fd, frames, n * sizeof *frames,
                (off_t)(sizeof *rec + first * sizeof *frames));
  if (fd >= 0)
    close(fd);
  int stale =
      got == (ssize_t)(n * sizeof *frames) &&
      fv_pinned_stale(pid, ra & ~(page - 1), frames, ra, len, "remote", rkey);
  free(frames);
  return stale;
}

/* A zero-length RDMA WRITE checks no rkey (IB spec) but still travels:
 * a peer that is gone makes it fail with retries exceeded. */
static int fv_zero_write(fv_qp_t *q) {
  fv_out_t *o = malloc(sizeof *o + sizeof(fv_msg_hdr_t));
  if (o == NULL)
    return IBV_WC_GENERAL_ERR;
  fv_msg_hdr_t h = {FV_MSG_NOP, q->ib.qp_num, 0, 0, 0};
  memcpy(o->bytes, &h, sizeof h);
  o->len = sizeof h;
  o->next = NULL;
  if (q->out_tail != NULL)
    q->out_tail->next = o;
  else
    q->out_head = o;
  q->out_tail = o;
  fv_qp_flush_out(q);
  return q->ib.state == IBV_QPS_ERR ? IBV_WC_RETRY_EXC_ERR : IBV_WC_SUCCESS;
}

static int fv_qp_rec_lookup(uint32_t qpn, fv_qp_rec_t *rec) {
  char path[160];
  fv_qp_rec_path(qpn, path, sizeof path);
  return fv_read_rec(path, rec, sizeof *rec);
}

/* The responder QP's own checks, before any rkey: the operation enabled
 * in its qp_access_flags, and (READ) room for incoming reads on both
 * sides.  Hardware answers a NAK "invalid request". */
static int fv_rdma_allowed(const fv_qp_t *q, uint32_t need, int reads,
                           fv_qp_rec_t *rec) {
  if (!fv_qp_rec_lookup(q->dest_qpn, rec) || rec->pid != q->peer_pid)
    return IBV_WC_RETRY_EXC_ERR; /* that QP is gone */
  if ((rec->access & need) != need)
    return IBV_WC_REM_INV_REQ_ERR;
  if (reads && (q->max_rd_atomic == 0 || rec->max_dest_rd_atomic == 0))
    return IBV_WC_REM_INV_REQ_ERR;
  return IBV_WC_SUCCESS;
}

static int fv_rdma(fv_qp_t *q, const struct ibv_send_wr *wr, int is_read) {
  fv_qp_rec_t qrec;
  uint32_t need = is_read ? IBV_ACCESS_REMOTE_READ : IBV_ACCESS_REMOTE_WRITE;
  int allowed = fv_rdma_allowed(q, need, is_read, &qrec);
  if (allowed != IBV_WC_SUCCESS)
    return allowed;
  if (!is_read &&
      (wr->num_sge == 0 || (wr->num_sge == 1 && wr->sg_list[0].length == 0)))
    return fv_zero_write(q);
  uint32_t rkey = wr->wr.rdma.rkey;
  const char *corrupt = getenv("FAKE_VERBS_CORRUPT_RKEY");
  if (corrupt != NULL && corrupt[0] == '1')
    rkey ^= 0x5a5a5a5au;
  size_t len = 0;
  struct iovec local[4];
  if (wr->num_sge > 4)
    return IBV_WC_LOC_LEN_ERR;
  for (int i = 0; i < wr->num_sge; i++)
    len += wr->sg_list[i].length;
  if (!fv_sge_reach(q->ib.pd, wr->sg_list, wr->num_sge,
                    is_read ? IBV_ACCESS_LOCAL_WRITE : 0, local))
    return IBV_WC_LOC_PROT_ERR;
  fv_mr_rec_t rec;
  uint64_t ra =
      wr->wr.rdma.remote_addr + fv_env_size("FAKE_VERBS_RDMA_SHIFT", 0);
  if (!fv_rkey_lookup(rkey, &rec) || rec.pid != q->peer_pid ||
      rec.pd_handle != qrec.pd_handle || (rec.access & need) != need ||
      ra < rec.addr || ra + len > rec.addr + rec.length)
    return IBV_WC_REM_ACCESS_ERR;
  /* A pinned region whose pages were replaced: hardware would move the
   * old pages' bytes, silently; the double says so. */
  if (fv_local_stale(wr))
    return IBV_WC_LOC_PROT_ERR;
  if (fv_remote_stale(q->peer_pid, rkey, &rec, ra, len))
    return IBV_WC_REM_ACCESS_ERR;
  /* A dma-buf region's bytes lie in its owner's mapping of the fd. */
  uint64_t at = rec.map != 0 ? rec.map + (ra - rec.addr) : ra;
  struct iovec remote = {(void *)(uintptr_t)at, len};
  ssize_t n =
      is_read ? process_vm_readv(q->peer_pid, local, (unsigned long)wr->num_sge,
                                 &remote, 1, 0)
              : process_vm_writev(q->peer_pid, local,
                                  (unsigned long)wr->num_sge, &remote, 1, 0);
  if (n == (ssize_t)len)
    return IBV_WC_SUCCESS;
  return n < 0 && errno == ESRCH ? IBV_WC_RETRY_EXC_ERR : IBV_WC_REM_OP_ERR;
}

/* Takes the directory's atomics lock (<dir>/atomics): every atomic of
 * every process on this "device" holds it around its read-modify-write,
 * as an HCA serialises its atomics.  The file's first 8 bytes count the
 * atomics done, so tests can tell that atomics were used.  -1 when it
 * cannot be opened. */
static int fv_atomics_lock(void) {
  char path[160];
  snprintf(path, sizeof path, "%s/atomics", fv_dir());
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0 && flock(fd, LOCK_EX) != 0) {
    close(fd);
    fd = -1;
  }
  return fd;
}

static void fv_atomics_unlock(int fd) {
  uint64_t count = 0;
  if (pread(fd, &count, sizeof count, 0) != (ssize_t)sizeof count)
    count = 0;
  count++;
  if (pwrite(fd, &count, sizeof count, 0) != (ssize_t)sizeof count)
    fprintf(stderr, "fake-verbs: atomics count not written\n");
  flock(fd, LOCK_UN);
  close(fd);
}

/* IBV_WR_ATOMIC_FETCH_AND_ADD / _CMP_AND_SWP: 8 bytes at an 8-byte aligned
 * remote address (host byte order, as mlx5 devices treat them), the old
 * value into the one 8-byte local SGE.  The responder QP must enable
 * IBV_ACCESS_REMOTE_ATOMIC and take incoming reads (atomics count against
 * max_rd_atomic), the rkey must allow remote atomics and cover the word.
 * Atomic against other atomics only: nothing stops the target's CPU. */
static int fv_atomic(fv_qp_t *q, const struct ibv_send_wr *wr, int cswap) {
  fv_qp_rec_t qrec;
  int allowed = fv_rdma_allowed(q, IBV_ACCESS_REMOTE_ATOMIC, 1, &qrec);
  if (allowed != IBV_WC_SUCCESS)
    return allowed;
  struct iovec local;
  if (wr->num_sge != 1 || wr->sg_list[0].length != 8)
    return IBV_WC_LOC_LEN_ERR;
  if (!fv_sge_reach(q->ib.pd, wr->sg_list, 1, IBV_ACCESS_LOCAL_WRITE, &local))
    return IBV_WC_LOC_PROT_ERR;
  uint64_t ra = wr->wr.atomic.remote_addr;
  if (ra % 8 != 0)
    return IBV_WC_REM_INV_REQ_ERR;
  fv_mr_rec_t rec;
  if (!fv_rkey_lookup(wr->wr.atomic.rkey, &rec) || rec.pid != q->peer_pid ||
      rec.pd_handle != qrec.pd_handle ||
      !(rec.access & IBV_ACCESS_REMOTE_ATOMIC) || ra < rec.addr ||
      ra + 8 > rec.addr + rec.length)
    return IBV_WC_REM_ACCESS_ERR;
  uint64_t at = rec.map != 0 ? rec.map + (ra - rec.addr) : ra;
  uint64_t old = 0, now;
  struct iovec mine = {&old, sizeof old};
  struct iovec remote = {(void *)(uintptr_t)at, sizeof old};
  int fd = fv_atomics_lock();
  if (fd < 0)
    return IBV_WC_GENERAL_ERR;
  ssize_t n = process_vm_readv(q->peer_pid, &mine, 1, &remote, 1, 0);
  if (n == (ssize_t)sizeof old) {
    now = cswap ? (old == wr->wr.atomic.compare_add ? wr->wr.atomic.swap : old)
                : old + wr->wr.atomic.compare_add;
    mine.iov_base = &now;
    if (now != old || !cswap)
      n = process_vm_writev(q->peer_pid, &mine, 1, &remote, 1, 0);
  }
  fv_atomics_unlock(fd);
  if (n != (ssize_t)sizeof old)
    return n < 0 && errno == ESRCH ? IBV_WC_RETRY_EXC_ERR : IBV_WC_REM_OP_ERR;
  memcpy(local.iov_base, &old, sizeof old);
  return IBV_WC_SUCCESS;
}

/* Bytes of an inline send above the QP's max_inline_data: the post is
 * refused, as drivers refuse it. */
static int fv_inline_too_big(const fv_qp_t *q, const struct ibv_send_wr *wr) {
  size_t len = 0;
  for (int i = 0; i < wr->num_sge; i++)
    len += wr->sg_list[i].length;
  return (wr->send_flags & IBV_SEND_INLINE) && len > q->max_inline;
}

static int fv_post_one(fv_qp_t *q, struct ibv_send_wr *wr) {
  enum ibv_wc_opcode op;
  int st;
  if (fv_inline_too_big(q, wr)) {
    fprintf(stderr, "fake-verbs: QP %u: inline send above %u B refused\n",
            q->ib.qp_num, q->max_inline);
    return EINVAL;
  }
  switch (q->ud ? IBV_WR_SEND : wr->opcode) {
  case IBV_WR_SEND:
    op = IBV_WC_SEND;
    st = q->ud ? fv_ud_send(q, wr)
               : fv_send_msg(q, wr, (wr->send_flags & IBV_SEND_INLINE) != 0);
    break;
  case IBV_WR_RDMA_READ:
    op = IBV_WC_RDMA_READ;
    st = fv_rdma(q, wr, 1);
    break;
  case IBV_WR_RDMA_WRITE:
    op = IBV_WC_RDMA_WRITE;
    st = fv_rdma(q, wr, 0);
    break;
  case IBV_WR_ATOMIC_FETCH_AND_ADD:
  case IBV_WR_ATOMIC_CMP_AND_SWP: {
    int cswap = wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP;
    op = cswap ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD;
    st = fv_atomic(q, wr, cswap);
    break;
  }
  default:
    return EINVAL;
  }
  /* Completions leave in post order; an RC SEND only once the receiver
   * acknowledged it (fv_qp_read_acks). */
  fv_swr_t *w = &q->sq[(q->sq_head + q->sq_count++) % q->sq_cap];
  w->wr_id = wr->wr_id;
  w->opcode = op;
  w->status = (enum ibv_wc_status)st;
  w->signaled = q->sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
  w->ready = q->ud || op != IBV_WC_SEND || st != IBV_WC_SUCCESS;
  w->psn = (q->sq_psn - 1) & 0xffffff;
  fv_sq_drain(q);
  if (st != IBV_WC_SUCCESS)
    fv_qp_error(q);
  return 0;
}

static int fv_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
                        struct ibv_send_wr **bad) {
  fv_qp_t *q = (fv_qp_t *)ibqp;
  for (; wr != NULL; wr = wr->next) {
    if (ibqp->state == IBV_QPS_ERR) {
      fv_complete(ibqp->send_cq, q, wr->wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_SEND,
                  0);
      continue;
    }
    int rc = ibqp->state != IBV_QPS_RTS ? EINVAL
             : q->sq_count == q->sq_cap ? ENOMEM
                                        : fv_post_one(q, wr);
    if (rc != 0) {
      *bad = wr;
      return rc;
    }
  }
  return 0;
}
