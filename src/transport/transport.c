#include "transport/transport.h"

hc_status_t hc_transport_get_not_supported(void *ctx, int peer_world_rank,
                                           void *local, uint64_t remote_addr,
                                           size_t len) {
  (void)ctx;
  (void)peer_world_rank;
  (void)local;
  (void)remote_addr;
  (void)len;
  return HC_ERR_NOT_SUPPORTED;
}
