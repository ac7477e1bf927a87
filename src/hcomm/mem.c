/*
 * The engine's public view of memory kinds (include/hcomm.h): a thin
 * translation to the device layer, so the MPI face reaches device memory
 * only through the engine, one layer at a time.
 */
#include "device/device.h"
#include "hcomm.h"

static void mem_to_public(const hc_mem_info_t *in, hcomm_mem_info_t *out) {
  out->kind = (int)in->kind;
  out->device = in->device;
  out->base = in->base;
  out->size = in->size;
}

static void mem_from_public(const hcomm_mem_info_t *in, hc_mem_info_t *out) {
  out->kind = (hc_mem_kind_t)in->kind;
  out->device = in->device;
  out->base = in->base;
  out->size = in->size;
}

int hcomm_mem_classify(const void *ptr, hcomm_mem_info_t *info) {
  hc_mem_info_t found = {HC_MEM_HOST, -1, 0, 0, 0};
  int device = hc_device_classify(ptr, &found) != HC_MEM_HOST;
  if (info != NULL)
    mem_to_public(&found, info);
  return device;
}

int hcomm_mem_any_device(void) { return hc_device_any(); }

hc_status_t hcomm_mem_copy(void *dst, const hcomm_mem_info_t *dinfo,
                           const void *src, const hcomm_mem_info_t *sinfo,
                           size_t len) {
  hc_mem_info_t d, s;
  mem_from_public(dinfo, &d);
  mem_from_public(sinfo, &s);
  return hc_device_copy(dst, &d, src, &s, len);
}

int hcomm_mem_kind_available(int kind) {
  if (kind == HCOMM_MEM_HOST)
    return 1;
  return hc_device_backend((hc_mem_kind_t)kind) != NULL;
}

hc_status_t hcomm_mem_alloc(int kind, size_t len, void **ptr) {
  if (kind == HCOMM_MEM_HOST || ptr == NULL)
    return HC_ERR_ARG;
  const hc_device_ops_t *ops = hc_device_backend((hc_mem_kind_t)kind);
  if (ops == NULL)
    return HC_ERR_NOT_SUPPORTED;
  return ops->dev_alloc(len, -1, ptr);
}

void hcomm_mem_free(int kind, void *ptr) {
  const hc_device_ops_t *ops = hc_device_backend((hc_mem_kind_t)kind);
  if (ptr == NULL || ops == NULL)
    return;
  /* Its classification and any export of it go first: a later
   * allocation at the same address is another buffer. */
  hc_device_forget(ptr);
  ops->dev_free(ptr);
}
