/*
 * The device path's registrations of device memory with transports that
 * can RDMA it (transport.h: mem_reg; verbs with dma-buf), for the rdma
 * data path of devpath.c: a rendezvous whose receiver READs the sender's
 * buffer straight into its own, either end host or device memory.
 *
 * The engine, not the transport, decides what memory a buffer is: it
 * classifies it (src/device), exports the whole allocation as a dma-buf
 * and hands the transport that fd.  Device allocations do not move, so a
 * registration is kept per (transport context, allocation base, buffer id)
 * and reused by every later message in that allocation; one whose
 * allocation the device layer no longer confirms (freed, or another one
 * at the same address: hc_device_alloc_alive) is deregistered, as is a
 * least recently used one when the table is full.  A refusal (no dma-buf
 * from the runtime, or the transport refused it) is remembered per
 * allocation too, so such memory stages without asking again.
 *
 * Runs under the engine lock, as devpath.c does.
 */
#ifndef HC_DEVPATH_RDMA_H
#define HC_DEVPATH_RDMA_H

#include "device/device.h"
#include "hcomm/core.h"

/* Registers the allocation info describes with peer's transport (cached)
 * and holds it: returns a reference (> 0) for hc_devrdma_put, or 0 when it
 * cannot be registered (the caller stages). */
int hc_devrdma_get(const hc_peer_t *peer, const hc_mem_info_t *info);
/* Gives back a reference from hc_devrdma_get; 0 is ignored. */
void hc_devrdma_put(int ref);
/* 1 when peer's transport can register device memory at all. */
int hc_devrdma_possible(const hc_peer_t *peer);
/* Logs the counts (HCMPI_LOG=debug) and deregisters everything; before
 * the transports' fini. */
void hc_devrdma_fini(void);

#endif /* HC_DEVPATH_RDMA_H */
