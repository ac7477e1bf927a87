/*
 * The tcp transport's own header: the context, the connection and peer
 * records and the handshake's first messages, which its files share, and
 * the calls they make across files.  tcp.c holds the ops, sending,
 * receiving, progress and fini; tcp_conn.c the byte FIFOs and the
 * bookkeeping of connections and peer states; tcp_connect.c our connection
 * attempts, their back-offs, descriptor shortage and the set-up timers;
 * tcp_handshake.c the job secret, accept and the authenticated handshake;
 * tcp_ip.c the choice of the address to listen on.  Nothing outside
 * src/transport/tcp includes it: the rest of the library sees the
 * transport through hc_transport_tcp_ops (and tests through tcp_auth.h and
 * tcp_ip.h).
 */
#ifndef HC_TRANSPORT_TCP_IMPL_H
#define HC_TRANSPORT_TCP_IMPL_H

#include <netinet/in.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <time.h>

#include "transport/tcp/tcp_auth.h"
#include "transport/transport.h"
#include "util/sha256.h"

/* The largest packet head the engine may ask to see before it places a
 * payload (tcp.c's placement). */
#define TCP_PLACE_HEAD_MAX 256
#define TCP_AUTH_BYTES 32 /* a nonce; also the size of a MAC */
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
  /* Set-up limits and timers (tcp_connect.c). */
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

/* ---- inline helpers: the send and receive paths call them ------------- */

/* Plain static inline, as they were static in one tcp.c, and the LTO build
 * inlines every call: always_inline changed the inliner's order enough to
 * lay tcp_send out 32 bytes longer. */

static inline void tcp_fifo_consume(tcp_fifo_t *q, size_t n) {
  q->head += n;
  q->len -= n;
  if (q->len == 0)
    q->head = 0;
}

static inline void tcp_conn_watch(tcp_ctx_t *t, tcp_conn_t *c,
                                  uint32_t events) {
  if (c->state == TCP_CONN_DEAD || c->events == events)
    return;
  struct epoll_event ev = {.events = events, .data.ptr = c};
  if (epoll_ctl(t->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
    c->events = events;
}

/* An accepted connection that has not finished its handshake. */
static inline int tcp_conn_in_handshake(const tcp_conn_t *c) {
  return c->kind == TCP_KIND_IN &&
         (c->state == TCP_CONN_HELLO_WAIT || c->state == TCP_CONN_RESP_WAIT);
}

/* Every change of a peer's state, so the count of retrying peers holds. */
static inline void tcp_peer_set(tcp_ctx_t *t, tcp_peer_t *peer, int state) {
  if (peer->state == TCP_PEER_RETRY)
    t->retrying--;
  if (state == TCP_PEER_RETRY)
    t->retrying++;
  peer->state = state;
}

static inline long tcp_clock_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- tcp.c ------------------------------------------------------------ */

/* Writes p's send queue out as far as the socket takes it; 1 when bytes
 * moved. */
int hc_tcp_flush(tcp_ctx_t *t, int p);

/* ---- tcp_conn.c ------------------------------------------------------- */

/* TCP_NODELAY and the socket buffer sizes of HCMPI_TCP_SOCKBUF. */
void hc_tcp_tune_socket(const tcp_ctx_t *t, int fd);
/* Room for more bytes after q's last, moving or growing the buffer. */
hc_status_t hc_tcp_fifo_reserve(tcp_fifo_t *q, size_t more);
/* A conn in the epoll set and the context's list; NULL (fd left open) when
 * either fails. */
tcp_conn_t *hc_tcp_conn_new(tcp_ctx_t *t, int fd, int kind, int state, int peer,
                            uint32_t events);
/* Closes now, frees later: the conn may still sit in this round's events.
 * NULL and closed conns are left alone. */
void hc_tcp_conn_close(tcp_ctx_t *t, tcp_conn_t *c);
/* Frees the closed conns. */
void hc_tcp_conns_sweep(tcp_ctx_t *t);
/* The peer is lost for good, for cause (HC_ERR_PEER_*); why and err
 * (errno, 0 for none) go to the log. */
void hc_tcp_peer_fail(tcp_ctx_t *t, int p, hc_status_t cause, const char *why,
                      int err);

/* ---- tcp_connect.c ---------------------------------------------------- */

/* 1 the first time this rank meets note (TCP_NOTE_*). */
int hc_tcp_first(tcp_ctx_t *t, unsigned note);
/* Closes the accepted connection in its handshake that goes first (one
 * without a HELLO, then the oldest); 0 when there is none. */
int hc_tcp_evict_oldest(tcp_ctx_t *t);
/* call failed with EMFILE or ENFILE: says so once, then an accepted
 * connection in its handshake gives its descriptor back; 1 when one did. */
int hc_tcp_fds_exhausted(tcp_ctx_t *t, const char *call, int err);
/* The next back-off of peer's attempts (counts the try). */
long hc_tcp_backoff_ms(tcp_peer_t *peer);
/* Closes our attempt on p; the next starts in delay_ms. */
void hc_tcp_retry_later(tcp_ctx_t *t, int p, long delay_ms);
/* Opens our attempt on p; what goes wrong ends in RETRY or FAILED. */
void hc_tcp_start_connect(tcp_ctx_t *t, int p);
/* Out of descriptors with none to give back: the listener rests. */
void hc_tcp_listen_pause(tcp_ctx_t *t, int err);
/* Deadlines and back-offs that are due; progress calls it while any is
 * pending. */
void hc_tcp_timers(tcp_ctx_t *t);

/* ---- tcp_handshake.c -------------------------------------------------- */

/* The set-up steps, one per state of c, each run on an epoll event of c
 * (tcp.c's tcp_dispatch picks by state).  Connector: connect finished
 * (CONNECTING: sends the HELLO), the challenge came (HELLO_SENT: checks
 * it, answers), the verdict came (RESP_SENT: ACK makes c the peer's).
 * Acceptor: the HELLO came (HELLO_WAIT: sends the challenge), the answer
 * came (RESP_WAIT: a right one makes c the peer's, if it wins).  Each may
 * close c, retry or fail the peer. */
void hc_tcp_on_connected(tcp_ctx_t *t, tcp_conn_t *c);
void hc_tcp_on_challenge(tcp_ctx_t *t, tcp_conn_t *c);
void hc_tcp_on_reply(tcp_ctx_t *t, tcp_conn_t *c);
void hc_tcp_on_hello(tcp_ctx_t *t, tcp_conn_t *c);
void hc_tcp_on_response(tcp_ctx_t *t, tcp_conn_t *c);
/* The listener is readable: accepts a batch and reads their HELLOs. */
void hc_tcp_on_listen(tcp_ctx_t *t);

#endif
