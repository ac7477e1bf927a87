/*
 * The tcp transport: ranks on different nodes (or any ranks, with
 * HCMPI_TRANSPORTS=tcp) exchange packets over one TCP connection per pair,
 * opened on the first send to that peer.  Sockets are non-blocking and
 * driven by one epoll set inside progress; wait is epoll_wait.
 *
 * Connection set-up, race-free without a global order of first sends:
 *   connector: non-blocking connect; once writable it sends a HELLO
 *              {magic, version, world rank, job size, nonce C}; it sends no
 *              data before the acceptor answers ACK (the socket then
 *              carries the pair's traffic) or NACK (it lost a simultaneous
 *              connect: the peer's own connection will arrive instead).
 *   acceptor:  reads the HELLO.  A connection opened by the lower rank of
 *              the pair always wins (the acceptor drops its own attempt,
 *              which carried no data); one from the higher rank is refused
 *              while the acceptor's own attempt is under way.
 * Authentication, between HELLO and ACK/NACK, with the per-job secret K
 * (HCMPI_JOB_SECRET from the launcher, else one rank 0 handed out through
 * the bootstrap KVS; hc_tcp_set_secret):
 *   acceptor -> connector: nonce A, HMAC(K, "A" | nonce C | ranks)
 *   connector -> acceptor: HMAC(K, "C" | nonce A | ranks)
 * where ranks = connector, acceptor, job size (32-bit, network order).
 * Each side proves it knows K over the other's fresh nonce, so neither K
 * nor anything replayable crosses the wire.  A connection that fails is
 * closed before it touches any peer's state: a stray client, garbage or a
 * replayed handshake costs the job nothing.  A connector that gets a wrong
 * answer from the address it was given marks that peer failed
 * (HC_ERR_PEER_AUTH); so does one whose HELLO the acceptor refuses with
 * REFUSE (another job size or protocol version).
 * Packets wait in the per-peer send queue until a connection is up, so the
 * losing socket of a race never carries a byte of them.
 *
 * Strangers and scarce descriptors.  An accepted connection must finish
 * its handshake within HCMPI_TCP_HANDSHAKE_MS or is closed, and at most
 * HCMPI_TCP_HANDSHAKES of them wait at once (a new one closes the oldest,
 * one without a HELLO first: a peer's HELLO is nearly always there when
 * its connection is accepted, as it is read at once).  When accept or
 * socket runs out of descriptors (EMFILE, ENFILE) the oldest of those
 * connections gives its descriptor back; with none to give, the listener
 * rests and our attempt waits, each for a back-off, instead of spinning.
 * A rank says so once on stderr whatever HCMPI_LOG is.  A connector whose
 * attempt is closed before the acceptor's verdict (that deadline or cap,
 * or a peer that died) tries again after a back-off: a live peer's
 * listener takes it, a dead one's refuses it (ECONNREFUSED), which marks
 * the peer failed.  A connector that lost a race (NACK) tries again too
 * if the winning connection has not come within the handshake deadline.
 * Handshake steps count as no progress to the engine, so its waits sleep
 * and its HCMPI_HANG_TIMEOUT watchdog runs while set-up stalls.
 * watch: the engine waits for a peer (a receive names it), so the
 * connection opens now, and a peer that died before its first packet is
 * noticed by the refused connect instead of never.
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
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "transport/transport.h"
#include "util/env.h"
#include "util/log.h"
#include "util/sha256.h"
#include "transport/tcp/tcp_auth.h"
#include "transport/tcp/tcp_ip.h"

#define TCP_MAGIC 0x68637463u /* "hctc" */
#define TCP_VERSION 1
#define TCP_REPLY_ACK 0x41434b21u
#define TCP_REPLY_NACK 0x4e41434bu
/* The answer to a HELLO of another job size or protocol version. */
#define TCP_REPLY_REFUSE 0x52465344u
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
#define TCP_PLACE_HEAD_MAX 256
/* Bytes one progress call reads from one peer before serving others. */
#define TCP_READ_BUDGET ((size_t)4 << 20)
#define TCP_AUTH_BYTES 32 /* a nonce; also the size of a MAC */
/* Finalize flushes queued bytes for at most this long. */
#define TCP_FINI_FLUSH_MS 2000
/* Set-up limits (see above): defaults of HCMPI_TCP_HANDSHAKE_MS and
 * HCMPI_TCP_HANDSHAKES, and the least deadline taken. */
#define TCP_DEFAULT_HANDSHAKE_MS 5000
#define TCP_MIN_HANDSHAKE_MS 50
#define TCP_DEFAULT_HANDSHAKES 128
/* Connections one progress call accepts, so that a flood cannot keep the
 * HELLOs of those accepted from being read. */
#define TCP_ACCEPT_BATCH 16
/* Back-off after an attempt that could not start or was closed before its
 * verdict, and of a listener out of descriptors: doubling from MIN. */
#define TCP_BACKOFF_MIN_MS 10
#define TCP_BACKOFF_MAX_MS 1000
/* Deadlines and back-offs are looked at this often at most; a wait sleeps
 * no longer than TCP_TIMER_WAIT_MS while one is pending. */
#define TCP_TIMER_MS 10
#define TCP_TIMER_WAIT_MS 100

/* First bytes on a new connection, connector to acceptor. */
typedef struct tcp_hello {
  uint32_t magic;
  uint32_t version;
  int32_t rank;
  int32_t world_size;
  unsigned char auth[TCP_AUTH_BYTES]; /* the connector's nonce */
} tcp_hello_t;

/* Acceptor to connector after a well-formed HELLO. */
typedef struct tcp_challenge {
  unsigned char nonce[TCP_AUTH_BYTES];
  unsigned char mac[HC_SHA256_BYTES];
} tcp_challenge_t;
_Static_assert(sizeof(tcp_challenge_t) >= sizeof(tcp_hello_t),
               "the handshake buffer holds either");

enum tcp_conn_kind { TCP_KIND_LISTEN, TCP_KIND_OUT, TCP_KIND_IN };
enum tcp_conn_state {
  TCP_CONN_CONNECTING, /* out: connect in flight */
  TCP_CONN_HELLO_SENT, /* out: waiting for the challenge */
  TCP_CONN_RESP_SENT,  /* out: answered it; waiting for ACK/NACK */
  TCP_CONN_HELLO_WAIT, /* in: waiting for the HELLO */
  TCP_CONN_RESP_WAIT,  /* in: challenge sent; waiting for the answer */
  TCP_CONN_UP,         /* carries the pair's packets */
  TCP_CONN_DEAD        /* closed; freed at the end of progress */
};

typedef struct tcp_conn {
  struct tcp_conn *next; /* every conn of the context */
  int fd;
  int kind;
  int state;
  int peer; /* world rank; -1 for an incoming one before its HELLO */
  uint32_t events;
  int claimed;   /* in: the rank its HELLO named */
  long born_ms;  /* in: when it was accepted (tcp_clock_ms) */
  size_t hs_got; /* handshake bytes read so far */
  unsigned char hs[sizeof(tcp_challenge_t)];
  unsigned char nonce[TCP_AUTH_BYTES]; /* the one we sent */
} tcp_conn_t;

typedef struct tcp_fifo {
  unsigned char *buf;
  size_t head;
  size_t len;
  size_t cap;
} tcp_fifo_t;

enum tcp_peer_state {
  TCP_PEER_IDLE,       /* nothing sent yet */
  TCP_PEER_CONNECTING, /* our connection attempt is under way */
  TCP_PEER_RETRY,      /* none under way: ours starts at retry_ms, unless
                          the peer's own connection wins first */
  TCP_PEER_UP,
  TCP_PEER_FAILED
};

typedef struct tcp_peer {
  int state;         /* changed by tcp_peer_set only */
  hc_status_t cause; /* FAILED: why (HC_ERR_PEER_*) */
  long retry_ms;     /* RETRY: when our next attempt starts */
  int tries;         /* attempts since the last connection came up */
  int has_addr;
  struct sockaddr_in addr;
  tcp_conn_t *out; /* our attempt, until it is up or dropped */
  tcp_conn_t *up;
  tcp_fifo_t sendq;
  tcp_fifo_t recvq;
  /* A payload being read in place: want bytes at dst, got so far. */
  unsigned char *place_dst;
  size_t place_want;
  size_t place_got;
  int placing_stream; /* the last packet was placed: peek-sized reads */
  int place_asked;    /* place_cb declined the packet at the buffer head */
  unsigned char place_head[TCP_PLACE_HEAD_MAX];
} tcp_peer_t;

typedef struct tcp_ctx {
  int world_rank;
  int world_size;
  hc_transport_recv_cb recv_cb;
  hc_transport_peer_failed_cb peer_failed_cb;
  hc_transport_place_cb place_cb; /* NULL: no placement */
  hc_transport_placed_cb placed_cb;
  size_t place_head;
  size_t placed_bytes; /* payload bytes read in place, for the debug log */
  size_t place_copied; /* of those, bytes that came through the buffer */
  void *engine;
  int epfd;
  tcp_conn_t *listener;
  tcp_conn_t *conns;
  tcp_peer_t *peers;
  struct in_addr ip;
  uint16_t port;
  size_t max_packet;
  size_t sendq_max;
  int sockbuf;
  int has_secret;
  unsigned char secret[HC_TCP_SECRET_BYTES];
  /* Set-up limits and timers (see above). */
  long handshake_ms;  /* HCMPI_TCP_HANDSHAKE_MS */
  int handshakes_max; /* HCMPI_TCP_HANDSHAKES */
  int handshakes;     /* accepted connections still in their handshake */
  int retrying;       /* peers in TCP_PEER_RETRY */
  int listen_paused;  /* out of descriptors: the listener rests */
  long listen_resume_ms;
  long listen_backoff_ms;
  long next_timer_ms;
  /* tcp_timers_pending as the last progress left it: wait runs without
   * the engine lock, so it reads this copy only. */
  atomic_int timers_armed;
  int closed_some; /* conns closed since the last sweep */
  unsigned noted;  /* TCP_NOTE_* already reported */
} tcp_ctx_t;

/* What a rank reports once only. */
enum { TCP_NOTE_FDS = 1, TCP_NOTE_CAP = 2, TCP_NOTE_DEADLINE = 4 };

/* ---- small helpers ---------------------------------------------------- */

static void tcp_tune_socket(const tcp_ctx_t *t, int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (t->sockbuf > 0) {
    /* The kernel caps these at its rmem/wmem maxima; best effort. */
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &t->sockbuf, sizeof t->sockbuf);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &t->sockbuf, sizeof t->sockbuf);
  }
}

static hc_status_t tcp_fifo_reserve(tcp_fifo_t *q, size_t more) {
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

static void tcp_fifo_consume(tcp_fifo_t *q, size_t n) {
  q->head += n;
  q->len -= n;
  if (q->len == 0)
    q->head = 0;
}

static tcp_conn_t *tcp_conn_new(tcp_ctx_t *t, int fd, int kind, int state,
                                int peer, uint32_t events) {
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

static void tcp_conn_watch(tcp_ctx_t *t, tcp_conn_t *c, uint32_t events) {
  if (c->state == TCP_CONN_DEAD || c->events == events)
    return;
  struct epoll_event ev = {.events = events, .data.ptr = c};
  if (epoll_ctl(t->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
    c->events = events;
}

/* An accepted connection that has not finished its handshake. */
static int tcp_conn_in_handshake(const tcp_conn_t *c) {
  return c->kind == TCP_KIND_IN &&
         (c->state == TCP_CONN_HELLO_WAIT || c->state == TCP_CONN_RESP_WAIT);
}

/* Closes now, frees later: the conn may still sit in this round's events. */
static void tcp_conn_close(tcp_ctx_t *t, tcp_conn_t *c) {
  if (c == NULL || c->state == TCP_CONN_DEAD)
    return;
  if (tcp_conn_in_handshake(c))
    t->handshakes--;
  close(c->fd);
  c->fd = -1;
  c->state = TCP_CONN_DEAD;
  t->closed_some = 1;
}

static void tcp_conns_sweep(tcp_ctx_t *t) {
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

/* Every change of a peer's state, so the count of retrying peers holds. */
static void tcp_peer_set(tcp_ctx_t *t, tcp_peer_t *peer, int state) {
  if (peer->state == TCP_PEER_RETRY)
    t->retrying--;
  if (state == TCP_PEER_RETRY)
    t->retrying++;
  peer->state = state;
}

/* The peer is lost for good, for cause (HC_ERR_PEER_*). */
static void tcp_peer_fail(tcp_ctx_t *t, int p, hc_status_t cause,
                          const char *why, int err) {
  tcp_peer_t *peer = &t->peers[p];
  if (peer->state == TCP_PEER_FAILED)
    return;
  hc_log(err == 0 ? HC_LOG_INFO : HC_LOG_WARN, "tcp", "rank %d: %s%s%s", p, why,
         err ? ": " : "", err ? strerror(err) : "");
  tcp_conn_close(t, peer->out);
  tcp_conn_close(t, peer->up);
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

/* ---- address choice --------------------------------------------------- */

/* Parses "a.b.c.d/n"; returns 0 when spec is not a CIDR. */
static int tcp_parse_cidr(const char *spec, struct in_addr *net,
                          uint32_t *mask) {
  char ip[INET_ADDRSTRLEN];
  const char *slash = strchr(spec, '/');
  if (slash == NULL || (size_t)(slash - spec) >= sizeof ip)
    return 0;
  memcpy(ip, spec, (size_t)(slash - spec));
  ip[slash - spec] = '\0';
  char *end;
  long bits = strtol(slash + 1, &end, 10);
  if (*end != '\0' || end == slash + 1 || bits < 0 || bits > 32 ||
      inet_pton(AF_INET, ip, net) != 1)
    return 0;
  *mask = bits == 0 ? 0 : htonl(~0u << (32 - bits));
  return 1;
}

static int tcp_if_matches(const struct ifaddrs *ifa, const char *spec) {
  const struct sockaddr_in *sin = (const struct sockaddr_in *)ifa->ifa_addr;
  struct in_addr net;
  uint32_t mask;
  if (spec == NULL)
    return !(ifa->ifa_flags & IFF_LOOPBACK);
  if (tcp_parse_cidr(spec, &net, &mask))
    return (sin->sin_addr.s_addr & mask) == (net.s_addr & mask);
  return strcmp(ifa->ifa_name, spec) == 0;
}

static int tcp_if_usable(const struct ifaddrs *ifa) {
  return ifa->ifa_addr != NULL && ifa->ifa_addr->sa_family == AF_INET &&
         (ifa->ifa_flags & IFF_UP);
}

static struct in_addr tcp_if_ip(const struct ifaddrs *ifa) {
  return ((const struct sockaddr_in *)ifa->ifa_addr)->sin_addr;
}

/* reached when it parses, is not loopback (peers on other hosts could not
 * use it) and sits on an UP interface of list. */
static int tcp_reached_ok(const struct ifaddrs *list, const char *reached,
                          struct in_addr *ip) {
  struct in_addr r;
  if (reached == NULL || inet_pton(AF_INET, reached, &r) != 1 ||
      (ntohl(r.s_addr) >> 24) == 127)
    return 0;
  for (const struct ifaddrs *ifa = list; ifa != NULL; ifa = ifa->ifa_next)
    if (tcp_if_usable(ifa) && tcp_if_ip(ifa).s_addr == r.s_addr) {
      *ip = r;
      return 1;
    }
  return 0;
}

hc_status_t hc_tcp_choose_ip(const struct ifaddrs *list, const char *spec,
                             const char *reached, struct in_addr *ip) {
  const struct ifaddrs *first = NULL;
  for (const struct ifaddrs *ifa = list; ifa != NULL && first == NULL;
       ifa = ifa->ifa_next)
    if (tcp_if_usable(ifa) && tcp_if_matches(ifa, spec))
      first = ifa;
  if (spec != NULL && first == NULL) {
    hc_log(HC_LOG_ERROR, "tcp", "HCMPI_TCP_IF=%s matches no UP IPv4 address",
           spec);
    return HC_ERR_TRANSPORT;
  }
  if (spec == NULL && tcp_reached_ok(list, reached, ip)) {
    hc_log(HC_LOG_DEBUG, "tcp", "using %s, which reached the launcher",
           reached);
    return HC_OK;
  }
  if (first != NULL)
    *ip = tcp_if_ip(first);
  else
    ip->s_addr = htonl(INADDR_LOOPBACK);
  return HC_OK;
}

static hc_status_t tcp_choose_ip(const char *reached, struct in_addr *ip) {
  struct ifaddrs *list;
  if (getifaddrs(&list) != 0) {
    hc_log(HC_LOG_ERROR, "tcp", "getifaddrs: %s", strerror(errno));
    return HC_ERR_SYSTEM;
  }
  hc_status_t rc =
      hc_tcp_choose_ip(list, hc_env_string("HCMPI_TCP_IF", NULL), reached, ip);
  freeifaddrs(list);
  return rc;
}

/* ---- init / address / connect ----------------------------------------- */

static hc_status_t tcp_listen(tcp_ctx_t *t) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return HC_ERR_SYSTEM;
  /* Accepted sockets inherit the buffer sizes, which must precede listen
   * for the window scale to follow them. */
  tcp_tune_socket(t, fd);
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
  t->listener = tcp_conn_new(t, fd, TCP_KIND_LISTEN, TCP_CONN_UP, -1, EPOLLIN);
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

/* ---- the job secret ---------------------------------------------------- */

static int tcp_hex_digit(char ch) {
  if (ch >= '0' && ch <= '9')
    return ch - '0';
  if (ch >= 'a' && ch <= 'f')
    return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F')
    return ch - 'A' + 10;
  return -1;
}

int hc_tcp_set_secret(void *ctx, const char *hex) {
  tcp_ctx_t *t = ctx;
  unsigned char k[HC_TCP_SECRET_BYTES];
  if (t == NULL || hex == NULL || strlen(hex) != 2 * HC_TCP_SECRET_BYTES)
    return -1;
  for (size_t i = 0; i < HC_TCP_SECRET_BYTES; i++) {
    int hi = tcp_hex_digit(hex[2 * i]), lo = tcp_hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return -1;
    k[i] = (unsigned char)(hi << 4 | lo);
  }
  memcpy(t->secret, k, sizeof k);
  t->has_secret = 1;
  return 0;
}

int hc_tcp_has_secret(const void *ctx) {
  const tcp_ctx_t *t = ctx;
  return t != NULL && t->has_secret;
}

static int tcp_random(unsigned char *buf, size_t len) {
  size_t got = 0;
  while (got < len) {
    ssize_t n = getrandom(buf + got, len - got, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    got += (size_t)n;
  }
  return 0;
}

/* HMAC(K, label | nonce | connector | acceptor | job size). */
static void tcp_mac(const tcp_ctx_t *t, char label, const unsigned char *nonce,
                    int connector, int acceptor,
                    unsigned char out[HC_SHA256_BYTES]) {
  unsigned char msg[1 + TCP_AUTH_BYTES + 12];
  uint32_t v[3] = {htonl((uint32_t)connector), htonl((uint32_t)acceptor),
                   htonl((uint32_t)t->world_size)};
  msg[0] = (unsigned char)label;
  memcpy(msg + 1, nonce, TCP_AUTH_BYTES);
  memcpy(msg + 1 + TCP_AUTH_BYTES, v, sizeof v);
  hc_hmac_sha256(t->secret, sizeof t->secret, msg, sizeof msg, out);
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
  if (secret != NULL && secret[0] != '\0' && hc_tcp_set_secret(t, secret) != 0) {
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
  hc_status_t rc = tcp_choose_ip(args->reached_ip, &t->ip);
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
static int tcp_flush(tcp_ctx_t *t, int p) {
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
      tcp_peer_fail(t, p, HC_ERR_PEER_DEAD, "send", n < 0 ? errno : EPIPE);
      return moved;
    }
    tcp_fifo_consume(q, (size_t)n);
    moved = 1;
  }
  if (peer->state == TCP_PEER_UP)
    tcp_conn_watch(t, peer->up, EPOLLIN | (q->len > 0 ? EPOLLOUT : 0));
  return moved;
}

/* ---- scarce descriptors, deadlines, back-offs ------------------------- */

static long tcp_clock_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* 1 the first time this rank meets note. */
static int tcp_first(tcp_ctx_t *t, unsigned note) {
  if (t->noted & note)
    return 0;
  t->noted |= note;
  return 1;
}

/* Errors after which the same call may work later: out of descriptors,
 * buffers or local ports. */
static int tcp_scarce(int err) {
  return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM ||
         err == EAGAIN || err == EADDRNOTAVAIL;
}

/* Which of two accepted connections in their handshake goes first: one
 * without a HELLO before one with, then the older. */
static int tcp_evict_before(const tcp_conn_t *a, const tcp_conn_t *b) {
  int a_said = a->state == TCP_CONN_RESP_WAIT;
  int b_said = b->state == TCP_CONN_RESP_WAIT;
  if (a_said != b_said)
    return !a_said;
  return a->born_ms <= b->born_ms; /* conns runs newest first */
}

/* Closes the accepted connection that goes first (above); 0 when no
 * accepted connection is in its handshake. */
static int tcp_evict_oldest(tcp_ctx_t *t) {
  tcp_conn_t *first = NULL;
  for (tcp_conn_t *c = t->conns; c != NULL; c = c->next)
    if (tcp_conn_in_handshake(c) &&
        (first == NULL || tcp_evict_before(c, first)))
      first = c;
  if (first == NULL)
    return 0;
  tcp_conn_close(t, first);
  return 1;
}

/* call failed with EMFILE or ENFILE.  Said once per rank on stderr
 * whatever HCMPI_LOG is, since the job may stall on it; then an accepted
 * connection still in its handshake gives its descriptor back.  1 when
 * one did. */
static int tcp_fds_exhausted(tcp_ctx_t *t, const char *call, int err) {
  if (tcp_first(t, TCP_NOTE_FDS))
    fprintf(stderr,
            "hcmpi: rank %d: out of file descriptors (%s: %s); tcp closes "
            "connections that have not authenticated and retries; raise "
            "the limit (ulimit -n)\n",
            t->world_rank, call, strerror(err));
  return tcp_evict_oldest(t);
}

static long tcp_backoff_ms(tcp_peer_t *peer) {
  int k = peer->tries < 7 ? peer->tries : 7;
  peer->tries++;
  long ms = (long)TCP_BACKOFF_MIN_MS << k;
  return ms < TCP_BACKOFF_MAX_MS ? ms : TCP_BACKOFF_MAX_MS;
}

/* Our attempt on p could not start, or ended before the acceptor's
 * verdict, while the peer may well live: the next starts in delay_ms. */
static void tcp_retry_later(tcp_ctx_t *t, int p, long delay_ms) {
  tcp_peer_t *peer = &t->peers[p];
  tcp_conn_close(t, peer->out);
  peer->out = NULL;
  peer->retry_ms = tcp_clock_ms() + delay_ms;
  tcp_peer_set(t, peer, TCP_PEER_RETRY);
}

/* Opens our attempt on p.  What goes wrong ends in RETRY (scarce
 * resources) or FAILED (a refused connect: nobody listens there). */
static void tcp_start_connect(tcp_ctx_t *t, int p) {
  tcp_peer_t *peer = &t->peers[p];
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0 && (errno == EMFILE || errno == ENFILE) &&
      tcp_fds_exhausted(t, "socket", errno))
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int err = fd < 0 ? errno : 0;
  if (fd >= 0) {
    tcp_tune_socket(t, fd);
    if (connect(fd, (struct sockaddr *)&peer->addr, sizeof peer->addr) != 0 &&
        errno != EINPROGRESS)
      err = errno;
  }
  if (err == 0) {
    peer->out =
        tcp_conn_new(t, fd, TCP_KIND_OUT, TCP_CONN_CONNECTING, p, EPOLLOUT);
    err = peer->out == NULL ? ENOMEM : 0;
  }
  if (err == 0) {
    tcp_peer_set(t, peer, TCP_PEER_CONNECTING);
    return;
  }
  if (fd >= 0)
    close(fd);
  if (tcp_scarce(err)) {
    hc_log(HC_LOG_DEBUG, "tcp", "rank %d: connect: %s; retrying", p,
           strerror(err));
    tcp_retry_later(t, p, tcp_backoff_ms(peer));
  } else {
    tcp_peer_fail(t, p, HC_ERR_PEER_DEAD, "connect", err);
  }
}

/* Copies the frame (or its unsent tail, from byte skip on) into the queue. */
static hc_status_t tcp_enqueue(tcp_fifo_t *q, const uint32_t *hdr,
                               const struct iovec *iov, int iovcnt,
                               size_t skip) {
  size_t total = TCP_FRAME_HDR;
  for (int i = 0; i < iovcnt; i++)
    total += iov[i].iov_len;
  if (tcp_fifo_reserve(q, total - skip) != HC_OK)
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
    tcp_peer_fail(t, p, HC_ERR_PEER_DEAD, "send", errno);
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
    tcp_start_connect(t, p);
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
      tcp_peer_fail(t, p, HC_ERR_PEER_CORRUPT,
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
    if (tcp_fifo_reserve(q, t->max_packet + TCP_FRAME_HDR) != HC_OK) {
      tcp_peer_fail(t, p, HC_ERR_PEER_DEAD, "no memory for receive buffer",
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
      tcp_peer_fail(t, p, HC_ERR_PEER_DEAD,
                    n == 0 ? "connection closed" : "recv", n == 0 ? 0 : errno);
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

/* ---- connection set-up ------------------------------------------------ */

/* Reads handshake bytes up to want; 1 when complete, 0 when more must come,
 * -1 on EOF or error (errno set, 0 for EOF). */
static int tcp_read_handshake(tcp_conn_t *c, size_t want) {
  while (c->hs_got < want) {
    ssize_t n = recv(c->fd, c->hs + c->hs_got, want - c->hs_got, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return 0;
    if (n <= 0) {
      if (n == 0)
        errno = 0;
      return -1;
    }
    c->hs_got += (size_t)n;
  }
  return 1;
}

static void tcp_peer_up(tcp_ctx_t *t, int p, tcp_conn_t *c) {
  tcp_peer_t *peer = &t->peers[p];
  if (peer->out != NULL && peer->out != c)
    tcp_conn_close(t, peer->out);
  peer->out = NULL;
  peer->up = c;
  peer->tries = 0;
  tcp_peer_set(t, peer, TCP_PEER_UP);
  if (tcp_conn_in_handshake(c))
    t->handshakes--;
  c->state = TCP_CONN_UP;
  c->peer = p;
  hc_log(HC_LOG_DEBUG, "tcp", "rank %d: connected (%s)", p,
         c->kind == TCP_KIND_OUT ? "ours" : "theirs");
  tcp_flush(t, p);
}

/* Connector: our attempt broke during set-up with err (0: closed).  The
 * acceptor closing it before its verdict (its deadline or cap, or its
 * death) earns another attempt, which a dead peer's listener refuses;
 * anything else means the peer cannot be reached. */
static void tcp_attempt_broke(tcp_ctx_t *t, tcp_conn_t *c, int err) {
  int p = c->peer;
  if (err == 0 || err == ECONNRESET || err == EPIPE) {
    hc_log(HC_LOG_DEBUG, "tcp", "rank %d: closed during set-up; retrying", p);
    tcp_retry_later(t, p, tcp_backoff_ms(&t->peers[p]));
  } else {
    tcp_peer_fail(t, p, HC_ERR_PEER_DEAD, "connect", err);
  }
}

/* Connector: connect finished; check it and send the HELLO. */
static void tcp_on_connected(tcp_ctx_t *t, tcp_conn_t *c) {
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
    err = errno;
  if (err == EINPROGRESS || err == EALREADY)
    return;
  tcp_hello_t hello = {.magic = TCP_MAGIC,
                       .version = TCP_VERSION,
                       .rank = t->world_rank,
                       .world_size = t->world_size};
  if (err == 0 && tcp_random(c->nonce, sizeof c->nonce) != 0)
    err = errno ? errno : EIO;
  memcpy(hello.auth, c->nonce, sizeof hello.auth);
  /* A fresh socket's buffer takes the whole HELLO or nothing breaks. */
  if (err == 0 &&
      send(c->fd, &hello, sizeof hello, MSG_NOSIGNAL) != (ssize_t)sizeof hello)
    err = errno ? errno : EPROTO;
  if (err != 0) {
    tcp_attempt_broke(t, c, err);
    return;
  }
  c->state = TCP_CONN_HELLO_SENT;
  tcp_conn_watch(t, c, EPOLLIN);
}

/* Connector: the acceptor proves it knows the secret; we answer its nonce. */
static void tcp_on_challenge(tcp_ctx_t *t, tcp_conn_t *c) {
  int r = tcp_read_handshake(c, sizeof(tcp_challenge_t));
  if (r == 0)
    return;
  uint32_t refuse = TCP_REPLY_REFUSE;
  if (r < 0 && c->hs_got == sizeof refuse &&
      memcmp(c->hs, &refuse, sizeof refuse) == 0) {
    tcp_peer_fail(t, c->peer, HC_ERR_PEER_AUTH,
                  "HELLO refused (another job size or hcmpi version)", EPROTO);
    return;
  }
  if (r < 0) {
    tcp_attempt_broke(t, c, errno);
    return;
  }
  tcp_challenge_t ch;
  unsigned char want[HC_SHA256_BYTES], answer[HC_SHA256_BYTES];
  memcpy(&ch, c->hs, sizeof ch);
  tcp_mac(t, 'A', c->nonce, t->world_rank, c->peer, want);
  if (!hc_bytes_equal_ct(want, ch.mac, sizeof want)) {
    tcp_peer_fail(t, c->peer, HC_ERR_PEER_AUTH,
                  "authentication failed (wrong job secret)", EACCES);
    return;
  }
  tcp_mac(t, 'C', ch.nonce, t->world_rank, c->peer, answer);
  if (send(c->fd, answer, sizeof answer, MSG_NOSIGNAL) != (ssize_t)sizeof answer) {
    tcp_attempt_broke(t, c, errno ? errno : EPROTO);
    return;
  }
  c->hs_got = 0;
  c->state = TCP_CONN_RESP_SENT;
}

/* Connector: ACK makes the socket the pair's; NACK means we lost a race:
 * the peer's own connection comes instead, or ours again after the
 * handshake deadline. */
static void tcp_on_reply(tcp_ctx_t *t, tcp_conn_t *c) {
  int r = tcp_read_handshake(c, sizeof(uint32_t));
  if (r == 0)
    return;
  if (r < 0) {
    tcp_attempt_broke(t, c, errno);
    return;
  }
  uint32_t reply;
  memcpy(&reply, c->hs, sizeof reply);
  if (reply == TCP_REPLY_ACK)
    tcp_peer_up(t, c->peer, c);
  else if (reply == TCP_REPLY_NACK)
    tcp_retry_later(t, c->peer, t->handshake_ms);
  else
    tcp_peer_fail(t, c->peer, HC_ERR_PEER_AUTH, "bad handshake reply", EPROTO);
}

/* Acceptor: which connection of a pair carries its traffic. */
static int tcp_accept_wins(const tcp_ctx_t *t, int p) {
  const tcp_peer_t *peer = &t->peers[p];
  if (peer->state == TCP_PEER_UP || peer->state == TCP_PEER_FAILED)
    return 0;
  if (p < t->world_rank)
    return 1;
  return peer->state != TCP_PEER_CONNECTING;
}

static int tcp_hello_ok(const tcp_ctx_t *t, const tcp_hello_t *h) {
  return h->magic == TCP_MAGIC && h->version == TCP_VERSION &&
         h->world_size == t->world_size && h->rank >= 0 &&
         h->rank < t->world_size && h->rank != t->world_rank;
}

/* Acceptor: a well-formed HELLO gets the challenge; nothing else yet. */
static void tcp_on_hello(tcp_ctx_t *t, tcp_conn_t *c) {
  int r = tcp_read_handshake(c, sizeof(tcp_hello_t));
  if (r == 0)
    return;
  tcp_hello_t hello;
  memcpy(&hello, c->hs, sizeof hello);
  if (r < 0 || !tcp_hello_ok(t, &hello)) {
    /* Not a peer of this job (or gone before it said who it is).  A whole
     * HELLO gets REFUSE, so a connector of another job size or version
     * stops instead of retrying. */
    if (r > 0) {
      uint32_t refuse = TCP_REPLY_REFUSE;
      hc_log(HC_LOG_WARN, "tcp", "refused a connection with a bad HELLO");
      if (send(c->fd, &refuse, sizeof refuse, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
        hc_log(HC_LOG_DEBUG, "tcp", "REFUSE: %s", strerror(errno));
    }
    tcp_conn_close(t, c);
    return;
  }
  tcp_challenge_t ch;
  if (tcp_random(c->nonce, sizeof c->nonce) != 0) {
    tcp_conn_close(t, c);
    return;
  }
  memcpy(ch.nonce, c->nonce, sizeof ch.nonce);
  tcp_mac(t, 'A', hello.auth, hello.rank, t->world_rank, ch.mac);
  if (send(c->fd, &ch, sizeof ch, MSG_NOSIGNAL) != (ssize_t)sizeof ch) {
    tcp_conn_close(t, c);
    return;
  }
  c->claimed = hello.rank;
  c->hs_got = 0;
  c->state = TCP_CONN_RESP_WAIT;
}

/* Acceptor: a right answer makes the connection a peer's (if it wins). */
static void tcp_on_response(tcp_ctx_t *t, tcp_conn_t *c) {
  unsigned char want[HC_SHA256_BYTES];
  int r = tcp_read_handshake(c, sizeof want);
  if (r == 0)
    return;
  int p = c->claimed;
  tcp_mac(t, 'C', c->nonce, p, t->world_rank, want);
  if (r < 0 || !hc_bytes_equal_ct(want, c->hs, sizeof want)) {
    if (r > 0)
      hc_log(HC_LOG_WARN, "tcp",
             "refused a connection claiming rank %d: authentication failed", p);
    tcp_conn_close(t, c);
    return;
  }
  int wins = tcp_accept_wins(t, p);
  uint32_t reply = wins ? TCP_REPLY_ACK : TCP_REPLY_NACK;
  if (send(c->fd, &reply, sizeof reply, MSG_NOSIGNAL) != (ssize_t)sizeof reply)
    wins = 0;
  if (!wins) {
    tcp_conn_close(t, c);
    return;
  }
  tcp_conn_watch(t, c, EPOLLIN);
  tcp_peer_up(t, p, c);
}

/* One accepted socket joins the handshakes (closing the one that goes
 * first when HCMPI_TCP_HANDSHAKES are waiting); its HELLO, usually there
 * already, is read at once. */
static void tcp_accepted(tcp_ctx_t *t, int fd) {
  if (t->handshakes >= t->handshakes_max) {
    if (tcp_first(t, TCP_NOTE_CAP))
      hc_log(HC_LOG_WARN, "tcp",
             "%d connections wait for their handshake (HCMPI_TCP_HANDSHAKES); "
             "closing the oldest",
             t->handshakes);
    tcp_evict_oldest(t);
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  tcp_conn_t *c =
      tcp_conn_new(t, fd, TCP_KIND_IN, TCP_CONN_HELLO_WAIT, -1, EPOLLIN);
  if (c == NULL) {
    close(fd);
    return;
  }
  c->born_ms = tcp_clock_ms();
  t->handshakes++;
  tcp_on_hello(t, c);
}

/* Out of descriptors (or buffers) with none to give back: the listener
 * rests for a back-off instead of waking every poll. */
static void tcp_listen_pause(tcp_ctx_t *t, int err) {
  long ms = t->listen_backoff_ms * 2;
  ms = ms < TCP_BACKOFF_MIN_MS ? TCP_BACKOFF_MIN_MS : ms;
  t->listen_backoff_ms = ms < TCP_BACKOFF_MAX_MS ? ms : TCP_BACKOFF_MAX_MS;
  t->listen_resume_ms = tcp_clock_ms() + t->listen_backoff_ms;
  t->listen_paused = 1;
  tcp_conn_watch(t, t->listener, 0);
  hc_log(HC_LOG_DEBUG, "tcp", "accept: %s; listener rests %ld ms",
         strerror(err), t->listen_backoff_ms);
}

static void tcp_on_listen(tcp_ctx_t *t) {
  for (int n = 0; n < TCP_ACCEPT_BATCH;) {
    int fd = accept4(t->listener->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      t->listen_backoff_ms = 0;
      tcp_accepted(t, fd);
      n++;
      continue;
    }
    int err = errno;
    if (err == EINTR || err == ECONNABORTED)
      continue;
    if (err == EAGAIN || err == EWOULDBLOCK)
      return;
    if ((err == EMFILE || err == ENFILE) && tcp_fds_exhausted(t, "accept", err))
      continue;
    tcp_listen_pause(t, err);
    return;
  }
}

/* Handshake deadlines: accepted connections past theirs are closed. */
static void tcp_expire_handshakes(tcp_ctx_t *t, long now) {
  for (tcp_conn_t *c = t->conns; c != NULL; c = c->next) {
    if (!tcp_conn_in_handshake(c) || now - c->born_ms < t->handshake_ms)
      continue;
    if (tcp_first(t, TCP_NOTE_DEADLINE))
      hc_log(HC_LOG_WARN, "tcp",
             "closed a connection that did not authenticate within %ld ms "
             "(HCMPI_TCP_HANDSHAKE_MS)",
             t->handshake_ms);
    tcp_conn_close(t, c);
  }
}

static int tcp_timers_pending(const tcp_ctx_t *t) {
  return t->handshakes > 0 || t->retrying > 0 || t->listen_paused;
}

/* Deadlines and back-offs, every TCP_TIMER_MS at most. */
static void tcp_timers(tcp_ctx_t *t) {
  long now = tcp_clock_ms();
  if (now < t->next_timer_ms)
    return;
  t->next_timer_ms = now + TCP_TIMER_MS;
  if (t->listen_paused && now >= t->listen_resume_ms) {
    t->listen_paused = 0;
    tcp_conn_watch(t, t->listener, EPOLLIN);
  }
  if (t->handshakes > 0)
    tcp_expire_handshakes(t, now);
  for (int p = 0; t->retrying > 0 && p < t->world_size; p++)
    if (t->peers[p].state == TCP_PEER_RETRY && now >= t->peers[p].retry_ms)
      tcp_start_connect(t, p);
}

/* The engine waits for p: our attempt opens now, so that a peer that died
 * before sending anything is told by its refused connect. */
static void tcp_watch(void *ctx, int p) {
  tcp_ctx_t *t = ctx;
  if (t == NULL || t->peers == NULL || p < 0 || p >= t->world_size ||
      p == t->world_rank)
    return;
  if (t->peers[p].state == TCP_PEER_IDLE && t->peers[p].has_addr)
    tcp_start_connect(t, p);
}

/* ---- progress / wait -------------------------------------------------- */

/* Returns what moved for the engine: packets, or a connection that came
 * up (its queue then flows).  Set-up steps alone are no progress, so that
 * a wait stalled in them sleeps, and its watchdog looks. */
static int tcp_dispatch(tcp_ctx_t *t, tcp_conn_t *c, uint32_t ev) {
  switch (c->state) {
  case TCP_CONN_DEAD:
    return 0;
  case TCP_CONN_CONNECTING:
    tcp_on_connected(t, c);
    return 0;
  case TCP_CONN_HELLO_SENT:
    tcp_on_challenge(t, c);
    return 0;
  case TCP_CONN_RESP_SENT:
    tcp_on_reply(t, c);
    return c->state == TCP_CONN_UP;
  case TCP_CONN_HELLO_WAIT:
    tcp_on_hello(t, c);
    return 0;
  case TCP_CONN_RESP_WAIT:
    tcp_on_response(t, c);
    return c->state == TCP_CONN_UP;
  default:
    break;
  }
  if (c == t->listener) {
    tcp_on_listen(t);
    return 0;
  }
  int moved = 0;
  if (ev & (EPOLLIN | EPOLLERR | EPOLLHUP))
    moved += tcp_read_peer(t, c->peer);
  if ((ev & EPOLLOUT) && c->state == TCP_CONN_UP)
    moved += tcp_flush(t, c->peer);
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
    tcp_timers(t);
  if (t->closed_some)
    tcp_conns_sweep(t);
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
      tcp_flush(t, p);
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
