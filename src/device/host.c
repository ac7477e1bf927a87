/*
 * The host backend: ordinary memory.  Always present; "async" copies finish
 * before they return, so events are complete as soon as they exist.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/device.h"

static hc_status_t host_init(char *why, size_t len) {
  (void)why, (void)len;
  return HC_OK;
}

static void host_fini(void) {}

static int host_classify(const void *ptr, hc_mem_info_t *info,
                         uint64_t *alloc_id) {
  (void)ptr;
  *alloc_id = 0;
  info->kind = HC_MEM_HOST;
  info->device = -1;
  info->base = 0;
  info->size = 0;
  return 1;
}

/* Host memory is never cached (size 0), so never re-checked. */
static int host_still_valid(const void *ptr, const hc_mem_info_t *info,
                            uint64_t alloc_id) {
  (void)ptr, (void)info, (void)alloc_id;
  return 1;
}

static hc_status_t host_copy(void *dst, const void *src, size_t len,
                             hc_copy_dir_t dir, int device) {
  (void)dir, (void)device;
  memcpy(dst, src, len);
  return HC_OK;
}

/* Streams and events need no state: a non-NULL token stands for them. */
static char host_token;

static hc_status_t host_stream_create(int device, void **stream) {
  (void)device;
  *stream = &host_token;
  return HC_OK;
}

static void host_stream_destroy(void *stream) { (void)stream; }

static hc_status_t host_copy_async(void *dst, const void *src, size_t len,
                                   hc_copy_dir_t dir, void *stream) {
  (void)dir, (void)stream;
  memcpy(dst, src, len);
  return HC_OK;
}

static hc_status_t host_event_create(void **event) {
  *event = &host_token;
  return HC_OK;
}

static hc_status_t host_event_record(void *event, void *stream) {
  (void)event, (void)stream;
  return HC_OK;
}

static hc_status_t host_event_query(void *event) {
  (void)event;
  return HC_OK;
}

static void host_event_destroy(void *event) { (void)event; }

static hc_status_t host_alloc(size_t len, void **ptr) {
  long page = sysconf(_SC_PAGESIZE);
  void *p = NULL;
  if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, len ? len : 1) != 0)
    return HC_ERR_NOMEM;
  *ptr = p;
  return HC_OK;
}

static void host_free(void *ptr) { free(ptr); }

const hc_device_ops_t hc_device_host_ops = {
    .name = "host",
    .kind = HC_MEM_HOST,
    .init = host_init,
    .fini = host_fini,
    .classify = host_classify,
    .still_valid = host_still_valid,
    .copy = host_copy,
    .stream_create = host_stream_create,
    .stream_destroy = host_stream_destroy,
    .copy_async = host_copy_async,
    .event_create = host_event_create,
    .event_record = host_event_record,
    .event_query = host_event_query,
    .event_destroy = host_event_destroy,
    .dev_alloc = hc_device_dev_alloc_not_supported,
    .dev_free = hc_device_dev_free_not_supported,
    .host_alloc = host_alloc,
    .host_free = host_free,
    .ipc_export = hc_device_ipc_export_not_supported,
    .ipc_unexport = hc_device_ipc_unexport_not_supported,
    .ipc_import = hc_device_ipc_import_not_supported,
    .ipc_close = hc_device_ipc_close_not_supported,
    .dmabuf_export = hc_device_dmabuf_export_not_supported,
    .stream_adopt = hc_device_stream_adopt_not_supported,
    .launch_host_fn = hc_device_launch_host_fn_not_supported,
    .flag_create = hc_device_flag_create_not_supported,
    .flag_destroy = hc_device_flag_destroy_not_supported,
    .flag_wait = hc_device_flag_wait_not_supported,
    .flag_set = hc_device_flag_set_not_supported,
};
