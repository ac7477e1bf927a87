#include "config.h"

#include "device/query.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/env.h"

typedef int (*query_cu_init_fn)(unsigned flags);
typedef int (*query_cu_int_fn)(int *value);
typedef int (*query_acl_init_fn)(const char *config);
typedef int (*query_acl_count_fn)(uint32_t *count);
typedef int (*query_acl_version_fn)(int32_t *major, int32_t *minor,
                                    int32_t *patch);
typedef int (*query_acl_fini_fn)(void);

/* dlsym's void* to a function pointer, the one way C allows it. */
static void *query_sym(void *lib, const char *name) { return dlsym(lib, name); }

static void *query_open(const char *path, hc_device_query_t *out) {
  snprintf(out->path, sizeof out->path, "%s", path);
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    const char *why = dlerror();
    snprintf(out->error, sizeof out->error, "%s", why ? why : "not found");
    return NULL;
  }
  out->loaded = 1;
  struct link_map *map = NULL;
  if (dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map != NULL &&
      map->l_name != NULL && map->l_name[0] != '\0')
    snprintf(out->path, sizeof out->path, "%s", map->l_name);
  return lib;
}

static void query_cuda(hc_device_query_t *out) {
  void *lib = query_open(hc_env_string("HCMPI_CUDA_LIB", "libcuda.so.1"), out);
  if (lib == NULL)
    return;
  query_cu_init_fn init;
  query_cu_int_fn version, count;
  *(void **)&init = query_sym(lib, "cuInit");
  *(void **)&version = query_sym(lib, "cuDriverGetVersion");
  *(void **)&count = query_sym(lib, "cuDeviceGetCount");
  int v = 0, n = 0, err = init ? init(0) : -1;
  if (version != NULL && version(&v) == 0 && v > 0)
    snprintf(out->version, sizeof out->version, "%d.%d", v / 1000,
             (v % 1000) / 10);
  if (err != 0) {
    snprintf(out->error, sizeof out->error, "cuInit: CUresult %d", err);
  } else {
    out->usable = 1;
    if (count != NULL && count(&n) == 0)
      out->count = n;
  }
  dlclose(lib);
}

static void query_acl(hc_device_query_t *out) {
  void *lib = query_open(hc_env_string("HCMPI_ACL_LIB", "libascendcl.so"), out);
  if (lib == NULL)
    return;
  query_acl_init_fn init;
  query_acl_count_fn count;
  query_acl_version_fn version;
  query_acl_fini_fn fini;
  *(void **)&init = query_sym(lib, "aclInit");
  *(void **)&count = query_sym(lib, "aclrtGetDeviceCount");
  *(void **)&version = query_sym(lib, "aclrtGetVersion");
  *(void **)&fini = query_sym(lib, "aclFinalize");
  int32_t major = 0, minor = 0, patch = 0;
  if (version != NULL && version(&major, &minor, &patch) == 0)
    snprintf(out->version, sizeof out->version, "%d.%d.%d", (int)major,
             (int)minor, (int)patch);
  /* 100002 is ACL's "already initialised": still usable. */
  int err = init ? init(NULL) : -1;
  uint32_t n = 0;
  if (err != 0 && err != 100002) {
    snprintf(out->error, sizeof out->error, "aclInit: error %d", err);
  } else {
    out->usable = 1;
    if (count != NULL && count(&n) == 0)
      out->count = (int)n;
    if (err == 0 && fini != NULL)
      fini();
  }
  dlclose(lib);
}

void hc_device_query(hc_mem_kind_t kind, hc_device_query_t *out) {
  memset(out, 0, sizeof *out);
  out->count = -1;
  snprintf(out->version, sizeof out->version, "unknown");
  if (kind == HC_MEM_CUDA) {
    query_cuda(out);
  } else if (kind == HC_MEM_ACL) {
    query_acl(out);
  } else {
    out->loaded = out->usable = 1;
    out->count = 1;
    snprintf(out->path, sizeof out->path, "(built in)");
  }
}
