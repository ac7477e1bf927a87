/*
 * The verbs transport's second set-up round.  Its ops table (transport.h)
 * covers one address per rank; an RC queue pair is per pair of ranks, so
 * the engine runs a second exchange through the launcher's KVS:
 *   connect(peer, address)      creates the QP toward peer (state INIT,
 *                               receives posted) from its device address;
 *   hc_verbs_pair_address       this rank's QPN and PSN for that peer;
 *   hc_verbs_pair_connect       the peer's QPN/PSN for this rank: the QP
 *                               goes to RTR and RTS.
 * Only then does hc_verbs_ready say the peer is served.
 */
#ifndef HC_TRANSPORT_VERBS_H
#define HC_TRANSPORT_VERBS_H

#include <stddef.h>

#include "hcomm.h"

/* Writes "<qpn>.<psn>" for peer; HC_ERR_STATE when connect did not run. */
hc_status_t hc_verbs_pair_address(void *ctx, int peer, char *buf, size_t len);
/* Moves the QP toward peer to RTS with the peer's "<qpn>.<psn>". */
hc_status_t hc_verbs_pair_connect(void *ctx, int peer, const char *pair_addr);
/* 1 when the QP toward peer reached RTS (the peer may still fail later). */
int hc_verbs_ready(void *ctx, int peer);

#endif /* HC_TRANSPORT_VERBS_H */
