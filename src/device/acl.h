/*
 * What the acl backend (acl.c) offers the rest of the device layer beyond
 * its ops table: HCCL (hccl.c) calls take the runtime's own stream and
 * need the calling thread bound to the device, as every ACL call does.
 * Nothing outside src/device includes this.
 */
#ifndef HC_DEVICE_ACL_H
#define HC_DEVICE_ACL_H

#include "hcomm_status.h"

/* The aclrtStream inside a stream from hc_device_acl_ops.stream_create,
 * and the device it was created on. */
void *hc_acl_stream_handle(void *stream);
int hc_acl_stream_device(void *stream);
/* aclrtSetDevice(device) for the calling thread (remembered per thread). */
hc_status_t hc_acl_bind_device(int device);

#endif /* HC_DEVICE_ACL_H */
