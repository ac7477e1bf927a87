/* Device buffers for the examples: --device npu|cuda|host picks where the
 * buffers handed to MPI live.  npu: aclrtMalloc from libascendcl.so
 * (HCMPI_ACL_LIB, the same library hcmpi loads: the CANN test double in
 * make check, or real CANN); cuda: cuMemAlloc from libcuda.so.1; host:
 * malloc.  The examples compute on host copies (devbuf_get/devbuf_put)
 * and never dereference a device pointer themselves. */
#ifndef EXAMPLES_DEVBUF_H
#define EXAMPLES_DEVBUF_H

#include <stddef.h>

/* Removes "--device KIND" (or "--device=KIND") from argv.  Returns the
 * kind named, or NULL when the option is absent. */
const char *devbuf_option(int *argc, char **argv);
/* Loads the runtime for kind and binds this process to device ordinal
 * device (modulo the device count).  0, or -1 (with a message) when the
 * runtime is missing: the examples then exit 77. */
int devbuf_init(const char *kind, int device);
const char *devbuf_kind(void);
void *devbuf_alloc(size_t n);
void devbuf_free(void *p);
/* Host <-> buffer copies; exit on failure. */
void devbuf_put(void *dst, const void *src, size_t n);
void devbuf_get(void *dst, const void *src, size_t n);


/* Stream-ordered work (pipeline --enqueue): a stream of the runtime
 * (NULL for host memory), its MPIX_Stream_create "type", a wait for it. */
void *devbuf_stream_create(void);
void devbuf_stream_sync(void *stream);
void devbuf_stream_destroy(void *stream);
const char *devbuf_stream_type(void);
/* A "layer kernel" on stream: y[i] = x[i] + add for n int32 elements.
 * Only the test doubles of the runtimes provide one (fakecann_launch_add,
 * fakecuda_launch_add); -1 without it. */
int devbuf_kernel_add(void *stream, void *y, const void *x, size_t n, int add);
int devbuf_has_kernel(void);
/* The host synchronisations the test double counted; -1 when the runtime
 * does not count them. */
long devbuf_host_syncs(void);

#endif
