/*
 * link: TCP connections to processes outside the launcher's world, made
 * at run time (MPI_Comm_accept/connect, MPI_Comm_join, spawned jobs).
 *
 * The launch transports learn every peer's address from the launcher at
 * init; these peers come later, one socket each, set up by the runtime
 * ops below: a listener, a dial that presents a token, an accept that
 * checks it, and adopt, which hands a set-up socket to the data path
 * under the peer index the engine chose.  The token is the port name's
 * random part (or one the two groups' roots swapped over an authenticated
 * link): a process that does not know it cannot join a job.
 *
 * Wire: a handshake of LINK_TOKEN_LEN token characters and a 4-byte
 * value (which member of its group the dialer is), answered by one byte;
 * then packets, each a 4-byte little-endian length and the bytes.
 */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "transport/transport.h"
#include "util/log.h"

#define LINK_TOKEN_LEN 64 /* hex digits of a token */
#define LINK_HELLO_LEN (LINK_TOKEN_LEN + 4)
#define LINK_ACK 'Y'
#define LINK_MAX_PACKET (256u * 1024u)
/* A packet of no bytes (the engine's all have a header) says the sender
 * finalized: its end closes next, and that close is no failure.  MPI
 * lets a finalized process leave before a connected one is done with
 * what no longer involves it (a communicator being built whose links
 * exist, say), so the one left must not see it as dead. */
#define LINK_GOODBYE_LEN 0u
#define LINK_EVENTS 32
#define LINK_BACKLOG 128

/* A byte queue: what the socket did not take yet, or what arrived but
 * does not make a whole packet yet. */
typedef struct link_fifo {
  unsigned char *buf;
  size_t head, len, cap;
} link_fifo_t;

typedef struct link_peer {
  int fd; /* -1: none (never adopted, failed or released) */
  link_fifo_t sendq;
  link_fifo_t recvq;
} link_peer_t;

typedef struct link_ctx {
  int epfd;
  link_peer_t *peers;
  int npeers; /* the engine's peers_max */
  hc_transport_recv_cb recv_cb;
  hc_transport_peer_failed_cb peer_failed_cb;
  void *engine;
  char ip[INET_ADDRSTRLEN]; /* what listeners advertise */
} link_ctx_t;

typedef struct link_listener {
  int fd;
} link_listener_t;

/* ---- blocking socket helpers (set-up only) ---------------------------- */

static long link_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left before deadline (a negative timeout: none), for poll. */
static int link_left(long deadline) {
  if (deadline < 0)
    return -1;
  long left = deadline - link_now_ms();
  return left > 0 ? (int)left : 0;
}

/* Waits for events on fd until deadline; 1 ready, 0 timed out or error. */
static int link_poll(int fd, short events, long deadline) {
  for (;;) {
    struct pollfd p = {.fd = fd, .events = events};
    int n = poll(&p, 1, link_left(deadline));
    if (n < 0 && errno == EINTR)
      continue;
    return n > 0;
  }
}

/* Reads or writes exactly len bytes on a blocking-use socket before the
 * deadline; HC_OK, or HC_ERR_PEER_DEAD when it closed, broke or was too
 * slow. */
static hc_status_t link_io_all(int fd, void *buf, size_t len, int writing,
                               long deadline) {
  unsigned char *p = buf;
  while (len > 0) {
    if (!link_poll(fd, writing ? POLLOUT : POLLIN, deadline))
      return HC_ERR_PEER_DEAD;
    ssize_t n = writing ? send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT)
                        : recv(fd, p, len, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
      continue;
    if (n <= 0)
      return HC_ERR_PEER_DEAD;
    p += n;
    len -= (size_t)n;
  }
  return HC_OK;
}

static int link_tokens_equal(const char *a, const char *b) {
  unsigned char diff = 0;
  for (int i = 0; i < LINK_TOKEN_LEN; i++)
    diff |= (unsigned char)(a[i] ^ b[i]);
  return diff == 0;
}

static void link_tune(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* "ip:port" into addr; 0, or -1 when it is not that. */
static int link_parse_addr(const char *text, struct sockaddr_in *addr) {
  char ip[INET_ADDRSTRLEN];
  const char *colon = strrchr(text, ':');
  char *end;
  if (colon == NULL || (size_t)(colon - text) >= sizeof ip)
    return -1;
  unsigned long port = strtoul(colon + 1, &end, 10);
  if (*end != '\0' || port == 0 || port > 65535)
    return -1;
  memcpy(ip, text, (size_t)(colon - text));
  ip[colon - text] = '\0';
  memset(addr, 0, sizeof *addr);
  addr->sin_family = AF_INET;
  addr->sin_port = htons((uint16_t)port);
  return inet_pton(AF_INET, ip, &addr->sin_addr) == 1 ? 0 : -1;
}

/* The address listeners advertise: the one that reached the launcher,
 * else the first address of an interface that is up and not loopback,
 * else loopback (a job of one host). */
static void link_choose_ip(const char *reached, char *ip, size_t len) {
  struct ifaddrs *list = NULL;
  snprintf(ip, len, "127.0.0.1");
  if (reached != NULL && reached[0] != '\0') {
    snprintf(ip, len, "%s", reached);
    return;
  }
  if (getifaddrs(&list) != 0)
    return;
  for (struct ifaddrs *i = list; i != NULL; i = i->ifa_next) {
    if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
        !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
      continue;
    const struct sockaddr_in *a = (const struct sockaddr_in *)i->ifa_addr;
    inet_ntop(AF_INET, &a->sin_addr, ip, (socklen_t)len);
    break;
  }
  freeifaddrs(list);
}

/* ---- runtime ops: listeners, dial, accept, join ----------------------- */

static hc_status_t link_listen(void *ctx, char *addr, size_t len,
                               void **listener) {
  link_ctx_t *t = ctx;
  struct sockaddr_in sa = {.sin_family = AF_INET};
  socklen_t salen = sizeof sa;
  *listener = NULL;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return HC_ERR_SYSTEM;
  sa.sin_addr.s_addr = htonl(INADDR_ANY);
  if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
      listen(fd, LINK_BACKLOG) != 0 ||
      getsockname(fd, (struct sockaddr *)&sa, &salen) != 0) {
    hc_log(HC_LOG_ERROR, "link", "cannot listen: %s", strerror(errno));
    close(fd);
    return HC_ERR_SYSTEM;
  }
  link_listener_t *l = malloc(sizeof *l);
  int w = snprintf(addr, len, "%s:%u", t->ip, (unsigned)ntohs(sa.sin_port));
  if (l == NULL || w < 0 || (size_t)w >= len) {
    free(l);
    close(fd);
    return l == NULL ? HC_ERR_NOMEM : HC_ERR_ARG;
  }
  l->fd = fd;
  *listener = l;
  return HC_OK;
}

static void link_unlisten(void *ctx, void *listener) {
  link_listener_t *l = listener;
  (void)ctx;
  if (l == NULL)
    return;
  close(l->fd);
  free(l);
}

static hc_status_t link_dial(void *ctx, const char *addr, const char *token,
                             int value, int timeout_ms, int *fd_out) {
  struct sockaddr_in sa;
  unsigned char hello[LINK_HELLO_LEN];
  (void)ctx;
  *fd_out = -1;
  if (link_parse_addr(addr, &sa) != 0 || strlen(token) != LINK_TOKEN_LEN)
    return HC_ERR_ARG;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return HC_ERR_SYSTEM;
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
    hc_log(HC_LOG_DEBUG, "link", "connect to %s: %s", addr, strerror(errno));
    close(fd);
    return HC_ERR_PORT;
  }
  link_tune(fd);
  memcpy(hello, token, LINK_TOKEN_LEN);
  uint32_t v = htonl((uint32_t)value);
  memcpy(hello + LINK_TOKEN_LEN, &v, 4);
  long deadline = link_now_ms() + timeout_ms;
  unsigned char ack = 0;
  hc_status_t rc = link_io_all(fd, hello, sizeof hello, 1, deadline);
  if (rc == HC_OK)
    rc = link_io_all(fd, &ack, 1, 0, deadline);
  if (rc != HC_OK || ack != LINK_ACK) {
    /* The listener closed without answering: a wrong token, or a port
     * closed between connect and handshake. */
    close(fd);
    return HC_ERR_PORT;
  }
  *fd_out = fd;
  return HC_OK;
}

/* One accepted connection's handshake: HC_OK with *value when it named
 * token and a value below nvalues (answered), else an error (closed). */
static hc_status_t link_handshake_in(int fd, const char *token, int nvalues,
                                     int timeout_ms, int *value) {
  unsigned char hello[LINK_HELLO_LEN], ack = LINK_ACK;
  uint32_t v;
  hc_status_t rc =
      link_io_all(fd, hello, sizeof hello, 0, link_now_ms() + timeout_ms);
  if (rc != HC_OK)
    return rc;
  memcpy(&v, hello + LINK_TOKEN_LEN, 4);
  v = ntohl(v);
  if (!link_tokens_equal((const char *)hello, token) || v >= (uint32_t)nvalues)
    return HC_ERR_PEER_AUTH;
  *value = (int)v;
  return link_io_all(fd, &ack, 1, 1, link_now_ms() + timeout_ms);
}

static hc_status_t link_accept(void *ctx, void *listener, const char *token,
                               int nvalues, int timeout_ms, int *fd_out,
                               int *value) {
  link_listener_t *l = listener;
  (void)ctx;
  *fd_out = -1;
  if (l == NULL || strlen(token) != LINK_TOKEN_LEN)
    return HC_ERR_ARG;
  long deadline = timeout_ms < 0 ? -1 : link_now_ms() + timeout_ms;
  int shake_ms = timeout_ms < 0 || timeout_ms > 5000 ? 5000 : timeout_ms;
  for (;;) {
    if (!link_poll(l->fd, POLLIN, deadline))
      return HC_ERR_PEER_DEAD;
    int fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0 && (errno == EINTR || errno == EAGAIN || errno == ECONNABORTED))
      continue;
    if (fd < 0)
      return HC_ERR_SYSTEM;
    link_tune(fd);
    hc_status_t rc = link_handshake_in(fd, token, nvalues, shake_ms, value);
    if (rc == HC_OK) {
      *fd_out = fd;
      return HC_OK;
    }
    hc_log(HC_LOG_WARN, "link", "refused a connection: %s",
           rc == HC_ERR_PEER_AUTH ? "wrong token" : "no handshake");
    close(fd);
  }
}

/* What each side of a join tells the other over the user's socket. */
typedef struct link_join_msg {
  char addr[HC_TRANSPORT_ADDRESS_MAX / 4];
  char token[LINK_TOKEN_LEN + 1];
  unsigned char nonce[16];
} link_join_msg_t;

/* Fills msg with fresh random nonce; 0 or -1. */
static int link_random(void *buf, size_t len) {
  FILE *f = fopen("/dev/urandom", "rb");
  if (f == NULL)
    return -1;
  size_t got = fread(buf, 1, len, f);
  fclose(f);
  return got == len ? 0 : -1;
}

/* Both sides send their listener and a nonce over the user's socket; the
 * lower nonce dials the other's listener (side 1), the higher accepts
 * (side 0).  The user's socket carries nothing else and stays theirs. */
static hc_status_t link_join(void *ctx, int user_fd, const char *token,
                             int timeout_ms, int *fd_out, int *side) {
  link_join_msg_t mine, theirs;
  void *listener = NULL;
  long deadline = link_now_ms() + timeout_ms;
  *fd_out = -1;
  memset(&mine, 0, sizeof mine);
  hc_status_t rc = link_listen(ctx, mine.addr, sizeof mine.addr, &listener);
  if (rc == HC_OK && (strlen(token) != LINK_TOKEN_LEN ||
                      link_random(mine.nonce, sizeof mine.nonce) != 0))
    rc = HC_ERR_SYSTEM;
  if (rc == HC_OK) {
    memcpy(mine.token, token, LINK_TOKEN_LEN + 1);
    rc = link_io_all(user_fd, &mine, sizeof mine, 1, deadline);
  }
  if (rc == HC_OK)
    rc = link_io_all(user_fd, &theirs, sizeof theirs, 0, deadline);
  if (rc == HC_OK) {
    theirs.addr[sizeof theirs.addr - 1] = '\0';
    theirs.token[LINK_TOKEN_LEN] = '\0';
    int cmp = memcmp(mine.nonce, theirs.nonce, sizeof mine.nonce);
    *side = cmp < 0;
    int value = 0;
    if (cmp == 0)
      rc = HC_ERR_INTERNAL; /* 128 random bits alike: a socket to itself */
    else if (*side)
      rc = link_dial(ctx, theirs.addr, theirs.token, 0, timeout_ms, fd_out);
    else
      rc =
          link_accept(ctx, listener, mine.token, 1, timeout_ms, fd_out, &value);
  }
  link_unlisten(ctx, listener);
  return rc == HC_ERR_PEER_DEAD ? HC_ERR_PORT : rc;
}

/* ---- the data path ----------------------------------------------------- */

static hc_status_t link_fifo_reserve(link_fifo_t *q, size_t more) {
  if (q->head > 0 && q->head + q->len + more > q->cap) {
    memmove(q->buf, q->buf + q->head, q->len);
    q->head = 0;
  }
  if (q->len + more <= q->cap)
    return HC_OK;
  size_t cap = q->cap > 0 ? q->cap : 4096;
  while (cap < q->len + more)
    cap *= 2;
  unsigned char *b = realloc(q->buf, cap);
  if (b == NULL)
    return HC_ERR_NOMEM;
  q->buf = b;
  q->cap = cap;
  return HC_OK;
}

static void link_watch_events(link_ctx_t *t, int p, uint32_t events) {
  struct epoll_event ev = {.events = events, .data.u32 = (uint32_t)p};
  epoll_ctl(t->epfd, EPOLL_CTL_MOD, t->peers[p].fd, &ev);
}

/* Closes the socket; the queues stay until fini (a packet being
 * delivered may point into the receive queue). */
static void link_peer_close(link_ctx_t *t, int p) {
  link_peer_t *peer = &t->peers[p];
  if (peer->fd >= 0) {
    epoll_ctl(t->epfd, EPOLL_CTL_DEL, peer->fd, NULL);
    close(peer->fd);
  }
  peer->fd = -1;
  peer->sendq.len = 0;
  peer->recvq.len = 0;
}

static void link_peer_fail(link_ctx_t *t, int p, hc_status_t why) {
  link_peer_close(t, p);
  if (t->peer_failed_cb != NULL)
    t->peer_failed_cb(t->engine, p, why);
}

static hc_status_t link_adopt(void *ctx, int peer, int fd) {
  link_ctx_t *t = ctx;
  if (peer < 0 || peer >= t->npeers || t->peers[peer].fd >= 0) {
    close(fd);
    return HC_ERR_RANK;
  }
  int flags = fcntl(fd, F_GETFL);
  struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)peer};
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0 ||
      epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
    close(fd);
    return HC_ERR_SYSTEM;
  }
  t->peers[peer].fd = fd;
  return HC_OK;
}

/* Writes the queue out as far as the socket takes it. */
static void link_flush(link_ctx_t *t, int p) {
  link_peer_t *peer = &t->peers[p];
  link_fifo_t *q = &peer->sendq;
  while (q->len > 0) {
    ssize_t n =
        send(peer->fd, q->buf + q->head, q->len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      break;
    if (n <= 0) {
      link_peer_fail(t, p, HC_ERR_PEER_DEAD);
      return;
    }
    q->head += (size_t)n;
    q->len -= (size_t)n;
  }
  if (q->len == 0)
    q->head = 0;
  link_watch_events(t, p, EPOLLIN | (q->len > 0 ? EPOLLOUT : 0));
}

/* Queues the packet (length and pieces) and writes what the socket takes;
 * the queue grows rather than refuse (sends never see HC_ERR_AGAIN). */
static hc_status_t link_send(void *ctx, int p, const struct iovec *iov,
                             int iovcnt) {
  link_ctx_t *t = ctx;
  if (p < 0 || p >= t->npeers || t->peers[p].fd < 0)
    return HC_ERR_PEER_DEAD;
  link_fifo_t *q = &t->peers[p].sendq;
  size_t total = 0;
  for (int i = 0; i < iovcnt; i++)
    total += iov[i].iov_len;
  if (total > LINK_MAX_PACKET || total == LINK_GOODBYE_LEN)
    return HC_ERR_ARG;
  if (link_fifo_reserve(q, total + 4) != HC_OK)
    return HC_ERR_NOMEM;
  unsigned char *w = q->buf + q->head + q->len;
  uint32_t len = htonl((uint32_t)total);
  memcpy(w, &len, 4);
  w += 4;
  for (int i = 0; i < iovcnt; i++) {
    memcpy(w, iov[i].iov_base, iov[i].iov_len);
    w += iov[i].iov_len;
  }
  q->len += total + 4;
  link_flush(t, p);
  return t->peers[p].fd >= 0 ? HC_OK : HC_ERR_PEER_DEAD;
}

/* Hands every whole packet in the receive queue to the engine. */
static int link_deliver(link_ctx_t *t, int p) {
  int delivered = 0;
  for (;;) {
    link_fifo_t *q = &t->peers[p].recvq;
    uint32_t len;
    if (q->len < 4)
      break;
    memcpy(&len, q->buf + q->head, 4);
    len = ntohl(len);
    if (len > LINK_MAX_PACKET) {
      link_peer_fail(t, p, HC_ERR_PEER_CORRUPT);
      break;
    }
    if (q->len < 4 + (size_t)len)
      break;
    if (len == LINK_GOODBYE_LEN) {
      link_peer_close(t, p); /* departed, not failed */
      break;
    }
    const unsigned char *packet = q->buf + q->head + 4;
    q->head += 4 + (size_t)len;
    q->len -= 4 + (size_t)len;
    t->recv_cb(t->engine, p, packet, len);
    delivered++;
    if (t->peers[p].fd < 0)
      break; /* failed meanwhile */
  }
  return delivered;
}

static int link_read(link_ctx_t *t, int p) {
  link_fifo_t *q = &t->peers[p].recvq;
  if (q->len == 0)
    q->head = 0;
  if (link_fifo_reserve(q, 65536) != HC_OK) {
    link_peer_fail(t, p, HC_ERR_NOMEM);
    return 0;
  }
  ssize_t n = recv(t->peers[p].fd, q->buf + q->head + q->len,
                   q->cap - q->head - q->len, MSG_DONTWAIT);
  if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
    return 0;
  if (n <= 0) {
    link_peer_fail(t, p, HC_ERR_PEER_DEAD);
    return 0;
  }
  q->len += (size_t)n;
  return link_deliver(t, p);
}

static int link_progress(void *ctx) {
  link_ctx_t *t = ctx;
  struct epoll_event evs[LINK_EVENTS];
  if (t == NULL || t->epfd < 0)
    return 0;
  int n = epoll_wait(t->epfd, evs, LINK_EVENTS, 0);
  int moved = 0;
  for (int i = 0; i < n; i++) {
    int p = (int)evs[i].data.u32;
    if (p >= t->npeers || t->peers[p].fd < 0)
      continue;
    if (evs[i].events & EPOLLOUT)
      link_flush(t, p);
    if (t->peers[p].fd >= 0 &&
        (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
      moved += link_read(t, p);
  }
  return moved;
}

static void link_wait(void *ctx, int timeout_ms) {
  link_ctx_t *t = ctx;
  struct epoll_event ev;
  if (t != NULL && t->epfd >= 0 && timeout_ms != 0)
    epoll_wait(t->epfd, &ev, 1, timeout_ms);
}

static int link_wait_fd(void *ctx, int *timeout_ms) {
  link_ctx_t *t = ctx;
  (void)timeout_ms;
  return t == NULL || t->epfd < 0 ? HC_TRANSPORT_WAIT_NONE : t->epfd;
}

/* At fini: what is queued gets a short chance to leave, then the socket
 * closes without a failure report. */
/* Says goodbye after what is queued, flushes (a second at most) and
 * closes. */
static void link_release(void *ctx, int p) {
  link_ctx_t *t = ctx;
  if (p < 0 || p >= t->npeers || t->peers[p].fd < 0)
    return;
  uint32_t goodbye = htonl(LINK_GOODBYE_LEN);
  if (link_fifo_reserve(&t->peers[p].sendq, sizeof goodbye) == HC_OK) {
    link_fifo_t *q = &t->peers[p].sendq;
    memcpy(q->buf + q->head + q->len, &goodbye, sizeof goodbye);
    q->len += sizeof goodbye;
  }
  long deadline = link_now_ms() + 1000;
  while (t->peers[p].fd >= 0 && t->peers[p].sendq.len > 0 &&
         link_poll(t->peers[p].fd, POLLOUT, deadline))
    link_flush(t, p);
  link_peer_close(t, p);
}

static hc_status_t link_init(const hc_transport_init_args_t *args, void **ctx) {
  link_ctx_t *t = calloc(1, sizeof *t);
  *ctx = t;
  if (t == NULL)
    return HC_ERR_NOMEM;
  t->epfd = -1;
  if (args->peers_max < args->world_size)
    return HC_ERR_ARG;
  t->npeers = args->peers_max;
  t->recv_cb = args->recv_cb;
  t->peer_failed_cb = args->peer_failed_cb;
  t->engine = args->engine;
  link_choose_ip(args->reached_ip, t->ip, sizeof t->ip);
  t->peers = calloc((size_t)t->npeers, sizeof *t->peers);
  if (t->peers == NULL)
    return HC_ERR_NOMEM;
  for (int p = 0; p < t->npeers; p++)
    t->peers[p].fd = -1;
  t->epfd = epoll_create1(EPOLL_CLOEXEC);
  return t->epfd >= 0 ? HC_OK : HC_ERR_SYSTEM;
}

static hc_status_t link_address(void *ctx, char *buf, size_t len) {
  (void)ctx;
  int w = snprintf(buf, len, "runtime");
  return w < 0 || (size_t)w >= len ? HC_ERR_ARG : HC_OK;
}

/* The launch world is never this transport's: its peers come by adopt. */
static hc_status_t link_connect(void *ctx, int peer, const char *address) {
  (void)ctx;
  (void)peer;
  (void)address;
  return HC_ERR_NOT_SUPPORTED;
}

static hc_status_t link_connected(void *ctx) {
  (void)ctx;
  return HC_OK;
}

static size_t link_max_packet(void *ctx) {
  (void)ctx;
  return LINK_MAX_PACKET;
}

static void link_fini(void *ctx) {
  link_ctx_t *t = ctx;
  if (t == NULL)
    return;
  t->peer_failed_cb = NULL;
  for (int p = 0; t->peers != NULL && p < t->npeers; p++) {
    link_release(t, p);
    free(t->peers[p].sendq.buf);
    free(t->peers[p].recvq.buf);
  }
  free(t->peers);
  if (t->epfd >= 0)
    close(t->epfd);
  free(t);
}

static const hc_transport_runtime_ops_t link_runtime_ops = {
    .listen = link_listen,
    .unlisten = link_unlisten,
    .dial = link_dial,
    .accept = link_accept,
    .join = link_join,
    .adopt = link_adopt,
};

const hc_transport_ops_t hc_transport_link_ops = {
    .name = "link",
    .reach = HC_TRANSPORT_REACH_RUNTIME,
    .flags = 0,
    .trace_path = HC_TRACE_PATH_TCP,
    .trace_get_path = HC_TRACE_PATH_TCP,
    .init = link_init,
    .address = link_address,
    .connect = link_connect,
    .connected = link_connected,
    .max_packet = link_max_packet,
    .send = link_send,
    .progress = link_progress,
    .get = hc_transport_get_not_supported,
    .wait = link_wait,
    .wait_fd = link_wait_fd,
    .wait_pollfd = hc_transport_wait_fd_not_supported,
    .wait_done = hc_transport_wait_done_nothing,
    .set_secret = hc_transport_set_secret_not_supported,
    .fini = link_fini,
    .watch = hc_transport_watch_nothing,
    .runtime = &link_runtime_ops,
};
