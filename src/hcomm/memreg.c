/*
 * Host memory registered ahead of use (MPI_Alloc_mem): each transport
 * that registers host memory (host_reg: verbs) registers the range once,
 * so that transfers over any part of it skip on-demand registration.
 * Transports without host_reg need nothing and are skipped.
 */
#include <stdlib.h>

#include "hcomm/core.h"

struct hcomm_memreg {
  /* Per engine transport slot: its handle, or NULL where none. */
  void *handles[HC_ENGINE_TRANSPORTS_MAX];
};

/* 1 while the engine's transports exist (between init and finalize). */
static int memreg_transports_up(void) {
  return hc_engine.initialized && !hc_engine.finalized;
}

hc_status_t hcomm_mem_register(void *addr, size_t len,
                               hcomm_memreg_t **handle) {
  if (handle == NULL || (addr == NULL && len > 0))
    return HC_ERR_ARG;
  *handle = NULL;
  hcomm_memreg_t *reg = calloc(1, sizeof *reg);
  if (reg == NULL)
    return HC_ERR_NOMEM;
  int any = 0;
  hc_engine_lock();
  for (int i = 0;
       memreg_transports_up() && len > 0 && i < hc_engine.ntransports; i++) {
    const hc_engine_transport_t *t = &hc_engine.transports[i];
    /* A refusal leaves that transport to register on demand. */
    uint64_t key; /* for one-sided access by peers: not used here */
    if (t->ops->host_reg != NULL &&
        t->ops->host_reg(t->ctx, addr, len, &reg->handles[i], &key) == HC_OK)
      any = 1;
  }
  hc_engine_unlock();
  if (!any)
    free(reg);
  else
    *handle = reg;
  return HC_OK;
}

void hcomm_mem_deregister(hcomm_memreg_t *handle) {
  if (handle == NULL)
    return;
  hc_engine_lock();
  /* After finalize the transports released everything themselves. */
  for (int i = 0; memreg_transports_up() && i < hc_engine.ntransports; i++) {
    const hc_engine_transport_t *t = &hc_engine.transports[i];
    if (handle->handles[i] != NULL)
      t->ops->host_dereg(t->ctx, handle->handles[i]);
  }
  hc_engine_unlock();
  free(handle);
}
