/*
 * The tcp transport's per-job secret (see the set-up comment in
 * tcp_handshake.c).  The engine hands it over (the set_secret op) when
 * the launcher did not: rank 0 makes one, publishes it in the bootstrap
 * KVS, every rank sets it before the first connection can be served.
 */
#ifndef HC_TRANSPORT_TCP_AUTH_H
#define HC_TRANSPORT_TCP_AUTH_H

#include <stddef.h>

#define HC_TCP_SECRET_BYTES 32
#define HC_TCP_SECRET_HEX (2 * HC_TCP_SECRET_BYTES + 1)

/* Sets the secret from 64 hex digits; 0, or -1 (nothing changed) when hex
 * is not that. */
int hc_tcp_set_secret(void *ctx, const char *hex);
/* 1 when a secret is set (HCMPI_JOB_SECRET at init, or hc_tcp_set_secret). */
int hc_tcp_has_secret(const void *ctx);

#endif
