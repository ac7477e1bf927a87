/*
 * The self transport: packets a rank sends to itself.  send copies the
 * packet into a FIFO; progress delivers what was queued when it started, so
 * a packet sent from inside recv_cb waits for the next progress call instead
 * of recursing.
 */
#include <stdlib.h>
#include <string.h>

#include "transport/transport.h"

/* Large enough that the engine's eager path covers most self-sends; the
 * queue is heap memory, so the bound only keeps single allocations sane. */
#define SELF_MAX_PACKET ((size_t)1 << 20)

struct self_packet {
  struct self_packet *next;
  size_t len;
  unsigned char bytes[];
};

typedef struct self_ctx {
  int world_rank;
  hc_transport_recv_cb recv_cb;
  void *engine;
  struct self_packet *head;
  struct self_packet **tail_next;
} self_ctx_t;

static hc_status_t self_init(const hc_transport_init_args_t *args, void **ctx) {
  self_ctx_t *self = calloc(1, sizeof *self);
  *ctx = self;
  if (self == NULL)
    return HC_ERR_NOMEM;
  self->world_rank = args->world_rank;
  self->recv_cb = args->recv_cb;
  self->engine = args->engine;
  self->tail_next = &self->head;
  return HC_OK;
}

static hc_status_t self_address(void *ctx, char *buf, size_t len) {
  (void)ctx;
  static const char text[] = "self";
  if (len < sizeof text)
    return HC_ERR_ARG;
  memcpy(buf, text, sizeof text);
  return HC_OK;
}

static hc_status_t self_connect(void *ctx, int peer_world_rank,
                                const char *peer_address) {
  self_ctx_t *self = ctx;
  (void)peer_address;
  return peer_world_rank == self->world_rank ? HC_OK : HC_ERR_RANK;
}

static hc_status_t self_connected(void *ctx) {
  (void)ctx;
  return HC_OK;
}

static size_t self_max_packet(void *ctx) {
  (void)ctx;
  return SELF_MAX_PACKET;
}

static hc_status_t self_send(void *ctx, int peer_world_rank,
                             const struct iovec *iov, int iovcnt) {
  self_ctx_t *self = ctx;
  if (peer_world_rank != self->world_rank)
    return HC_ERR_RANK;
  size_t total = 0;
  for (int i = 0; i < iovcnt; i++)
    total += iov[i].iov_len;
  if (total > SELF_MAX_PACKET)
    return HC_ERR_ARG;
  struct self_packet *pkt = malloc(sizeof *pkt + total);
  if (pkt == NULL)
    return HC_ERR_NOMEM;
  pkt->next = NULL;
  pkt->len = total;
  size_t off = 0;
  for (int i = 0; i < iovcnt; i++) {
    if (iov[i].iov_len == 0)
      continue;
    memcpy(pkt->bytes + off, iov[i].iov_base, iov[i].iov_len);
    off += iov[i].iov_len;
  }
  *self->tail_next = pkt;
  self->tail_next = &pkt->next;
  return HC_OK;
}

static int self_progress(void *ctx) {
  self_ctx_t *self = ctx;
  if (self->head == NULL)
    return 0;
  /* Detach the queue first: whatever recv_cb sends lands on a fresh list
   * that the next progress call delivers, behind everything taken here. */
  struct self_packet *pkt = self->head;
  self->head = NULL;
  self->tail_next = &self->head;
  int delivered = 0;
  while (pkt != NULL) {
    struct self_packet *next = pkt->next;
    self->recv_cb(self->engine, self->world_rank, pkt->bytes, pkt->len);
    free(pkt);
    pkt = next;
    delivered++;
  }
  return delivered;
}

static hc_status_t self_get(void *ctx, int peer_world_rank, void *local,
                            uint64_t remote_addr, size_t len) {
  self_ctx_t *self = ctx;
  if (peer_world_rank != self->world_rank)
    return HC_ERR_RANK;
  if (len > 0)
    memcpy(local, (const void *)(uintptr_t)remote_addr, len);
  return HC_OK;
}

static void self_wait(void *ctx, int timeout_ms) {
  /* Nothing can arrive from another process, so sleeping would only delay
   * a caller that has its own packets queued or nothing to wait for. */
  (void)ctx;
  (void)timeout_ms;
}

/* Only this rank's own sends arrive, and those need no sleep. */
static int self_wait_fd(void *ctx, int *timeout_ms) {
  (void)ctx;
  (void)timeout_ms;
  return HC_TRANSPORT_WAIT_NONE;
}

static void self_fini(void *ctx) {
  self_ctx_t *self = ctx;
  if (self == NULL)
    return;
  struct self_packet *pkt = self->head;
  while (pkt != NULL) {
    struct self_packet *next = pkt->next;
    free(pkt);
    pkt = next;
  }
  free(self);
}

const hc_transport_ops_t hc_transport_self_ops = {
    .name = "self",
    .reach = HC_TRANSPORT_REACH_SELF,
    .flags = HC_TRANSPORT_POLL_AFTER_SEND,
    .trace_path = HC_TRACE_PATH_SELF,
    .trace_get_path = HC_TRACE_PATH_SELF,
    .init = self_init,
    .address = self_address,
    .connect = self_connect,
    .connected = self_connected,
    .max_packet = self_max_packet,
    .send = self_send,
    .progress = self_progress,
    .get = self_get,
    .wait = self_wait,
    .wait_fd = self_wait_fd,
    .wait_pollfd = hc_transport_wait_fd_not_supported,
    .wait_done = hc_transport_wait_done_nothing,
    .set_secret = hc_transport_set_secret_not_supported,
    .watch = hc_transport_watch_nothing,
    .fini = self_fini,
};
