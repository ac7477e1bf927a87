/*
 * What a device runtime reports about itself, for hcmpi_info: which
 * library was loaded (its resolved path), its version and how many devices
 * it sees.  Independent of the device layer's state: it dlopens the same
 * library the backend would (HCMPI_ACL_LIB / HCMPI_CUDA_LIB) and closes it
 * again, so it is for tools, not for the data path.
 */
#ifndef HC_DEVICE_QUERY_H
#define HC_DEVICE_QUERY_H

#include "device/device.h"

typedef struct hc_device_query {
  int loaded;       /* 1 when the library could be dlopened */
  int usable;       /* 1 when the runtime initialised */
  int count;        /* devices seen; -1 when unknown */
  char path[512];   /* resolved library path, or the name asked for */
  char version[64]; /* "12.4", "1.0.0"; "unknown" when not reported */
  char error[160];  /* why not loaded / not usable; empty otherwise */
} hc_device_query_t;

/* Fills *out for kind (HC_MEM_ACL or HC_MEM_CUDA); HC_MEM_HOST reports a
 * usable runtime with one "device".  Never fails: *out says what was seen. */
void hc_device_query(hc_mem_kind_t kind, hc_device_query_t *out);

#endif /* HC_DEVICE_QUERY_H */
