/*
 * The tcp transport's authenticated handshake: the job secret, accept,
 * and the steps of the state machine that turns a connected socket into
 * the one that carries a pair's packets, or closes it (tcp.c's
 * tcp_dispatch runs the step of a connection's state).  Separate from
 * tcp.c because no packet crosses a connection before this file hands it
 * over (tcp_peer_up), and from tcp_connect.c, which decides when an
 * attempt is tried again or given up.
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
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport/tcp/tcp_auth.h"
#include "transport/tcp/tcp_impl.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/sha256.h"

#define TCP_MAGIC 0x68637463u /* "hctc" */
#define TCP_VERSION 1
#define TCP_REPLY_ACK 0x41434b21u
#define TCP_REPLY_NACK 0x4e41434bu
/* The answer to a HELLO of another job size or protocol version. */
#define TCP_REPLY_REFUSE 0x52465344u
/* Connections one progress call accepts, so that a flood cannot keep the
 * HELLOs of those accepted from being read. */
#define TCP_ACCEPT_BATCH 16

/* ---- the job secret ---------------------------------------------------- */

int hc_tcp_set_secret(void *ctx, const char *hex) {
  tcp_ctx_t *t = ctx;
  unsigned char k[HC_TCP_SECRET_BYTES];
  if (t == NULL || hex == NULL || strlen(hex) != 2 * HC_TCP_SECRET_BYTES)
    return -1;
  for (size_t i = 0; i < HC_TCP_SECRET_BYTES; i++) {
    int hi = hc_hex_digit(hex[2 * i]), lo = hc_hex_digit(hex[2 * i + 1]);
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
    hc_tcp_conn_close(t, peer->out);
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
  hc_tcp_flush(t, p);
}

/* Connector: our attempt broke during set-up with err (0: closed).  The
 * acceptor closing it before its verdict (its deadline or cap, or its
 * death) earns another attempt, which a dead peer's listener refuses;
 * anything else means the peer cannot be reached. */
static void tcp_attempt_broke(tcp_ctx_t *t, tcp_conn_t *c, int err) {
  int p = c->peer;
  if (err == 0 || err == ECONNRESET || err == EPIPE) {
    hc_log(HC_LOG_DEBUG, "tcp", "rank %d: closed during set-up; retrying", p);
    hc_tcp_retry_later(t, p, hc_tcp_backoff_ms(&t->peers[p]));
  } else {
    hc_tcp_peer_fail(t, p, HC_ERR_PEER_DEAD, "connect", err);
  }
}

/* Connector: connect finished; check it and send the HELLO. */
void hc_tcp_on_connected(tcp_ctx_t *t, tcp_conn_t *c) {
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
void hc_tcp_on_challenge(tcp_ctx_t *t, tcp_conn_t *c) {
  int r = tcp_read_handshake(c, sizeof(tcp_challenge_t));
  if (r == 0)
    return;
  uint32_t refuse = TCP_REPLY_REFUSE;
  if (r < 0 && c->hs_got == sizeof refuse &&
      memcmp(c->hs, &refuse, sizeof refuse) == 0) {
    hc_tcp_peer_fail(t, c->peer, HC_ERR_PEER_AUTH,
                     "HELLO refused (another job size or hcmpi version)",
                     EPROTO);
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
    hc_tcp_peer_fail(t, c->peer, HC_ERR_PEER_AUTH,
                     "authentication failed (wrong job secret)", EACCES);
    return;
  }
  tcp_mac(t, 'C', ch.nonce, t->world_rank, c->peer, answer);
  if (send(c->fd, answer, sizeof answer, MSG_NOSIGNAL) !=
      (ssize_t)sizeof answer) {
    tcp_attempt_broke(t, c, errno ? errno : EPROTO);
    return;
  }
  c->hs_got = 0;
  c->state = TCP_CONN_RESP_SENT;
}

/* Connector: ACK makes the socket the pair's; NACK means we lost a race:
 * the peer's own connection comes instead, or ours again after the
 * handshake deadline. */
void hc_tcp_on_reply(tcp_ctx_t *t, tcp_conn_t *c) {
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
    hc_tcp_retry_later(t, c->peer, t->handshake_ms);
  else
    hc_tcp_peer_fail(t, c->peer, HC_ERR_PEER_AUTH, "bad handshake reply",
                     EPROTO);
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
void hc_tcp_on_hello(tcp_ctx_t *t, tcp_conn_t *c) {
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
    hc_tcp_conn_close(t, c);
    return;
  }
  tcp_challenge_t ch;
  if (tcp_random(c->nonce, sizeof c->nonce) != 0) {
    hc_tcp_conn_close(t, c);
    return;
  }
  memcpy(ch.nonce, c->nonce, sizeof ch.nonce);
  tcp_mac(t, 'A', hello.auth, hello.rank, t->world_rank, ch.mac);
  if (send(c->fd, &ch, sizeof ch, MSG_NOSIGNAL) != (ssize_t)sizeof ch) {
    hc_tcp_conn_close(t, c);
    return;
  }
  c->claimed = hello.rank;
  c->hs_got = 0;
  c->state = TCP_CONN_RESP_WAIT;
}

/* Acceptor: a right answer makes the connection a peer's (if it wins). */
void hc_tcp_on_response(tcp_ctx_t *t, tcp_conn_t *c) {
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
    hc_tcp_conn_close(t, c);
    return;
  }
  int wins = tcp_accept_wins(t, p);
  uint32_t reply = wins ? TCP_REPLY_ACK : TCP_REPLY_NACK;
  if (send(c->fd, &reply, sizeof reply, MSG_NOSIGNAL) != (ssize_t)sizeof reply)
    wins = 0;
  if (!wins) {
    hc_tcp_conn_close(t, c);
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
    if (hc_tcp_first(t, TCP_NOTE_CAP))
      hc_log(HC_LOG_WARN, "tcp",
             "%d connections wait for their handshake (HCMPI_TCP_HANDSHAKES); "
             "closing the oldest",
             t->handshakes);
    hc_tcp_evict_oldest(t);
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  tcp_conn_t *c =
      hc_tcp_conn_new(t, fd, TCP_KIND_IN, TCP_CONN_HELLO_WAIT, -1, EPOLLIN);
  if (c == NULL) {
    close(fd);
    return;
  }
  c->born_ms = tcp_clock_ms();
  t->handshakes++;
  hc_tcp_on_hello(t, c);
}

void hc_tcp_on_listen(tcp_ctx_t *t) {
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
    if ((err == EMFILE || err == ENFILE) &&
        hc_tcp_fds_exhausted(t, "accept", err))
      continue;
    hc_tcp_listen_pause(t, err);
    return;
  }
}
