/*
 * What the engine asks of the verbs transport beyond its ops table.  A
 * rank's published address is its device address and UD QP, the same for
 * every peer; connect records it, and the RC queue pair toward a peer is
 * negotiated over UD on first use (verbs.c), so start-up costs no QP per
 * peer and no second KVS round.
 */
#ifndef HC_TRANSPORT_VERBS_H
#define HC_TRANSPORT_VERBS_H

#include "hcomm.h"

/* 1 when connect accepted peer's address: verbs serves it (its queue pair
 * may not exist yet, and the peer may fail later). */
int hc_verbs_serves(void *ctx, int peer);

#endif /* HC_TRANSPORT_VERBS_H */
