/*
 * The tcp transport: ranks on different nodes (or any ranks, with
 * HCMPI_TRANSPORTS=tcp) exchange packets over one TCP connection per pair,
 * opened on the first send to that peer.  Sockets are non-blocking and
 * driven by one epoll set inside progress; wait is epoll_wait.
 *
 * Set-up, authentication and accept are tcp_handshake.c's; when an
 * attempt is tried again, and the limits on strangers and descriptors,
 * tcp_connect.c's; the records of connections and peers tcp_conn.c's;
 * the address to listen on tcp_ip.c's.  This file holds the ops, the
 * framing of packets on a connection that is up, and progress and fini.
 *
 * Framing: [u32 length, network order][packet].  send writes header and
 * packet with one sendmsg; what the socket does not take is copied into
 * the peer's send queue (a byte FIFO flushed on EPOLLOUT).  send returns
 * HC_ERR_AGAIN once that queue holds HCMPI_TCP_SENDQ bytes.  Received
 * bytes collect in a per-peer buffer; whole packets go to recv_cb.
 * Placement: when the engine gives place_cb, a packet with a payload of
 * at least TCP_PLACE_MIN bytes is offered to it once its head is in the
 * buffer; if the engine names a destination (a rendezvous DATA payload's
 * place in the user's buffer), the bytes already read are copied there
 * and the rest is read straight into it, then placed_cb runs.  While a
 * peer streams such packets, reads between them stop at TCP_PLACE_PEEK
 * bytes, so the next packet's payload is not swallowed into the buffer
 * before its head has been seen: only the first packet of a stream goes
 * through the buffer whole.
 *
 * A connection closed or broken after set-up or a refused connect marks
 * the peer failed (HC_ERR_PEER_DEAD), a malformed stream too
 * (HC_ERR_PEER_CORRUPT); final, no reconnect; the engine learns it through
 * peer_failed_cb.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "transport/tcp/tcp_auth.h"
#include "transport/tcp/tcp_impl.h"
#include "transport/tcp/tcp_ip.h"
#include "transport/transport.h"
#include "util/env.h"
#include "util/log.h"

#define TCP_DEFAULT_MAX_PACKET ((size_t)256 << 10)
#define TCP_MIN_MAX_PACKET ((size_t)4 << 10)
#define TCP_MAX_MAX_PACKET ((size_t)64 << 20)
#define TCP_DEFAULT_SENDQ ((size_t)8 << 20)
#define TCP_DEFAULT_SOCKBUF ((size_t)4 << 20)
/* The least socket buffer set: four segments of loopback's 64 KiB MSS.
 * Below a few segments the receiving kernel drops whole segments it has
 * no room for, the sender backs off (RTO doubling) and a busy pair stalls
 * for seconds to minutes (seen: 64 KiB buffers, both sides' data unsent
 * with the window open, nothing received for 15 s). */
#define TCP_MIN_SOCKBUF ((size_t)256 << 10)
#define TCP_FRAME_HDR 4
#define TCP_EVENTS 64
/* Placement (see above): the least still-unread payload worth reading in
 * place, and the read size between placed packets of a stream. */
#define TCP_PLACE_MIN ((size_t)8 << 10)
#define TCP_PLACE_PEEK ((size_t)4 << 10)
/* Bytes one progress call reads from one peer before serving others. */
#define TCP_READ_BUDGET ((size_t)4 << 20)
/* Finalize flushes queued bytes for at most this long. */
#define TCP_FINI_FLUSH_MS 2000
/* Set-up limits (tcp_connect.c): defaults of HCMPI_TCP_HANDSHAKE_MS and
 * HCMPI_TCP_HANDSHAKES, and the least deadline taken. */
#define TCP_DEFAULT_HANDSHAKE_MS 5000
#define TCP_MIN_HANDSHAKE_MS 50
#define TCP_DEFAULT_HANDSHAKES 128

/* ---- init / address / connect ----------------------------------------- */

static hc_status_t tcp_listen(tcp_ctx_t *t) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return HC_ERR_SYSTEM;
  /* Accepted sockets inherit the buffer sizes, which must precede listen
   * for the window scale to follow them. */
  hc_tcp_tune_socket(t, fd);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr = t->ip};
  socklen_t len = sizeof sa;
  if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
      listen(fd, SOMAXCONN) != 0 ||
      getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
    hc_log(HC_LOG_ERROR, "tcp", "listen on %s: %s", inet_ntoa(t->ip),
           strerror(errno));
    close(fd);
    return HC_ERR_SYSTEM;
  }
  t->port = ntohs(sa.sin_port);
  t->listener =
      hc_tcp_conn_new(t, fd, TCP_KIND_LISTEN, TCP_CONN_UP, -1, EPOLLIN);
  if (t->listener == NULL) {
    close(fd);
    return HC_ERR_SYSTEM;
  }
  return HC_OK;
}

static void tcp_read_tunables(tcp_ctx_t *t) {
  size_t mp = hc_env_size("HCMPI_TCP_MAX_PACKET", TCP_DEFAULT_MAX_PACKET);
  if (mp < TCP_MIN_MAX_PACKET)
    mp = TCP_MIN_MAX_PACKET;
  if (mp > TCP_MAX_MAX_PACKET)
    mp = TCP_MAX_MAX_PACKET;
  t->max_packet = mp;
  t->sendq_max = hc_env_size("HCMPI_TCP_SENDQ", TCP_DEFAULT_SENDQ);
  size_t sb = hc_env_size("HCMPI_TCP_SOCKBUF", TCP_DEFAULT_SOCKBUF);
  if (sb > 0 && sb < TCP_MIN_SOCKBUF)
    sb = TCP_MIN_SOCKBUF;
  t->sockbuf = sb > (size_t)1 << 30 ? 1 << 30 : (int)sb;
  long ms = hc_env_long("HCMPI_TCP_HANDSHAKE_MS", TCP_DEFAULT_HANDSHAKE_MS);
  t->handshake_ms = ms < TCP_MIN_HANDSHAKE_MS ? TCP_MIN_HANDSHAKE_MS : ms;
  long hs = hc_env_long("HCMPI_TCP_HANDSHAKES", TCP_DEFAULT_HANDSHAKES);
  t->handshakes_max = hs < 1 ? 1 : hs > (1L << 20) ? 1 << 20 : (int)hs;
}

static hc_status_t tcp_init(const hc_transport_init_args_t *args, void **ctx) {
  tcp_ctx_t *t = calloc(1, sizeof *t);
  *ctx = t;
  if (t == NULL)
    return HC_ERR_NOMEM;
  t->epfd = -1;
  if (args->world_size < 1 || args->world_rank < 0 ||
      args->world_rank >= args->world_size)
    return HC_ERR_ARG;
  t->world_rank = args->world_rank;
  t->world_size = args->world_size;
  t->recv_cb = args->recv_cb;
  t->peer_failed_cb = args->peer_failed_cb;
  t->engine = args->engine;
  if (args->place_cb != NULL && args->placed_cb != NULL &&
      args->place_head > 0 && args->place_head <= TCP_PLACE_HEAD_MAX &&
      hc_env_bool("HCMPI_TCP_PLACE", 1)) {
    t->place_cb = args->place_cb;
    t->placed_cb = args->placed_cb;
    t->place_head = args->place_head;
  }
  tcp_read_tunables(t);
  const char *secret = getenv("HCMPI_JOB_SECRET");
  if (secret != NULL && secret[0] != '\0' &&
      hc_tcp_set_secret(t, secret) != 0) {
    hc_log(HC_LOG_ERROR, "tcp", "HCMPI_JOB_SECRET is not %d hex digits",
           2 * HC_TCP_SECRET_BYTES);
    return HC_ERR_ARG;
  }
  t->peers = calloc((size_t)t->world_size, sizeof *t->peers);
  if (t->peers == NULL)
    return HC_ERR_NOMEM;
  t->epfd = epoll_create1(EPOLL_CLOEXEC);
  if (t->epfd < 0)
    return HC_ERR_SYSTEM;
  hc_status_t rc = hc_tcp_choose_own_ip(args->reached_ip, &t->ip);
  if (rc == HC_OK)
    rc = tcp_listen(t);
  if (rc == HC_OK)
    hc_log(HC_LOG_DEBUG, "tcp", "listening on %s:%u", inet_ntoa(t->ip),
           (unsigned)t->port);
  return rc;
}

static hc_status_t tcp_address(void *ctx, char *buf, size_t len) {
  tcp_ctx_t *t = ctx;
  char ip[INET_ADDRSTRLEN];
  if (t->listener == NULL || inet_ntop(AF_INET, &t->ip, ip, sizeof ip) == NULL)
    return HC_ERR_STATE;
  int w = snprintf(buf, len, "%s:%u", ip, (unsigned)t->port);
  return (w < 0 || (size_t)w >= len) ? HC_ERR_ARG : HC_OK;
}

/* Only records the address: the connection opens on the first send. */
static hc_status_t tcp_connect(void *ctx, int peer_world_rank,
                               const char *peer_address) {
  tcp_ctx_t *t = ctx;
  if (peer_world_rank < 0 || peer_world_rank >= t->world_size ||
      peer_world_rank == t->world_rank)
    return HC_ERR_RANK;
  char ip[INET_ADDRSTRLEN];
  const char *colon = strrchr(peer_address, ':');
  char *end;
  unsigned long port = colon ? strtoul(colon + 1, &end, 10) : 0;
  if (colon == NULL || (size_t)(colon - peer_address) >= sizeof ip ||
      *end != '\0' || port == 0 || port > 65535) {
    hc_log(HC_LOG_ERROR, "tcp", "bad address of rank %d: %s", peer_world_rank,
           peer_address);
    return HC_ERR_ARG;
  }
  memcpy(ip, peer_address, (size_t)(colon - peer_address));
  ip[colon - peer_address] = '\0';
  tcp_peer_t *peer = &t->peers[peer_world_rank];
  peer->addr.sin_family = AF_INET;
  peer->addr.sin_port = htons((uint16_t)port);
  if (inet_pton(AF_INET, ip, &peer->addr.sin_addr) != 1)
    return HC_ERR_ARG;
  peer->has_addr = 1;
  return HC_OK;
}

static hc_status_t tcp_connected(void *ctx) {
  (void)ctx;
  return HC_OK;
}

static size_t tcp_max_packet(void *ctx) {
  tcp_ctx_t *t = ctx;
  return t->max_packet;
}

/* ---- sending ---------------------------------------------------------- */

/* Writes the queue out as far as the socket takes it. */
int hc_tcp_flush(tcp_ctx_t *t, int p) {
  tcp_peer_t *peer = &t->peers[p];
  tcp_fifo_t *q = &peer->sendq;
  int moved = 0;
  while (q->len > 0 && peer->state == TCP_PEER_UP) {
    ssize_t n = send(peer->up->fd, q->buf + q->head, q->len,
                     MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      break;
    if (n <= 0) {
      hc_tcp_peer_fail(t, p, HC_ERR_PEER_DEAD, "send", n < 0 ? errno : EPIPE);
      return moved;
    }
    tcp_fifo_consume(q, (size_t)n);
    moved = 1;
  }
  if (peer->state == TCP_PEER_UP)
    tcp_conn_watch(t, peer->up, EPOLLIN | (q->len > 0 ? EPOLLOUT : 0));
  return moved;
}

/* Copies the frame (or its unsent tail, from byte skip on) into the queue. */
static hc_status_t tcp_enqueue(tcp_fifo_t *q, const uint32_t *hdr,
                               const struct iovec *iov, int iovcnt,
                               size_t skip) {
  size_t total = TCP_FRAME_HDR;
  for (int i = 0; i < iovcnt; i++)
    total += iov[i].iov_len;
  if (hc_tcp_fifo_reserve(q, total - skip) != HC_OK)
    return HC_ERR_NOMEM;
  unsigned char *dst = q->buf + q->head + q->len;
  const unsigned char *src = (const unsigned char *)hdr;
  size_t at = 0;
  for (int i = -1; i < iovcnt; i++) {
    size_t n = i < 0 ? TCP_FRAME_HDR : iov[i].iov_len;
    if (i >= 0)
      src = iov[i].iov_base;
    size_t from = skip > at ? skip - at : 0;
    if (from < n) {
      memcpy(dst, src + from, n - from);
      dst += n - from;
    }
    at += n;
  }
  q->len += total - skip;
  return HC_OK;
}

/* Writes header and pieces at once; returns bytes written (0 when the
 * socket is full) or -1 after failing the peer. */
static ssize_t tcp_write_now(tcp_ctx_t *t, int p, const uint32_t *hdr,
                             const struct iovec *iov, int iovcnt) {
  struct iovec v[64];
  if (iovcnt + 1 > (int)(sizeof v / sizeof v[0]))
    return 0; /* unusual: let the queue take it */
  v[0].iov_base = (void *)hdr;
  v[0].iov_len = TCP_FRAME_HDR;
  memcpy(&v[1], iov, (size_t)iovcnt * sizeof *iov);
  struct msghdr msg = {.msg_iov = v, .msg_iovlen = (size_t)iovcnt + 1};
  for (;;) {
    ssize_t n = sendmsg(t->peers[p].up->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0)
      return n;
    if (errno == EINTR)
      continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK)
      return 0;
    hc_tcp_peer_fail(t, p, HC_ERR_PEER_DEAD, "send", errno);
    return -1;
  }
}

static hc_status_t tcp_send(void *ctx, int peer_world_rank,
                            const struct iovec *iov, int iovcnt) {
  tcp_ctx_t *t = ctx;
  int p = peer_world_rank;
  if (p < 0 || p >= t->world_size || p == t->world_rank)
    return HC_ERR_RANK;
  tcp_peer_t *peer = &t->peers[p];
  size_t total = 0;
  for (int i = 0; i < iovcnt; i++)
    total += iov[i].iov_len;
  if (total > t->max_packet)
    return HC_ERR_ARG;
  if (peer->state == TCP_PEER_FAILED)
    return peer->cause;
  if (!peer->has_addr)
    return HC_ERR_STATE;
  if (peer->sendq.len >= t->sendq_max)
    return HC_ERR_AGAIN;
  if (peer->state == TCP_PEER_IDLE) {
    hc_tcp_start_connect(t, p);
    if (peer->state == TCP_PEER_FAILED)
      return peer->cause;
  }
  uint32_t hdr = htonl((uint32_t)total);
  ssize_t done = 0;
  if (peer->state == TCP_PEER_UP && peer->sendq.len == 0) {
    done = tcp_write_now(t, p, &hdr, iov, iovcnt);
    if (done < 0)
      return peer->cause;
    if ((size_t)done == total + TCP_FRAME_HDR)
      return HC_OK;
  }
  hc_status_t rc = tcp_enqueue(&peer->sendq, &hdr, iov, iovcnt, (size_t)done);
  if (rc == HC_OK && peer->state == TCP_PEER_UP)
    tcp_conn_watch(t, peer->up, EPOLLIN | EPOLLOUT);
  return rc;
}

/* ---- receiving -------------------------------------------------------- */

/* Offers the frame of flen bytes at the buffer head to place_cb (once,
 * when its head is in and its payload is large); 1 when it was taken: the
 * bytes already read are in place and consumed. */
static int tcp_place_try(tcp_ctx_t *t, int p, size_t flen) {
  tcp_peer_t *peer = &t->peers[p];
  tcp_fifo_t *q = &peer->recvq;
  size_t have = q->len - TCP_FRAME_HDR;
  void *dst = NULL;
  if (have > flen)
    have = flen;
  if (t->place_cb == NULL || peer->place_asked || have < t->place_head ||
      flen - t->place_head < TCP_PLACE_MIN)
    return 0;
  const unsigned char *head = q->buf + q->head + TCP_FRAME_HDR;
  peer->place_asked = 1;
  if (!t->place_cb(t->engine, p, head, flen, &dst) ||
      peer->state != TCP_PEER_UP)
    return 0;
  memcpy(peer->place_head, head, t->place_head);
  size_t early = have - t->place_head;
  memcpy(dst, head + t->place_head, early);
  peer->place_dst = dst;
  peer->place_want = flen - t->place_head;
  peer->place_got = early;
  t->place_copied += early;
  tcp_fifo_consume(q, TCP_FRAME_HDR + have);
  peer->place_asked = 0;
  return 1;
}

/* Bytes read in place; the packet is handed over once all are there. */
static int tcp_place_advance(tcp_ctx_t *t, int p, size_t n) {
  tcp_peer_t *peer = &t->peers[p];
  peer->place_got += n;
  if (peer->place_got < peer->place_want)
    return 0;
  peer->place_dst = NULL;
  peer->placing_stream = 1;
  t->placed_bytes += peer->place_want;
  t->placed_cb(t->engine, p, peer->place_head);
  return 1;
}

/* Hands every whole frame in the buffer to recv_cb. */
static int tcp_deliver(tcp_ctx_t *t, int p) {
  tcp_peer_t *peer = &t->peers[p];
  tcp_fifo_t *q = &peer->recvq;
  int delivered = 0;
  while (q->len >= TCP_FRAME_HDR && peer->state == TCP_PEER_UP) {
    uint32_t be;
    memcpy(&be, q->buf + q->head, sizeof be);
    size_t flen = ntohl(be);
    if (flen > t->max_packet) {
      hc_tcp_peer_fail(t, p, HC_ERR_PEER_CORRUPT,
                       "malformed stream (frame too long)", EPROTO);
      break;
    }
    if (tcp_place_try(t, p, flen)) {
      if (peer->place_got < peer->place_want)
        break; /* the rest is read in place */
      delivered += tcp_place_advance(t, p, 0);
      continue;
    }
    if (q->len < TCP_FRAME_HDR + flen)
      break;
    const unsigned char *packet = q->buf + q->head + TCP_FRAME_HDR;
    /* Consuming moves indices only: the bytes stay put until the next
     * read, and recv_cb never touches this buffer. */
    tcp_fifo_consume(q, TCP_FRAME_HDR + flen);
    peer->placing_stream = 0;
    peer->place_asked = 0;
    t->recv_cb(t->engine, p, packet, flen);
    delivered++;
  }
  return delivered;
}

static int tcp_read_peer(tcp_ctx_t *t, int p) {
  tcp_peer_t *peer = &t->peers[p];
  tcp_fifo_t *q = &peer->recvq;
  size_t budget = TCP_READ_BUDGET;
  int delivered = 0;
  while (budget > 0 && peer->state == TCP_PEER_UP) {
    /* Room for at least one whole frame, so a frame always completes. */
    if (hc_tcp_fifo_reserve(q, t->max_packet + TCP_FRAME_HDR) != HC_OK) {
      hc_tcp_peer_fail(t, p, HC_ERR_PEER_DEAD, "no memory for receive buffer",
                       ENOMEM);
      break;
    }
    unsigned char *to = q->buf + q->head + q->len;
    size_t room = q->cap - q->head - q->len;
    if (peer->place_dst != NULL) {
      to = peer->place_dst + peer->place_got;
      room = peer->place_want - peer->place_got;
    } else if (peer->placing_stream && room > TCP_PLACE_PEEK) {
      room = TCP_PLACE_PEEK;
    }
    ssize_t n = recv(peer->up->fd, to, room, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      break;
    if (n <= 0) {
      hc_tcp_peer_fail(t, p, HC_ERR_PEER_DEAD,
                       n == 0 ? "connection closed" : "recv",
                       n == 0 ? 0 : errno);
      break;
    }
    budget -= (size_t)n < budget ? (size_t)n : budget;
    if (peer->place_dst != NULL) {
      delivered += tcp_place_advance(t, p, (size_t)n);
      continue;
    }
    q->len += (size_t)n;
    delivered += tcp_deliver(t, p);
  }
  return delivered;
}

/* The engine waits for p: our attempt opens now, so that a peer that died
 * before sending anything is told by its refused connect. */
static void tcp_watch(void *ctx, int p) {
  tcp_ctx_t *t = ctx;
  if (t == NULL || t->peers == NULL || p < 0 || p >= t->world_size ||
      p == t->world_rank)
    return;
  if (t->peers[p].state == TCP_PEER_IDLE && t->peers[p].has_addr)
    hc_tcp_start_connect(t, p);
}

/* ---- progress / wait -------------------------------------------------- */

static int tcp_timers_pending(const tcp_ctx_t *t) {
  return t->handshakes > 0 || t->retrying > 0 || t->listen_paused;
}

/* Returns what moved for the engine: packets, or a connection that came
 * up (its queue then flows).  Set-up steps alone are no progress, so that
 * a wait stalled in them sleeps, and its watchdog looks.  The switch over
 * set-up states stays here in its old shape: the LTO build inlines all of
 * it into tcp_progress, and a switch moved into tcp_handshake.c laid
 * tcp_progress out anew. */
static int tcp_dispatch(tcp_ctx_t *t, tcp_conn_t *c, uint32_t ev) {
  switch (c->state) {
  case TCP_CONN_DEAD:
    return 0;
  case TCP_CONN_CONNECTING:
    hc_tcp_on_connected(t, c);
    return 0;
  case TCP_CONN_HELLO_SENT:
    hc_tcp_on_challenge(t, c);
    return 0;
  case TCP_CONN_RESP_SENT:
    hc_tcp_on_reply(t, c);
    return c->state == TCP_CONN_UP;
  case TCP_CONN_HELLO_WAIT:
    hc_tcp_on_hello(t, c);
    return 0;
  case TCP_CONN_RESP_WAIT:
    hc_tcp_on_response(t, c);
    return c->state == TCP_CONN_UP;
  default:
    break;
  }
  if (c == t->listener) {
    hc_tcp_on_listen(t);
    return 0;
  }
  int moved = 0;
  if (ev & (EPOLLIN | EPOLLERR | EPOLLHUP))
    moved += tcp_read_peer(t, c->peer);
  if ((ev & EPOLLOUT) && c->state == TCP_CONN_UP)
    moved += hc_tcp_flush(t, c->peer);
  return moved;
}

static int tcp_progress(void *ctx) {
  tcp_ctx_t *t = ctx;
  if (t == NULL || t->epfd < 0)
    return 0;
  struct epoll_event evs[TCP_EVENTS];
  int n = epoll_wait(t->epfd, evs, TCP_EVENTS, 0);
  int moved = 0;
  for (int i = 0; i < n; i++)
    moved += tcp_dispatch(t, evs[i].data.ptr, evs[i].events);
  if (tcp_timers_pending(t))
    hc_tcp_timers(t);
  if (t->closed_some)
    hc_tcp_conns_sweep(t);
  atomic_store_explicit(&t->timers_armed, tcp_timers_pending(t),
                        memory_order_relaxed);
  return moved;
}

static void tcp_wait(void *ctx, int timeout_ms) {
  tcp_ctx_t *t = ctx;
  if (t == NULL || t->epfd < 0 || timeout_ms == 0)
    return;
  /* A deadline or back-off needs a progress call to pass. */
  if (atomic_load_explicit(&t->timers_armed, memory_order_relaxed) &&
      (timeout_ms < 0 || timeout_ms > TCP_TIMER_WAIT_MS))
    timeout_ms = TCP_TIMER_WAIT_MS;
  /* Level-triggered: the event stays for the next progress call. */
  struct epoll_event ev;
  epoll_wait(t->epfd, &ev, 1, timeout_ms);
}

/* The epoll set: readable while any of its sockets has an event, which
 * stays (level-triggered) for the next progress call. */
static int tcp_wait_fd(void *ctx, int *timeout_ms) {
  tcp_ctx_t *t = ctx;
  (void)timeout_ms;
  return t == NULL || t->epfd < 0 ? HC_TRANSPORT_WAIT_NONE : t->epfd;
}

/* ---- fini ------------------------------------------------------------- */

static double tcp_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Bytes still queued (eager packets whose sends completed) get a bounded
 * chance to leave before the sockets close. */
static void tcp_fini_flush(tcp_ctx_t *t) {
  double deadline = tcp_now_ms() + TCP_FINI_FLUSH_MS;
  for (int p = 0; p < t->world_size; p++) {
    tcp_peer_t *peer = &t->peers[p];
    while (peer->sendq.len > 0 && tcp_now_ms() < deadline) {
      if (peer->state != TCP_PEER_UP) {
        tcp_progress(t);
        if (peer->state == TCP_PEER_FAILED)
          break;
        tcp_wait(t, 10);
        continue;
      }
      struct pollfd pfd = {.fd = peer->up->fd, .events = POLLOUT};
      poll(&pfd, 1, 10);
      hc_tcp_flush(t, p);
    }
  }
}

static void tcp_fini(void *ctx) {
  tcp_ctx_t *t = ctx;
  if (t == NULL)
    return;
  if (t->placed_bytes > 0)
    hc_log(HC_LOG_DEBUG, "tcp",
           "%zu payload bytes read in place, %zu of them through the "
           "receive buffer",
           t->placed_bytes, t->place_copied);
  if (t->peers != NULL && t->epfd >= 0) {
    /* Failures seen now are no news to an engine that is going away. */
    t->peer_failed_cb = NULL;
    tcp_fini_flush(t);
  }
  while (t->conns != NULL) {
    tcp_conn_t *c = t->conns;
    t->conns = c->next;
    if (c->state != TCP_CONN_DEAD)
      close(c->fd);
    free(c);
  }
  for (int p = 0; t->peers != NULL && p < t->world_size; p++) {
    free(t->peers[p].sendq.buf);
    free(t->peers[p].recvq.buf);
  }
  free(t->peers);
  if (t->epfd >= 0)
    close(t->epfd);
  memset(t->secret, 0, sizeof t->secret);
  free(t);
}

_Static_assert(HC_TCP_SECRET_HEX == HC_TRANSPORT_SECRET_HEX,
               "the engine hands over secrets of the transports' size");

static hc_status_t tcp_set_secret(void *ctx, const char *hex) {
  return hc_tcp_set_secret(ctx, hex) == 0 ? HC_OK : HC_ERR_ARG;
}

const hc_transport_ops_t hc_transport_tcp_ops = {
    .name = "tcp",
    .reach = HC_TRANSPORT_REACH_ANY,
    .flags = HC_TRANSPORT_LOCAL_DEFAULT | HC_TRANSPORT_WANTS_SECRET,
    .trace_path = HC_TRACE_PATH_TCP,
    .trace_get_path = HC_TRACE_PATH_TCP,
    .init = tcp_init,
    .address = tcp_address,
    .connect = tcp_connect,
    .connected = tcp_connected,
    .max_packet = tcp_max_packet,
    .send = tcp_send,
    .progress = tcp_progress,
    .get = hc_transport_get_not_supported,
    .wait = tcp_wait,
    .wait_fd = tcp_wait_fd,
    .wait_pollfd = hc_transport_wait_fd_not_supported,
    .wait_done = hc_transport_wait_done_nothing,
    .set_secret = tcp_set_secret,
    .fini = tcp_fini,
    .watch = tcp_watch,
};
