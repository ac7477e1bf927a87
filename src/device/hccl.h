/*
 * HCCL, Ascend's collective communication library, as the device layer
 * offers it to the engine's hccl data path (src/hcomm/devpath_hccl.c).
 *
 * libhccl.so is dlopen()ed at first use (HCMPI_HCCL_LIB); the
 * communicator calls are looked up in HCMPI_HCOMM_LIB (default
 * libhcomm.so) when libhccl lacks them, as from CANN 8.5.  The calls run
 * on the acl backend's streams (hc_device_acl_ops.stream_create) and bind
 * the calling thread to the device first, as every ACL caller must; the
 * engine never sees the runtime's own stream or library.  A failed HCCL
 * call is logged with HCCL's text and returns HC_ERR_TRANSPORT.
 */
#ifndef HC_DEVICE_HCCL_H
#define HC_DEVICE_HCCL_H

#include <stddef.h>
#include <stdint.h>

#include "hcomm.h"
#include "hcomm_status.h"

/* Size of HCCL's root info blob (HcclRootInfo). */
#define HC_HCCL_ROOT_BYTES 4108

/* 1 when the acl backend is loaded and HCCL with every call used (loads
 * on the first call; the answer is kept until hc_device_hccl_unload). */
int hc_device_hccl_loaded(void);
/* HcclGetRootInfo on device: the blob the other ranks join with. */
hc_status_t hc_device_hccl_root_info(int device, void *root);
/* HcclCommInitRootInfo: blocks until all nranks joined. */
hc_status_t hc_device_hccl_comm_init(int device, uint32_t nranks,
                                     const void *root, uint32_t rank,
                                     void **comm);
void hc_device_hccl_comm_destroy(int device, void *comm);
/* HcclSend / HcclRecv of bytes on an acl backend stream, to or from rank
 * peer of comm. */
hc_status_t hc_device_hccl_send(void *buf, size_t bytes, uint32_t peer,
                                void *comm, void *stream);
hc_status_t hc_device_hccl_recv(void *buf, size_t bytes, uint32_t peer,
                                void *comm, void *stream);
/* HCCL's collectives (hcomm.h's hcomm_hccl_coll_t says what each uses). */
/* 1 when HCCL (loaded) has every collective call. */
int hc_device_hccl_has_collectives(void);
/* Issues the collective on stream (not waited for). */
hc_status_t hc_device_hccl_collective(const hcomm_hccl_coll_t *a, void *comm,
                                      void *stream);
/* Finalize: closes the libraries (after every comm is destroyed). */
void hc_device_hccl_unload(void);

#endif /* HC_DEVICE_HCCL_H */
