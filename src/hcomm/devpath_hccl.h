/*
 * The hccl data path of the engine's device layer (see devpath.h and
 * docs/device.md): the host engine matches a device message as any other;
 * then both sides issue the paired HcclSend/HcclRecv on hcmpi streams of a
 * 2-rank HcclComm per pair of world ranks, created lazily: the lower rank
 * is the root; its HcclGetRootInfo blob travels on the first device RTS it
 * sends (as sender) or the first hccl CTS (as receiver); both sides run
 * HcclCommInitRootInfo on a helper thread, since it blocks until the peer
 * joins.  The receiver numbers its receives from each peer; the number
 * rides the CTS and the sender issues its sends in that order, so HCCL's
 * one-to-one pairing in issue order holds whatever order the CTS packets
 * arrive in.  Each direction has its own stream: a send blocks its stream
 * until the peer receives, and the peer's own sends must not wait behind.
 *
 * The HCCL calls themselves go through the device layer (device/hccl.h),
 * which loads the library.  Everything runs under the engine lock.
 */
#ifndef HC_DEVPATH_HCCL_H
#define HC_DEVPATH_HCCL_H

#include <stddef.h>
#include <stdint.h>

#include "device/hccl.h"
#include "hcomm.h"


/* One HcclSend or HcclRecv of the hccl path. */
typedef struct hc_hccl_op hc_hccl_op_t;

/* 1 when the ACL backend and libhccl are loaded (loads on first call). */
int hc_hccl_usable(void);
/* Sender of a device RTS to world rank peer: the root info to attach when
 * this rank is the pair's root and the pair's comm is not being created
 * yet (generated once, on device); NULL otherwise. */
const void *hc_hccl_rts_root(int peer, int device);
/* A root info that came from the pair's root (RTS or CTS payload). */
void hc_hccl_note_root(int peer, const void *root);
/* Receiver: claims the next receive from peer into the device buffer
 * [buf, buf+bytes) on device.  NULL when the hccl path cannot serve this
 * peer (no root info yet, comm failed, no memory): nothing was claimed.
 * Otherwise starts comm creation if needed; *root (this rank being the
 * root, while the pair is being set up) is the root info the CTS must
 * carry, else NULL. */
hc_hccl_op_t *hc_hccl_recv_claim(int peer, int device, void *buf,
                                 size_t bytes, const void **root);
/* Sender, on an hccl CTS numbered seq: queues the send.  NULL when the
 * pair's comm cannot be created (no root info) or on no memory. */
hc_hccl_op_t *hc_hccl_send_accept(int peer, int device, uint64_t seq,
                                  void *buf, size_t bytes);
/* The receive number a claimed op carries in its CTS. */
uint64_t hc_hccl_op_seq(const hc_hccl_op_t *op);
/* Advances the pair (comm creation, issue in order) and polls op:
 * HC_ERR_AGAIN while it runs, HC_OK when its bytes moved, another error
 * when it failed.  Never blocks. */
hc_status_t hc_hccl_op_poll(hc_hccl_op_t *op);
/* Frees an op (finished, failed, or at finalize). */
void hc_hccl_op_free(hc_hccl_op_t *op);
/* Finalize: waits for comm creation threads, destroys comms and streams,
 * unloads the library. */
void hc_hccl_fini(void);

#endif /* HC_DEVPATH_HCCL_H */
