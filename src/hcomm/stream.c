/*
 * Application streams as the engine sees them (include/hcomm.h): a device
 * stream the application owns, wrapped by its backend, on which the MPI
 * face queues copies between device memory and pinned host staging, host
 * functions that start (or run) the operations in stream order, and waits
 * on the stream's flag, which the face raises once an operation
 * completed.  A thin layer over the device ops table, so the face reaches
 * runtimes only through the engine.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "hcomm.h"
#include "util/env.h"

struct hcomm_stream {
  const hc_device_ops_t *ops;
  void *dev;  /* the backend's wrapper of the application's stream */
  void *flag; /* the backend's stream flag; NULL: host functions block */
};

/* HCMPI_STREAM_WAIT: flags unless hostfn is asked for. */
static int stream_wants_flag(void) {
  return strcmp(hc_env_string("HCMPI_STREAM_WAIT", "flag"), "hostfn") != 0;
}

hc_status_t hcomm_stream_adopt(int kind, void *app_stream,
                               hcomm_stream_t **out) {
  if (kind == HCOMM_MEM_HOST || app_stream == NULL)
    return HC_ERR_ARG;
  hc_status_t rc = hc_device_init();
  if (rc != HC_OK)
    return rc;
  const hc_device_ops_t *ops = hc_device_backend((hc_mem_kind_t)kind);
  if (ops == NULL)
    return HC_ERR_NOT_SUPPORTED;
  hcomm_stream_t *s = calloc(1, sizeof *s);
  if (s == NULL)
    return HC_ERR_NOMEM;
  s->ops = ops;
  rc = ops->stream_adopt(app_stream, &s->dev);
  if (rc != HC_OK) {
    free(s);
    return rc;
  }
  if (stream_wants_flag() && ops->flag_create(s->dev, &s->flag) != HC_OK)
    s->flag = NULL; /* quietly: the operations block host functions */
  /* Host functions run on the runtime's threads and call the engine. */
  hcomm_threads_enable();
  *out = s;
  return HC_OK;
}

void hcomm_stream_release(hcomm_stream_t *s) {
  if (s == NULL)
    return;
  if (s->flag != NULL)
    s->ops->flag_destroy(s->flag);
  s->ops->stream_destroy(s->dev);
  free(s);
}

int hcomm_stream_has_flag(const hcomm_stream_t *s) { return s->flag != NULL; }

int hcomm_stream_paths_safe(const hcomm_stream_t *s) {
  return !(s->ops->flags & HC_DEVICE_CLOSE_WAITS);
}

hc_status_t hcomm_stream_flag_wait(hcomm_stream_t *s, uint64_t value) {
  if (s->flag == NULL)
    return HC_ERR_NOT_SUPPORTED;
  return s->ops->flag_wait(s->flag, value, s->dev);
}

hc_status_t hcomm_stream_flag_raise(hcomm_stream_t *s, uint64_t value) {
  if (s->flag == NULL)
    return HC_ERR_NOT_SUPPORTED;
  return s->ops->flag_set(s->flag, value);
}

hc_status_t hcomm_stream_launch(hcomm_stream_t *s, void (*fn)(void *arg),
                                void *arg) {
  return s->ops->launch_host_fn(s->dev, fn, arg);
}

hc_status_t hcomm_stream_copy(hcomm_stream_t *s, void *dst, const void *src,
                              size_t len, int to_device) {
  if (len == 0)
    return HC_OK;
  return s->ops->copy_async(dst, src, len,
                            to_device ? HC_COPY_H2D : HC_COPY_D2H, s->dev);
}

hc_status_t hcomm_stream_host_alloc(hcomm_stream_t *s, size_t len, void **ptr) {
  return s->ops->host_alloc(len, ptr);
}

void hcomm_stream_host_free(hcomm_stream_t *s, void *ptr) {
  s->ops->host_free(ptr);
}

hc_status_t hcomm_stream_drain(hcomm_stream_t *s) {
  void *event = NULL;
  hc_status_t rc = s->ops->event_create(&event);
  if (rc != HC_OK)
    return rc;
  rc = s->ops->event_record(event, s->dev);
  /* Polled, not synchronised: the work ahead may be a host function
   * waiting for this very thread's progress on another stream. */
  if (rc == HC_OK)
    while ((rc = s->ops->event_query(event)) == HC_ERR_AGAIN) {
      hcomm_progress();
      sched_yield();
    }
  s->ops->event_destroy(event);
  return rc;
}
