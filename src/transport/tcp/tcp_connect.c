/*
 * The tcp transport's connection attempts and what bounds set-up: our
 * connect to a peer, its back-offs, the shortage of descriptors, the
 * deadline and cap of accepted connections still in their handshake, and
 * the timers that drive all of these from progress.  Separate from the
 * handshake (tcp_handshake.c), which says what a connection is; this file
 * says when one is tried again, given up or closed.
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
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport/tcp/tcp_impl.h"
#include "util/log.h"

/* Back-off after an attempt that could not start or was closed before its
 * verdict, and of a listener out of descriptors: doubling from MIN. */
#define TCP_BACKOFF_MIN_MS 10
#define TCP_BACKOFF_MAX_MS 1000

/* 1 the first time this rank meets note. */
int hc_tcp_first(tcp_ctx_t *t, unsigned note) {
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
int hc_tcp_evict_oldest(tcp_ctx_t *t) {
  tcp_conn_t *first = NULL;
  for (tcp_conn_t *c = t->conns; c != NULL; c = c->next)
    if (tcp_conn_in_handshake(c) &&
        (first == NULL || tcp_evict_before(c, first)))
      first = c;
  if (first == NULL)
    return 0;
  hc_tcp_conn_close(t, first);
  return 1;
}

/* call failed with EMFILE or ENFILE.  Said once per rank on stderr
 * whatever HCMPI_LOG is, since the job may stall on it; then an accepted
 * connection still in its handshake gives its descriptor back.  1 when
 * one did. */
int hc_tcp_fds_exhausted(tcp_ctx_t *t, const char *call, int err) {
  if (hc_tcp_first(t, TCP_NOTE_FDS))
    fprintf(stderr,
            "hcmpi: rank %d: out of file descriptors (%s: %s); tcp closes "
            "connections that have not authenticated and retries; raise "
            "the limit (ulimit -n)\n",
            t->world_rank, call, strerror(err));
  return hc_tcp_evict_oldest(t);
}

long hc_tcp_backoff_ms(tcp_peer_t *peer) {
  int k = peer->tries < 7 ? peer->tries : 7;
  peer->tries++;
  long ms = (long)TCP_BACKOFF_MIN_MS << k;
  return ms < TCP_BACKOFF_MAX_MS ? ms : TCP_BACKOFF_MAX_MS;
}

/* Our attempt on p could not start, or ended before the acceptor's
 * verdict, while the peer may well live: the next starts in delay_ms. */
void hc_tcp_retry_later(tcp_ctx_t *t, int p, long delay_ms) {
  tcp_peer_t *peer = &t->peers[p];
  hc_tcp_conn_close(t, peer->out);
  peer->out = NULL;
  peer->retry_ms = tcp_clock_ms() + delay_ms;
  tcp_peer_set(t, peer, TCP_PEER_RETRY);
}

/* Opens our attempt on p.  What goes wrong ends in RETRY (scarce
 * resources) or FAILED (a refused connect: nobody listens there). */
void hc_tcp_start_connect(tcp_ctx_t *t, int p) {
  tcp_peer_t *peer = &t->peers[p];
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0 && (errno == EMFILE || errno == ENFILE) &&
      hc_tcp_fds_exhausted(t, "socket", errno))
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int err = fd < 0 ? errno : 0;
  if (fd >= 0) {
    hc_tcp_tune_socket(t, fd);
    if (connect(fd, (struct sockaddr *)&peer->addr, sizeof peer->addr) != 0 &&
        errno != EINPROGRESS)
      err = errno;
  }
  if (err == 0) {
    peer->out =
        hc_tcp_conn_new(t, fd, TCP_KIND_OUT, TCP_CONN_CONNECTING, p, EPOLLOUT);
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
    hc_tcp_retry_later(t, p, hc_tcp_backoff_ms(peer));
  } else {
    hc_tcp_peer_fail(t, p, HC_ERR_PEER_DEAD, "connect", err);
  }
}

/* Out of descriptors (or buffers) with none to give back: the listener
 * rests for a back-off instead of waking every poll. */
void hc_tcp_listen_pause(tcp_ctx_t *t, int err) {
  long ms = t->listen_backoff_ms * 2;
  ms = ms < TCP_BACKOFF_MIN_MS ? TCP_BACKOFF_MIN_MS : ms;
  t->listen_backoff_ms = ms < TCP_BACKOFF_MAX_MS ? ms : TCP_BACKOFF_MAX_MS;
  t->listen_resume_ms = tcp_clock_ms() + t->listen_backoff_ms;
  t->listen_paused = 1;
  tcp_conn_watch(t, t->listener, 0);
  hc_log(HC_LOG_DEBUG, "tcp", "accept: %s; listener rests %ld ms",
         strerror(err), t->listen_backoff_ms);
}

/* Handshake deadlines: accepted connections past theirs are closed. */
static void tcp_expire_handshakes(tcp_ctx_t *t, long now) {
  for (tcp_conn_t *c = t->conns; c != NULL; c = c->next) {
    if (!tcp_conn_in_handshake(c) || now - c->born_ms < t->handshake_ms)
      continue;
    if (hc_tcp_first(t, TCP_NOTE_DEADLINE))
      hc_log(HC_LOG_WARN, "tcp",
             "closed a connection that did not authenticate within %ld ms "
             "(HCMPI_TCP_HANDSHAKE_MS)",
             t->handshake_ms);
    hc_tcp_conn_close(t, c);
  }
}

/* Deadlines and back-offs, every TCP_TIMER_MS at most. */
void hc_tcp_timers(tcp_ctx_t *t) {
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
      hc_tcp_start_connect(t, p);
}
