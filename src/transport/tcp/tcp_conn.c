/*
 * The tcp transport's bookkeeping: the byte FIFOs of the send and receive
 * queues, the connection records (in the epoll set and the context's
 * list, closed at once and freed after the round's events) and the final
 * failure of a peer.  Separate from tcp.c so that sending, receiving and
 * set-up all share one owner of these records.
 */
#include "config.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport/tcp/tcp_impl.h"
#include "util/log.h"

void hc_tcp_tune_socket(const tcp_ctx_t *t, int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (t->sockbuf > 0) {
    /* The kernel caps these at its rmem/wmem maxima; best effort. */
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &t->sockbuf, sizeof t->sockbuf);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &t->sockbuf, sizeof t->sockbuf);
  }
}

hc_status_t hc_tcp_fifo_reserve(tcp_fifo_t *q, size_t more) {
  if (q->head + q->len + more <= q->cap)
    return HC_OK;
  if (q->head > 0) {
    memmove(q->buf, q->buf + q->head, q->len);
    q->head = 0;
  }
  if (q->len + more <= q->cap)
    return HC_OK;
  size_t cap = q->cap ? q->cap : 64 << 10;
  while (cap < q->len + more)
    cap *= 2;
  unsigned char *buf = realloc(q->buf, cap);
  if (buf == NULL)
    return HC_ERR_NOMEM;
  q->buf = buf;
  q->cap = cap;
  return HC_OK;
}

tcp_conn_t *hc_tcp_conn_new(tcp_ctx_t *t, int fd, int kind, int state, int peer,
                            uint32_t events) {
  tcp_conn_t *c = calloc(1, sizeof *c);
  if (c == NULL)
    return NULL;
  c->fd = fd;
  c->kind = kind;
  c->state = state;
  c->peer = peer;
  c->events = events;
  struct epoll_event ev = {.events = events, .data.ptr = c};
  if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
    free(c);
    return NULL;
  }
  c->next = t->conns;
  t->conns = c;
  return c;
}

/* Closes now, frees later: the conn may still sit in this round's events. */
void hc_tcp_conn_close(tcp_ctx_t *t, tcp_conn_t *c) {
  if (c == NULL || c->state == TCP_CONN_DEAD)
    return;
  if (tcp_conn_in_handshake(c))
    t->handshakes--;
  close(c->fd);
  c->fd = -1;
  c->state = TCP_CONN_DEAD;
  t->closed_some = 1;
}

void hc_tcp_conns_sweep(tcp_ctx_t *t) {
  t->closed_some = 0;
  tcp_conn_t **link = &t->conns;
  while (*link != NULL) {
    tcp_conn_t *c = *link;
    if (c->state == TCP_CONN_DEAD) {
      *link = c->next;
      free(c);
    } else {
      link = &c->next;
    }
  }
}

/* The peer is lost for good, for cause (HC_ERR_PEER_*). */
void hc_tcp_peer_fail(tcp_ctx_t *t, int p, hc_status_t cause, const char *why,
                      int err) {
  tcp_peer_t *peer = &t->peers[p];
  if (peer->state == TCP_PEER_FAILED)
    return;
  hc_log(err == 0 ? HC_LOG_INFO : HC_LOG_WARN, "tcp", "rank %d: %s%s%s", p, why,
         err ? ": " : "", err ? strerror(err) : "");
  hc_tcp_conn_close(t, peer->out);
  hc_tcp_conn_close(t, peer->up);
  peer->out = NULL;
  peer->up = NULL;
  peer->cause = cause;
  tcp_peer_set(t, peer, TCP_PEER_FAILED);
  /* Buffers stay allocated (progress may be parsing recvq) until fini. */
  peer->sendq.len = 0;
  peer->sendq.head = 0;
  if (t->peer_failed_cb != NULL)
    t->peer_failed_cb(t->engine, p, cause);
}
