/*
 * HCCL through dlopen, on the acl backend's streams.  See hccl.h.
 */
#include "device/hccl.h"

#include <dlfcn.h>
#include <string.h>

#include "device/acl.h"
#include "device/device.h"
#include "util/env.h"
#include "util/log.h"

/* Our own declarations of the few HCCL types used: the vendor headers are
 * not valid C (shared/reference/hcomm-acl-api.md §1.9). */
#define HCCL_OK 0
#define HCCL_TYPE_UINT8 7

typedef struct hccl_api {
  int (*get_root_info)(void *root);
  int (*comm_init)(uint32_t nranks, const void *root, uint32_t rank,
                   void **comm);
  int (*comm_destroy)(void *comm);
  int (*send)(void *buf, uint64_t count, int type, uint32_t peer, void *comm,
              void *stream);
  int (*recv)(void *buf, uint64_t count, int type, uint32_t peer, void *comm,
              void *stream);
  const char *(*error_string)(int code);
  /* the collectives (optional: the hccl point-to-point path works without) */
  int (*allreduce)(const void *send, void *recv, uint64_t count, int type,
                   int op, void *comm, void *stream);
  int (*bcast)(void *buf, uint64_t count, int type, uint32_t root, void *comm,
               void *stream);
  int (*allgather)(const void *send, void *recv, uint64_t count, int type,
                   void *comm, void *stream);
  int (*reduce_scatter)(const void *send, void *recv, uint64_t count, int type,
                        int op, void *comm, void *stream);
  int (*reduce)(const void *send, void *recv, uint64_t count, int type, int op,
                uint32_t root, void *comm, void *stream);
  int (*alltoallv)(const void *send, const void *scounts, const void *sdispls,
                   int stype, const void *recv, const void *rcounts,
                   const void *rdispls, int rtype, void *comm, void *stream);
} hccl_api_t;

static struct {
  int tried, ok;
  void *lib, *lib_comm;
  hccl_api_t api;
} hccl;

static void *hccl_sym(const char *name) {
  void *f = dlsym(hccl.lib, name);
  if (f == NULL && hccl.lib_comm != NULL)
    f = dlsym(hccl.lib_comm, name);
  return f;
}

static int hccl_load(void) {
  const char *path = hc_env_string("HCMPI_HCCL_LIB", "libhccl.so");
  hccl.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (hccl.lib == NULL) {
    hc_log(HC_LOG_INFO, "device", "hccl path off: %s", dlerror());
    return 0;
  }
  if (dlsym(hccl.lib, "HcclCommInitRootInfo") == NULL)
    hccl.lib_comm = dlopen(hc_env_string("HCMPI_HCOMM_LIB", "libhcomm.so"),
                           RTLD_NOW | RTLD_LOCAL);
  *(void **)&hccl.api.get_root_info = hccl_sym("HcclGetRootInfo");
  *(void **)&hccl.api.comm_init = hccl_sym("HcclCommInitRootInfo");
  *(void **)&hccl.api.comm_destroy = hccl_sym("HcclCommDestroy");
  *(void **)&hccl.api.send = hccl_sym("HcclSend");
  *(void **)&hccl.api.recv = hccl_sym("HcclRecv");
  *(void **)&hccl.api.error_string = hccl_sym("HcclGetErrorString");
  *(void **)&hccl.api.allreduce = hccl_sym("HcclAllReduce");
  *(void **)&hccl.api.bcast = hccl_sym("HcclBroadcast");
  *(void **)&hccl.api.allgather = hccl_sym("HcclAllGather");
  *(void **)&hccl.api.reduce_scatter = hccl_sym("HcclReduceScatter");
  *(void **)&hccl.api.reduce = hccl_sym("HcclReduce");
  *(void **)&hccl.api.alltoallv = hccl_sym("HcclAlltoAllV");
  if (hccl.api.get_root_info == NULL || hccl.api.comm_init == NULL ||
      hccl.api.comm_destroy == NULL || hccl.api.send == NULL ||
      hccl.api.recv == NULL) {
    hc_log(HC_LOG_INFO, "device", "hccl path off: %s lacks a call we need",
           path);
    return 0;
  }
  return 1;
}

int hc_device_hccl_loaded(void) {
  if (!hccl.tried) {
    hccl.tried = 1;
    hccl.ok = hc_device_backend(HC_MEM_ACL) != NULL && hccl_load();
  }
  return hccl.ok;
}

/* An HCCL result as a status, logged with HCCL's own text. */
static hc_status_t hccl_status(const char *call, int code) {
  if (code == HCCL_OK)
    return HC_OK;
  hc_log(HC_LOG_ERROR, "device", "%s: %s", call,
         hccl.api.error_string != NULL ? hccl.api.error_string(code)
                                       : "error");
  return HC_ERR_TRANSPORT;
}

hc_status_t hc_device_hccl_root_info(int device, void *root) {
  hc_status_t rc = hc_acl_bind_device(device);
  if (rc != HC_OK)
    return rc;
  return hccl_status("HcclGetRootInfo", hccl.api.get_root_info(root));
}

hc_status_t hc_device_hccl_comm_init(int device, uint32_t nranks,
                                     const void *root, uint32_t rank,
                                     void **comm) {
  hc_status_t rc = hc_acl_bind_device(device);
  if (rc != HC_OK)
    return rc;
  return hccl_status("HcclCommInitRootInfo",
                     hccl.api.comm_init(nranks, root, rank, comm));
}

void hc_device_hccl_comm_destroy(int device, void *comm) {
  if (comm != NULL && hc_acl_bind_device(device) == HC_OK)
    (void)hccl_status("HcclCommDestroy", hccl.api.comm_destroy(comm));
}

/* HcclSend or HcclRecv: one signature, one direction each. */
static hc_status_t hccl_transfer(int send, void *buf, size_t bytes,
                                 uint32_t peer, void *comm, void *stream) {
  hc_status_t rc = hc_acl_bind_device(hc_acl_stream_device(stream));
  if (rc != HC_OK)
    return rc;
  int (*call)(void *, uint64_t, int, uint32_t, void *, void *) =
      send ? hccl.api.send : hccl.api.recv;
  return hccl_status(send ? "HcclSend" : "HcclRecv",
                     call(buf, bytes, HCCL_TYPE_UINT8, peer, comm,
                          hc_acl_stream_handle(stream)));
}

hc_status_t hc_device_hccl_send(void *buf, size_t bytes, uint32_t peer,
                                void *comm, void *stream) {
  return hccl_transfer(1, buf, bytes, peer, comm, stream);
}

hc_status_t hc_device_hccl_recv(void *buf, size_t bytes, uint32_t peer,
                                void *comm, void *stream) {
  return hccl_transfer(0, buf, bytes, peer, comm, stream);
}

int hc_device_hccl_has_collectives(void) {
  return hc_device_hccl_loaded() && hccl.api.allreduce != NULL &&
         hccl.api.bcast != NULL && hccl.api.allgather != NULL &&
         hccl.api.reduce_scatter != NULL && hccl.api.reduce != NULL &&
         hccl.api.alltoallv != NULL;
}

hc_status_t hc_device_hccl_collective(const hcomm_hccl_coll_t *a, void *comm,
                                      void *stream) {
  hc_status_t rc = hc_acl_bind_device(hc_acl_stream_device(stream));
  if (rc != HC_OK)
    return rc;
  void *s = hc_acl_stream_handle(stream);
  void *send = (void *)(uintptr_t)a->send;
  switch (a->kind) {
  case HCOMM_HCCL_ALLREDUCE:
    return hccl_status(
        "HcclAllReduce",
        hccl.api.allreduce(send, a->recv, a->count, a->dtype, a->op, comm, s));
  case HCOMM_HCCL_BCAST:
    return hccl_status(
        "HcclBroadcast",
        hccl.api.bcast(a->recv, a->count, a->dtype, a->root, comm, s));
  case HCOMM_HCCL_ALLGATHER:
    return hccl_status(
        "HcclAllGather",
        hccl.api.allgather(send, a->recv, a->count, a->dtype, comm, s));
  case HCOMM_HCCL_REDUCE_SCATTER:
    return hccl_status("HcclReduceScatter",
                       hccl.api.reduce_scatter(send, a->recv, a->count,
                                               a->dtype, a->op, comm, s));
  case HCOMM_HCCL_REDUCE:
    return hccl_status("HcclReduce",
                       hccl.api.reduce(send, a->recv, a->count, a->dtype, a->op,
                                       a->root, comm, s));
  case HCOMM_HCCL_ALLTOALLV:
    return hccl_status("HcclAlltoAllV",
                       hccl.api.alltoallv(send, a->scounts, a->sdispls,
                                          a->dtype, a->recv, a->rcounts,
                                          a->rdispls, a->dtype, comm, s));
  }
  return HC_ERR_ARG;
}

void hc_device_hccl_unload(void) {
  if (hccl.lib_comm != NULL)
    dlclose(hccl.lib_comm);
  if (hccl.lib != NULL)
    dlclose(hccl.lib);
  memset(&hccl, 0, sizeof hccl);
}
