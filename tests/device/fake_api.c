#include "fake_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static int fake_api_sym(void *lib, const char *name, void *slot) {
  void *f = dlsym(lib, name);
  *(void **)slot = f;
  if (f == NULL)
    fprintf(stderr, "test double lacks %s\n", name);
  return f == NULL;
}

int fake_api_load(const char *path, int dev, fake_api_t *api) {
  if (path == NULL)
    path = getenv("HCMPI_ACL_LIB");
  if (path == NULL)
    return -1;
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
    return -1;
  }
  int bad = 0;
  bad += fake_api_sym(lib, "aclInit", &api->init);
  bad += fake_api_sym(lib, "aclrtSetDevice", &api->set_device);
  bad += fake_api_sym(lib, "aclrtMalloc", &api->malloc_dev);
  bad += fake_api_sym(lib, "aclrtFree", &api->free_dev);
  bad += fake_api_sym(lib, "aclrtMallocHost", &api->malloc_host);
  bad += fake_api_sym(lib, "aclrtFreeHost", &api->free_host);
  bad += fake_api_sym(lib, "aclrtMemcpy", &api->memcpy_sync);
  bad += fake_api_sym(lib, "aclrtIpcMemGetExportKey", &api->export_key);
  bad += fake_api_sym(lib, "aclrtIpcMemSetImportPid", &api->set_pid);
  bad += fake_api_sym(lib, "aclrtIpcMemImportByKey", &api->import_key);
  bad += fake_api_sym(lib, "aclrtIpcMemClose", &api->close_key);
  if (bad)
    return -1;
  aclError err = api->init(NULL);
  if (err != ACL_SUCCESS && err != ACL_ERROR_REPEAT_INITIALIZE)
    return -1;
  return api->set_device(dev) == ACL_SUCCESS ? 0 : -1;
}
