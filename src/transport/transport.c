/* The transport registration list and the defaults for optional ops. */
#include "config.h"

#include "transport/transport.h"

#ifdef HC_TRANSPORT_LOOPBACK
/* A test double (tests/unit/transport_loopback.c), in test builds only. */
extern const hc_transport_ops_t hc_transport_loopback_ops;
#endif

/* Order of preference: a peer is reached by the first transport here
 * whose connect to it succeeded, so verbs goes before tcp, its fallback. */
int hc_transport_registered(const hc_transport_ops_t *const **list) {
  static const hc_transport_ops_t *const registered[] = {
      &hc_transport_self_ops,
      &hc_transport_shm_ops,
#ifdef HC_HAVE_VERBS /* configure --with-verbs (default: when the header is there) */
      &hc_transport_verbs_ops,
#endif
      &hc_transport_tcp_ops,
      &hc_transport_link_ops, /* run-time peers only */
#ifdef HC_TRANSPORT_LOOPBACK
      &hc_transport_loopback_ops,
#endif
  };
  *list = registered;
  return (int)(sizeof registered / sizeof registered[0]);
}

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

int hc_transport_wait_fd_not_supported(void *ctx, int *timeout_ms) {
  (void)ctx;
  (void)timeout_ms;
  return HC_TRANSPORT_WAIT_OWN;
}

void hc_transport_wait_done_nothing(void *ctx) { (void)ctx; }

void hc_transport_watch_nothing(void *ctx, int peer_world_rank) {
  (void)ctx;
  (void)peer_world_rank;
}

hc_status_t hc_transport_set_secret_not_supported(void *ctx, const char *hex) {
  (void)ctx;
  (void)hex;
  return HC_ERR_NOT_SUPPORTED;
}
