/*
 * The verbs test double is as strict as hardware where the transport
 * could go wrong unseen: pairs of RC QPs in one process, connected to each
 * other, and each case asserts the error a real HCA gives.
 *   reg_mr_efault      unmapped or PROT_NONE memory: EFAULT
 *   rd_atomic_limits   max_dest_rd_atomic / max_rd_atomic above the
 *                      device's 16: EINVAL
 *   read_needs_access  RDMA READ at a QP without IBV_ACCESS_REMOTE_READ:
 *                      IBV_WC_REM_INV_REQ_ERR; with it: the bytes
 *   rnr_exhausted      SEND without a posted receive, rnr_retry 0:
 *                      IBV_WC_RNR_RETRY_EXC_ERR; with one: success
 *   pd_mismatch        a local SGE of another PD: IBV_WC_LOC_PROT_ERR; an
 *                      rkey of another PD than the target QP's:
 *                      IBV_WC_REM_ACCESS_ERR
 *   inline_limit       an inline send above max_inline_data: refused
 *   dmabuf_mr          ibv_reg_dmabuf_mr: RDMA READ out of and into the
 *                      fd's bytes at the region's iova; unaligned offset
 *                      or a range past the fd's end: EINVAL;
 *                      FAKE_VERBS_NO_DMABUF=1: EOPNOTSUPP
 * Built with the double's source linked in; skips (77) without rdma-core's
 * headers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#undef ibv_reg_mr

static int failures;

#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "FAIL %s:%d: ", __func__, __LINE__);                     \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static struct ibv_context *ctx;
static struct ibv_pd *pd, *pd2;
static struct ibv_cq *cq;

static struct ibv_qp *qp_new(struct ibv_pd *p) {
  struct ibv_qp_init_attr ia = {.send_cq = cq,
                                .recv_cq = cq,
                                .cap = {.max_send_wr = 8,
                                        .max_recv_wr = 8,
                                        .max_send_sge = 1,
                                        .max_recv_sge = 1,
                                        .max_inline_data = 64},
                                .qp_type = IBV_QPT_RC};
  struct ibv_qp *qp = ibv_create_qp(p, &ia);
  if (qp == NULL) {
    perror("ibv_create_qp");
    exit(1);
  }
  return qp;
}

static int qp_init(struct ibv_qp *qp, int access) {
  struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT,
                          .port_num = 1,
                          .qp_access_flags = (unsigned)access};
  return ibv_modify_qp(qp, &a,
                       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                           IBV_QP_ACCESS_FLAGS);
}

static int qp_rtr(struct ibv_qp *qp, uint32_t dest, int max_dest_rd) {
  struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR,
                          .path_mtu = IBV_MTU_4096,
                          .dest_qp_num = dest,
                          .max_dest_rd_atomic = (uint8_t)max_dest_rd,
                          .min_rnr_timer = 1};
  a.ah_attr.dlid = 1;
  a.ah_attr.port_num = 1;
  return ibv_modify_qp(qp, &a,
                       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                           IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                           IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}

static int qp_rts(struct ibv_qp *qp, int max_rd) {
  struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTS,
                          .timeout = 14,
                          .retry_cnt = 7,
                          .rnr_retry = 0,
                          .max_rd_atomic = (uint8_t)max_rd};
  return ibv_modify_qp(qp, &a,
                       IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                           IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                           IBV_QP_MAX_QP_RD_ATOMIC);
}

/* a and b connected both ways; b's QP enables b_access. */
static void pair_new(struct ibv_qp **a, struct ibv_qp **b, int b_access) {
  *a = qp_new(pd);
  *b = qp_new(pd);
  if (qp_init(*a, 0) || qp_init(*b, b_access) || qp_rtr(*a, (*b)->qp_num, 4) ||
      qp_rtr(*b, (*a)->qp_num, 4) || qp_rts(*a, 4) || qp_rts(*b, 4)) {
    fprintf(stderr, "cannot connect a pair\n");
    exit(1);
  }
}

static void pair_free(struct ibv_qp *a, struct ibv_qp *b) {
  ibv_destroy_qp(a);
  ibv_destroy_qp(b);
  struct ibv_wc wc;
  while (ibv_poll_cq(cq, 1, &wc) > 0)
    ; /* flushed leftovers */
}

/* The next completion of wr_id (others are skipped); 5 s at most. */
static struct ibv_wc wait_wc(uint64_t wr_id) {
  struct ibv_wc wc = {.status = IBV_WC_GENERAL_ERR};
  for (int i = 0; i < 50000; i++) {
    if (ibv_poll_cq(cq, 1, &wc) > 0 && wc.wr_id == wr_id)
      return wc;
    struct timespec t = {0, 100000};
    nanosleep(&t, NULL);
  }
  fprintf(stderr, "no completion of %llu\n", (unsigned long long)wr_id);
  wc.status = IBV_WC_GENERAL_ERR;
  return wc;
}

static int post_read(struct ibv_qp *qp, struct ibv_mr *local,
                     struct ibv_mr *remote, size_t len) {
  struct ibv_sge sge = {(uintptr_t)local->addr, (uint32_t)len, local->lkey};
  struct ibv_send_wr wr = {.wr_id = 7,
                           .sg_list = &sge,
                           .num_sge = 1,
                           .opcode = IBV_WR_RDMA_READ,
                           .send_flags = IBV_SEND_SIGNALED},
                     *bad;
  wr.wr.rdma.remote_addr = (uintptr_t)remote->addr;
  wr.wr.rdma.rkey = remote->rkey;
  return ibv_post_send(qp, &wr, &bad);
}

static int post_send(struct ibv_qp *qp, struct ibv_mr *mr, size_t len,
                     int flags) {
  struct ibv_sge sge = {(uintptr_t)mr->addr, (uint32_t)len, mr->lkey};
  struct ibv_send_wr wr = {.wr_id = 9,
                           .sg_list = &sge,
                           .num_sge = 1,
                           .opcode = IBV_WR_SEND,
                           .send_flags = IBV_SEND_SIGNALED | flags},
                     *bad;
  return ibv_post_send(qp, &wr, &bad);
}

static void reg_mr_efault(void) {
  long page = sysconf(_SC_PAGESIZE);
  char *m = mmap(NULL, 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  errno = 0;
  EXPECT(ibv_reg_mr(pd, m, page, IBV_ACCESS_LOCAL_WRITE) == NULL &&
             errno == EFAULT,
         "PROT_NONE: errno %d", errno);
  mprotect(m, page, PROT_READ | PROT_WRITE);
  errno = 0;
  EXPECT(ibv_reg_mr(pd, m, 2 * page, IBV_ACCESS_LOCAL_WRITE) == NULL &&
             errno == EFAULT,
         "half PROT_NONE: errno %d", errno);
  struct ibv_mr *ok = ibv_reg_mr(pd, m, page, IBV_ACCESS_LOCAL_WRITE);
  EXPECT(ok != NULL, "mapped page refused: errno %d", errno);
  if (ok != NULL)
    ibv_dereg_mr(ok);
  munmap(m, 2 * page);
  errno = 0;
  EXPECT(ibv_reg_mr(pd, m, page, IBV_ACCESS_LOCAL_WRITE) == NULL &&
             errno == EFAULT,
         "unmapped: errno %d", errno);
}

static void rd_atomic_limits(void) {
  struct ibv_qp *a = qp_new(pd), *b = qp_new(pd);
  qp_init(a, 0);
  qp_init(b, 0);
  EXPECT(qp_rtr(a, b->qp_num, 17) == EINVAL, "max_dest_rd_atomic 17 taken");
  EXPECT(qp_rtr(a, b->qp_num, 16) == 0, "max_dest_rd_atomic 16 refused");
  EXPECT(qp_rts(a, 17) == EINVAL, "max_rd_atomic 17 taken");
  EXPECT(qp_rts(a, 16) == 0, "max_rd_atomic 16 refused");
  pair_free(a, b);
}

/* The status of one RDMA READ of len bytes from remote into local over a
 * fresh pair whose target QP enables b_access. */
static int read_status(int b_access, struct ibv_mr *local,
                       struct ibv_mr *remote, size_t len) {
  struct ibv_qp *a, *b;
  pair_new(&a, &b, b_access);
  int st = IBV_WC_GENERAL_ERR;
  if (post_read(a, local, remote, len) == 0)
    st = (int)wait_wc(7).status;
  pair_free(a, b);
  return st;
}

static void read_needs_access(void) {
  static char src[4096], dst[4096];
  memset(src, 'r', sizeof src);
  struct ibv_mr *ms = ibv_reg_mr(pd, src, sizeof src, IBV_ACCESS_REMOTE_READ);
  struct ibv_mr *md = ibv_reg_mr(pd, dst, sizeof dst, IBV_ACCESS_LOCAL_WRITE);
  int st = read_status(0, md, ms, sizeof src);
  EXPECT(st == IBV_WC_REM_INV_REQ_ERR,
         "READ at a QP without remote read: status %d", st);
  st = read_status(IBV_ACCESS_REMOTE_READ, md, ms, sizeof src);
  EXPECT(st == IBV_WC_SUCCESS && memcmp(src, dst, sizeof src) == 0,
         "READ with remote read: status %d", st);
  ibv_dereg_mr(ms);
  ibv_dereg_mr(md);
}

static void rnr_exhausted(void) {
  static char buf[256];
  struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof buf, IBV_ACCESS_LOCAL_WRITE);
  struct ibv_qp *a, *b;
  pair_new(&a, &b, 0);
  EXPECT(post_send(a, mr, 64, 0) == 0, "SEND not posted");
  struct ibv_wc wc = wait_wc(9);
  EXPECT(wc.status == IBV_WC_RNR_RETRY_EXC_ERR,
         "SEND without a receive: status %d", (int)wc.status);
  pair_free(a, b);
  pair_new(&a, &b, 0);
  struct ibv_sge sge = {(uintptr_t)buf + 128, 128, mr->lkey};
  struct ibv_recv_wr rwr = {.wr_id = 3, .sg_list = &sge, .num_sge = 1}, *bad;
  EXPECT(ibv_post_recv(b, &rwr, &bad) == 0, "receive not posted");
  EXPECT(post_send(a, mr, 64, 0) == 0, "SEND not posted");
  wc = wait_wc(9);
  EXPECT(wc.status == IBV_WC_SUCCESS, "SEND with a receive: status %d",
         (int)wc.status);
  pair_free(a, b);
  ibv_dereg_mr(mr);
}

static void pd_mismatch(void) {
  static char src[4096], dst[4096];
  struct ibv_mr *ms2 = ibv_reg_mr(pd2, src, sizeof src, IBV_ACCESS_REMOTE_READ);
  struct ibv_mr *md = ibv_reg_mr(pd, dst, sizeof dst, IBV_ACCESS_LOCAL_WRITE);
  struct ibv_mr *md2 = ibv_reg_mr(pd2, dst, sizeof dst, IBV_ACCESS_LOCAL_WRITE);
  int st = read_status(IBV_ACCESS_REMOTE_READ, md, ms2, sizeof src);
  EXPECT(st == IBV_WC_REM_ACCESS_ERR, "rkey of another PD: status %d", st);
  st = read_status(IBV_ACCESS_REMOTE_READ, md2, ms2, sizeof src);
  EXPECT(st == IBV_WC_LOC_PROT_ERR, "lkey of another PD: status %d", st);
  ibv_dereg_mr(ms2);
  ibv_dereg_mr(md);
  ibv_dereg_mr(md2);
}

static void inline_limit(void) {
  static char buf[512];
  struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof buf, IBV_ACCESS_LOCAL_WRITE);
  struct ibv_qp *a, *b;
  pair_new(&a, &b, 0);
  EXPECT(post_send(a, mr, 300, IBV_SEND_INLINE) != 0,
         "300 B inline taken with a 256 B limit");
  pair_free(a, b);
  ibv_dereg_mr(mr);
}

/* A dma-buf region (a memfd stands in for the dma-buf) at an iova that
 * faults if the double touched it: RDMA READ out of it and into it moves
 * the fd's bytes; bad arguments and FAKE_VERBS_NO_DMABUF are refused. */
static void dmabuf_mr(void) {
  const size_t len = 2 * (size_t)sysconf(_SC_PAGESIZE);
  int fd = memfd_create("fv-strict-dmabuf", MFD_CLOEXEC);
  void *iova = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  static unsigned char host[8192], back[8192];
  if (fd < 0 || ftruncate(fd, (off_t)len) != 0 || iova == MAP_FAILED ||
      len > sizeof host) {
    EXPECT(0, "no memfd or reservation");
    return;
  }
  for (size_t i = 0; i < len; i++)
    host[i] = (unsigned char)(i * 7 + 1);
  EXPECT(pwrite(fd, host, len, 0) == (ssize_t)len, "memfd write");
  int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
  struct ibv_mr *dm = ibv_reg_dmabuf_mr(pd, 0, len, (uintptr_t)iova, fd, acc);
  EXPECT(dm != NULL && dm->addr == iova, "dmabuf region refused: errno %d",
         errno);
  struct ibv_mr *hm = ibv_reg_mr(pd, back, len, acc);
  if (dm == NULL || hm == NULL)
    return;
  int st = read_status(IBV_ACCESS_REMOTE_READ, hm, dm, len);
  EXPECT(st == IBV_WC_SUCCESS && memcmp(back, host, len) == 0,
         "READ out of a dmabuf region: status %d", st);
  for (size_t i = 0; i < len; i++)
    back[i] = (unsigned char)(i * 3 + 5);
  st = read_status(IBV_ACCESS_REMOTE_READ, dm, hm, len);
  EXPECT(st == IBV_WC_SUCCESS, "READ into a dmabuf region: status %d", st);
  EXPECT(pread(fd, host, len, 0) == (ssize_t)len &&
             memcmp(back, host, len) == 0,
         "READ into a dmabuf region: the fd's bytes differ");
  errno = 0;
  EXPECT(ibv_reg_dmabuf_mr(pd, 100, 4096, (uintptr_t)iova, fd, acc) == NULL &&
             errno == EINVAL,
         "unaligned offset: errno %d", errno);
  errno = 0;
  EXPECT(ibv_reg_dmabuf_mr(pd, 0, 2 * len, (uintptr_t)iova, fd, acc) == NULL &&
             errno == EINVAL,
         "past the dma-buf's end: errno %d", errno);
  setenv("FAKE_VERBS_NO_DMABUF", "1", 1);
  errno = 0;
  EXPECT(ibv_reg_dmabuf_mr(pd, 0, len, (uintptr_t)iova, fd, acc) == NULL &&
             errno == EOPNOTSUPP,
         "FAKE_VERBS_NO_DMABUF: errno %d", errno);
  unsetenv("FAKE_VERBS_NO_DMABUF");
  ibv_dereg_mr(dm);
  ibv_dereg_mr(hm);
  munmap(iova, len);
  close(fd);
}

int main(void) {
  char dir[] = "/tmp/fv-strict.XXXXXX";
  if (mkdtemp(dir) == NULL || setenv("FAKE_VERBS_DIR", dir, 1) != 0)
    return 1;
  int n = 0;
  struct ibv_device **list = ibv_get_device_list(&n);
  ctx = n > 0 ? ibv_open_device(list[0]) : NULL;
  pd = ctx ? ibv_alloc_pd(ctx) : NULL;
  pd2 = ctx ? ibv_alloc_pd(ctx) : NULL;
  cq = ctx ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
  if (cq == NULL || pd2 == NULL) {
    fprintf(stderr, "no fake device\n");
    return 1;
  }
  reg_mr_efault();
  rd_atomic_limits();
  read_needs_access();
  rnr_exhausted();
  pd_mismatch();
  inline_limit();
  dmabuf_mr();
  ibv_destroy_cq(cq);
  ibv_dealloc_pd(pd);
  ibv_dealloc_pd(pd2);
  ibv_close_device(ctx);
  ibv_free_device_list(list);
  rmdir(dir);
  printf("fv_strict: %s\n", failures ? "FAILED" : "all passed");
  return failures ? 1 : 0;
}
