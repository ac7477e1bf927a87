/*
 * The tcp transport's choice of the address it listens on (and publishes).
 */
#ifndef HC_TRANSPORT_TCP_IP_H
#define HC_TRANSPORT_TCP_IP_H

#include <ifaddrs.h>
#include <netinet/in.h>

#include "hcomm_status.h"

/* Picks from list (getifaddrs' output), by precedence: the first UP IPv4
 * address matching spec (HCMPI_TCP_IF: interface name or a.b.c.d/n; none
 * matching is HC_ERR_TRANSPORT); else reached (the address that reached
 * the launcher over TCP) when it is not loopback and sits on an UP
 * interface of list, since the launcher proved that network routable;
 * else the first UP non-loopback IPv4 address; else 127.0.0.1.  spec and
 * reached may be NULL.  Writes *ip only on HC_OK. */
hc_status_t hc_tcp_choose_ip(const struct ifaddrs *list, const char *spec,
                             const char *reached, struct in_addr *ip);
/* hc_tcp_choose_ip over this host's interfaces and HCMPI_TCP_IF;
 * HC_ERR_SYSTEM when they cannot be listed. */
hc_status_t hc_tcp_choose_own_ip(const char *reached, struct in_addr *ip);

#endif
