/*
 * Device memory of the verbs transport (transport.h: mem_reg/mem_dereg):
 * whole device allocations the engine declared, registered from their
 * dma-buf with ibv_reg_dmabuf_mr (rdma-core >= 34, resolved at load;
 * absent: not supported, and the engine stages).  A short list, searched
 * by get() for its destination and by a peer's REG_REQ for the source
 * before the host registration cache, so a device address never reaches
 * ibv_reg_mr or the bounce buffer.  The engine owns each region's life: it
 * knows when an allocation is freed (the device layer's buffer id), this
 * layer does not.
 */
#include "config.h"


#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "transport/verbs/verbs_impl.h"
#include "util/log.h"

struct vb_devmem {
  vb_devmem_t *next;
  uint64_t addr;
  size_t len;
  struct ibv_mr *mr;
};

/* The region holds remote-read (a peer's get reads it) and local-write
 * (our get lands in it) access: one registration serves both ends; a
 * window's also remote-write (peers' rdma_write). */
hc_status_t hc_vb_mem_reg(void *ctx, const hc_transport_mem_t *mem,
                          void **handle, uint64_t *key) {
  vb_ctx_t *v = ctx;
  if (v == NULL || v->pd == NULL || mem->len == 0)
    return HC_ERR_NOT_SUPPORTED;
  if (v->f.reg_dmabuf_mr == NULL) {
    v->dev_refused++;
    return HC_ERR_NOT_SUPPORTED; /* rdma-core older than 34 */
  }
  vb_devmem_t *d = calloc(1, sizeof *d);
  if (d == NULL)
    return HC_ERR_NOMEM;
  int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
               (mem->window ? IBV_ACCESS_REMOTE_WRITE : 0);
  d->mr = v->f.reg_dmabuf_mr(v->pd, mem->dmabuf_offset, mem->len, mem->addr,
                             mem->dmabuf_fd, access);
  if (d->mr == NULL) {
    hc_log(HC_LOG_DEBUG, "verbs", "rank %d: ibv_reg_dmabuf_mr of %zu B: %s",
           v->world_rank, mem->len, strerror(errno));
    free(d);
    v->dev_refused++;
    return HC_ERR_NOT_SUPPORTED;
  }
  d->addr = mem->addr;
  d->len = mem->len;
  d->next = v->devmem;
  v->devmem = d;
  v->dev_regs++;
  *handle = d;
  if (key != NULL)
    *key = d->mr->rkey;
  return HC_OK;
}

void hc_vb_mem_dereg(void *ctx, void *handle) {
  vb_ctx_t *v = ctx;
  for (vb_devmem_t **l = &v->devmem; *l != NULL; l = &(*l)->next)
    if (*l == handle) {
      vb_devmem_t *d = *l;
      *l = d->next;
      v->f.dereg_mr(d->mr);
      free(d);
      return;
    }
}

struct ibv_mr *hc_vb_devmem_find(const vb_ctx_t *v, uint64_t addr, size_t len) {
  for (const vb_devmem_t *d = v->devmem; d != NULL; d = d->next)
    if (addr >= d->addr && len <= d->len && addr - d->addr <= d->len - len)
      return d->mr;
  return NULL;
}

void hc_vb_devmem_fini(vb_ctx_t *v) {
  hc_log(HC_LOG_DEBUG, "verbs",
         "rank %d: device registrations: %ld dmabuf, %ld refused; %ld gets "
         "into device memory, %ld served from it",
         v->world_rank, v->dev_regs, v->dev_refused, v->dev_gets,
         v->dev_served);
  while (v->devmem != NULL)
    hc_vb_mem_dereg(v, v->devmem);
}
