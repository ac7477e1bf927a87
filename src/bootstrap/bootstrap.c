#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "bootstrap/bootstrap.h"
#include "util/env.h"
#include "util/log.h"

/* Detection order: the innermost launcher wins.  A program that hcmpirun
 * (PMI_FD) starts inside an Open MPI or Slurm PMIx job inherits the outer
 * PMIX_* variables, so the PMI backends are asked first; pmi2 only answers
 * where Slurm's pmi2 plugin is evident, so Hydra gets PMI-1. */
static const hc_bootstrap_ops_t *const hc_bootstrap_backends[] = {
    &hc_bootstrap_pmi2_ops,
    &hc_bootstrap_pmi1_ops,
    &hc_bootstrap_pmix_ops,
    &hc_bootstrap_singleton_ops,
};
#define HC_BOOTSTRAP_NBACKENDS                                                 \
  (sizeof hc_bootstrap_backends / sizeof hc_bootstrap_backends[0])

/* HCMPI_BOOTSTRAP=pmi1|pmi2|pmix|singleton names the backend outright. */
static const hc_bootstrap_ops_t *bootstrap_forced(void) {
  const char *want = hc_env_string("HCMPI_BOOTSTRAP", NULL);
  if (want == NULL || strcmp(want, "auto") == 0)
    return NULL;
  for (size_t i = 0; i < HC_BOOTSTRAP_NBACKENDS; i++)
    if (strcmp(hc_bootstrap_backends[i]->name, want) == 0)
      return hc_bootstrap_backends[i];
  hc_log(HC_LOG_WARN, "bootstrap",
         "HCMPI_BOOTSTRAP=%s is not one of pmi1, pmi2, pmix, singleton, "
         "auto; detecting",
         want);
  return NULL;
}

void hc_bootstrap_launcher_gone(int rank, const char *how) {
  fprintf(stderr, "hcmpi: rank %d: the launcher is gone (%s); ending this rank\n",
          rank, how);
  kill(getpid(), SIGKILL);
}

void hc_bootstrap_info_clear(hc_bootstrap_info_t *info) {
  memset(info, 0, sizeof *info);
  info->rank = -1;
  info->appnum = -1;
  info->universe_size = -1;
  info->local_rank = -1;
  info->local_size = -1;
}

int hc_bootstrap_parse_ranks(const char *list, int *ranks, int max) {
  int n = 0;
  const char *p = list;
  while (*p != '\0') {
    char *end = NULL;
    long lo = strtol(p, &end, 10), hi = lo;
    if (end == p || lo < 0)
      return -1;
    p = end;
    if (*p == '-') {
      hi = strtol(p + 1, &end, 10);
      if (end == p + 1 || hi < lo)
        return -1;
      p = end;
    }
    if (*p != ',' && *p != '\0')
      return -1;
    p += *p == ',';
    for (long r = lo; r <= hi && hi - lo < (1L << 24); r++, n++)
      if (n < max)
        ranks[n] = (int)r;
  }
  return n;
}

void hc_bootstrap_note_socket(int fd, hc_bootstrap_info_t *info) {
  struct sockaddr_in sa;
  socklen_t len = sizeof sa;
  if (getsockname(fd, (struct sockaddr *)&sa, &len) != 0 || len < sizeof sa ||
      sa.sin_family != AF_INET ||
      inet_ntop(AF_INET, &sa.sin_addr, info->reached_ip,
                sizeof info->reached_ip) == NULL)
    return;
  hc_log(HC_LOG_DEBUG, "bootstrap", "launcher reached from %s",
         info->reached_ip);
}

const hc_bootstrap_ops_t *hc_bootstrap_select(void) {
  const hc_bootstrap_ops_t *forced = bootstrap_forced();
  if (forced != NULL)
    return forced;
  for (size_t i = 0; i < HC_BOOTSTRAP_NBACKENDS; i++)
    if (hc_bootstrap_backends[i]->detect())
      return hc_bootstrap_backends[i];
  return &hc_bootstrap_singleton_ops;
}
