/* See devbuf.h. */
#include "devbuf.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DB_HOST, DB_NPU, DB_CUDA };

static struct {
    int kind;
    const char *name;
    /* ACL: our own declarations (int aclError, size_t counts). */
    int (*acl_malloc)(void **, size_t, int);
    int (*acl_free)(void *);
    int (*acl_memcpy)(void *, size_t, const void *, size_t, int);
    /* CUDA driver API (CUdeviceptr is an unsigned long long). */
    int (*cu_alloc)(unsigned long long *, size_t);
    int (*cu_free)(unsigned long long);
    int (*cu_htod)(unsigned long long, const void *, size_t);
    int (*cu_dtoh)(void *, unsigned long long, size_t);
    /* Streams, of either runtime (aclrtStream and CUstream are pointers). */
    void *lib;
    int (*stream_sync)(void *);
    int (*stream_destroy)(void *);
    int (*acl_stream_create)(void **);
    int (*cu_stream_create)(void **, unsigned);
    /* The test doubles' kernel and sync counter; NULL elsewhere. */
    int (*kernel_add)(void *, void *, const void *, size_t, int32_t, unsigned);
    unsigned long (*host_syncs)(void);
} db = {.kind = DB_HOST, .name = "host"};

const char *devbuf_option(int *argc, char **argv)
{
    const char *kind = NULL;
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < *argc)
            kind = argv[++i];
        else if (strncmp(argv[i], "--device=", 9) == 0)
            kind = argv[i] + 9;
        else
            argv[out++] = argv[i];
    }
    *argc = out;
    argv[out] = NULL;
    return kind;
}

static void *db_sym(void *lib, const char *name, int *bad)
{
    void *f = dlsym(lib, name);
    if (f == NULL)
        *bad = 1;
    return f;
}

static int db_init_npu(int device)
{
    const char *path = getenv("HCMPI_ACL_LIB") ? getenv("HCMPI_ACL_LIB") : "libascendcl.so";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "devbuf: no ACL runtime (%s)\n", dlerror());
        return -1;
    }
    int bad = 0;
    int (*init)(const char *) = (int (*)(const char *))db_sym(lib, "aclInit", &bad);
    int (*set)(int32_t) = (int (*)(int32_t))db_sym(lib, "aclrtSetDevice", &bad);
    int (*count)(uint32_t *) = (int (*)(uint32_t *))db_sym(lib, "aclrtGetDeviceCount", &bad);
    *(void **)&db.acl_malloc = db_sym(lib, "aclrtMalloc", &bad);
    *(void **)&db.acl_free = db_sym(lib, "aclrtFree", &bad);
    *(void **)&db.acl_memcpy = db_sym(lib, "aclrtMemcpy", &bad);
    *(void **)&db.acl_stream_create = db_sym(lib, "aclrtCreateStream", &bad);
    *(void **)&db.stream_sync = db_sym(lib, "aclrtSynchronizeStream", &bad);
    *(void **)&db.stream_destroy = db_sym(lib, "aclrtDestroyStream", &bad);
    *(void **)&db.kernel_add = dlsym(lib, "fakecann_launch_add");
    *(void **)&db.host_syncs = dlsym(lib, "fakecann_host_syncs");
    if (bad)
        return -1;
    int rc = init(NULL);
    if (rc != 0 && rc != 100002) /* ACL_ERROR_REPEAT_INITIALIZE */
        return -1;
    uint32_t n = 1;
    if (count(&n) != 0 || n == 0)
        n = 1;
    return set((int32_t)((uint32_t)device % n)) == 0 ? 0 : -1;
}

static int db_init_cuda(int device)
{
    const char *path = getenv("HCMPI_CUDA_LIB") ? getenv("HCMPI_CUDA_LIB") : "libcuda.so.1";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "devbuf: no CUDA driver (%s)\n", dlerror());
        return -1;
    }
    int bad = 0, n = 0, dev;
    void *ctx;
    int (*init)(unsigned) = (int (*)(unsigned))db_sym(lib, "cuInit", &bad);
    int (*count)(int *) = (int (*)(int *))db_sym(lib, "cuDeviceGetCount", &bad);
    int (*get)(int *, int) = (int (*)(int *, int))db_sym(lib, "cuDeviceGet", &bad);
    int (*retain)(void **, int) =
        (int (*)(void **, int))db_sym(lib, "cuDevicePrimaryCtxRetain", &bad);
    int (*setctx)(void *) = (int (*)(void *))db_sym(lib, "cuCtxSetCurrent", &bad);
    *(void **)&db.cu_alloc = db_sym(lib, "cuMemAlloc_v2", &bad);
    *(void **)&db.cu_free = db_sym(lib, "cuMemFree_v2", &bad);
    *(void **)&db.cu_htod = db_sym(lib, "cuMemcpyHtoD_v2", &bad);
    *(void **)&db.cu_dtoh = db_sym(lib, "cuMemcpyDtoH_v2", &bad);
    *(void **)&db.cu_stream_create = db_sym(lib, "cuStreamCreate", &bad);
    *(void **)&db.stream_sync = db_sym(lib, "cuStreamSynchronize", &bad);
    *(void **)&db.stream_destroy = db_sym(lib, "cuStreamDestroy_v2", &bad);
    *(void **)&db.kernel_add = dlsym(lib, "fakecuda_launch_add");
    *(void **)&db.host_syncs = dlsym(lib, "fakecuda_host_syncs");
    if (bad || init(0) != 0 || count(&n) != 0 || n == 0)
        return -1;
    if (get(&dev, device % n) != 0 || retain(&ctx, dev) != 0 || setctx(ctx) != 0)
        return -1;
    return 0;
}

int devbuf_init(const char *kind, int device)
{
    if (kind == NULL || strcmp(kind, "host") == 0)
        return 0;
    if (strcmp(kind, "npu") == 0) {
        db.kind = DB_NPU;
        db.name = "npu";
        return db_init_npu(device);
    }
    if (strcmp(kind, "cuda") == 0) {
        db.kind = DB_CUDA;
        db.name = "cuda";
        return db_init_cuda(device);
    }
    fprintf(stderr, "devbuf: --device npu|cuda|host, not %s\n", kind);
    return -1;
}

const char *devbuf_kind(void) { return db.name; }

static void db_die(const char *what)
{
    fprintf(stderr, "devbuf: %s failed\n", what);
    exit(1);
}

void *devbuf_alloc(size_t n)
{
    void *p = NULL;
    unsigned long long d = 0;
    if (n == 0)
        n = 1;
    if (db.kind == DB_NPU && db.acl_malloc(&p, n, 0) != 0)
        db_die("aclrtMalloc");
    if (db.kind == DB_CUDA) {
        if (db.cu_alloc(&d, n) != 0)
            db_die("cuMemAlloc");
        p = (void *)(uintptr_t)d;
    }
    if (db.kind == DB_HOST && (p = malloc(n)) == NULL)
        db_die("malloc");
    return p;
}

void devbuf_free(void *p)
{
    if (db.kind == DB_NPU)
        db.acl_free(p);
    else if (db.kind == DB_CUDA)
        db.cu_free((unsigned long long)(uintptr_t)p);
    else
        free(p);
}

void devbuf_put(void *dst, const void *src, size_t n)
{
    if (n == 0)
        return;
    if (db.kind == DB_NPU && db.acl_memcpy(dst, n, src, n, 1) != 0)
        db_die("aclrtMemcpy host to device");
    /* cuMemcpyHtoD from pageable memory may return before the bytes reach
     * the device; MPI may read them from another stream or process next. */
    if (db.kind == DB_CUDA &&
        (db.cu_htod((unsigned long long)(uintptr_t)dst, src, n) != 0 ||
         db.stream_sync(NULL) != 0))
        db_die("cuMemcpyHtoD");
    if (db.kind == DB_HOST)
        memcpy(dst, src, n);
}

void devbuf_get(void *dst, const void *src, size_t n)
{
    if (n == 0)
        return;
    if (db.kind == DB_NPU && db.acl_memcpy(dst, n, src, n, 2) != 0)
        db_die("aclrtMemcpy device to host");
    if (db.kind == DB_CUDA && db.cu_dtoh(dst, (unsigned long long)(uintptr_t)src, n) != 0)
        db_die("cuMemcpyDtoH");
    if (db.kind == DB_HOST)
        memcpy(dst, src, n);
}

void *devbuf_stream_create(void)
{
    void *s = NULL;
    if (db.kind == DB_NPU && db.acl_stream_create(&s) != 0)
        db_die("aclrtCreateStream");
    if (db.kind == DB_CUDA && db.cu_stream_create(&s, 0) != 0)
        db_die("cuStreamCreate");
    return s;
}

void devbuf_stream_sync(void *stream)
{
    if (stream != NULL && db.stream_sync(stream) != 0)
        db_die("stream synchronisation");
}

void devbuf_stream_destroy(void *stream)
{
    if (stream != NULL)
        db.stream_destroy(stream);
}

const char *devbuf_stream_type(void)
{
    return db.kind == DB_NPU ? "aclrtStream" : db.kind == DB_CUDA ? "cudaStream_t" : NULL;
}

int devbuf_kernel_add(void *stream, void *y, const void *x, size_t n, int add)
{
    if (db.kernel_add == NULL || stream == NULL)
        return -1;
    return db.kernel_add(stream, y, x, n, add, 0) == 0 ? 0 : -1;
}

int devbuf_has_kernel(void) { return db.kernel_add != NULL; }

long devbuf_host_syncs(void)
{
    return db.host_syncs != NULL ? (long)db.host_syncs() : -1;
}
