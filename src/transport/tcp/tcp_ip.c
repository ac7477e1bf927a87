/*
 * The tcp transport's choice of the IPv4 address it listens on and
 * publishes (tcp_ip.h has the precedence).  Separate from tcp.c because
 * it reads interfaces, not sockets, and a unit test drives
 * hc_tcp_choose_ip with made-up interface lists.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "transport/tcp/tcp_ip.h"
#include "util/env.h"
#include "util/log.h"

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

hc_status_t hc_tcp_choose_own_ip(const char *reached, struct in_addr *ip) {
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
