/*
 * Process names across jobs (core.h's hc_proc_name_t).
 *
 * Engine peer numbers are private to a process: the world's ranks, then
 * the processes met at run time in the order this process met them.  Two
 * jobs that build a communicator together (MPI_Intercomm_create through a
 * spawn's or a connect's intercommunicator) swap names instead, and each
 * side turns them back into its own peer numbers here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm/core.h"
#include "util/secret.h"

#define PROCNAME_KEY "hc-job-0" /* "-0": rank 0 holds it (PMIx's owner) */

static hc_status_t procname_key_new(uint64_t *job) {
  char hex[HC_SECRET_HEX];
  if (hc_secret_new(hex, sizeof hex) != 0)
    return HC_ERR_SYSTEM;
  hex[16] = '\0';
  *job = strtoull(hex, NULL, 16);
  return HC_OK;
}

hc_status_t hc_procname_share(int before_fence) {
  const hc_bootstrap_ops_t *boot = hc_engine.boot;
  char value[HC_BOOTSTRAP_VALUE_MAX];
  int maker = hc_engine.world_rank == 0 || hc_engine.world_size == 1;
  if (before_fence != maker)
    return HC_OK;
  if (maker) {
    hc_status_t rc = procname_key_new(&hc_engine.job);
    if (rc != HC_OK || hc_engine.world_size == 1)
      return rc;
    snprintf(value, sizeof value, "%016" PRIx64, hc_engine.job);
    return boot->put(hc_engine.boot_ctx, PROCNAME_KEY, value);
  }
  hc_status_t rc =
      boot->get(hc_engine.boot_ctx, PROCNAME_KEY, value, sizeof value);
  if (rc == HC_OK) {
    char *end = NULL;
    hc_engine.job = strtoull(value, &end, 16);
    if (end == value || *end != '\0')
      rc = HC_ERR_BOOTSTRAP;
  }
  return rc;
}

hc_proc_name_t hc_peer_name(int peer) {
  if (peer < hc_engine.world_size)
    return (hc_proc_name_t){hc_engine.job, peer, 0};
  return hc_engine.peers[peer].name;
}

int hc_peer_of_name(const hc_proc_name_t *name) {
  if (name->job == hc_engine.job)
    return name->rank >= 0 && name->rank < hc_engine.world_size ? name->rank
                                                                : -1;
  for (int p = hc_engine.world_size; p < hc_engine.npeers; p++) {
    const hc_peer_t *peer = &hc_engine.peers[p];
    if (!peer->failed && peer->ops != NULL && peer->name.job == name->job &&
        peer->name.rank == name->rank)
      return p;
  }
  return -1;
}

int hc_proc_name_cmp(const hc_proc_name_t *a, const hc_proc_name_t *b) {
  if (a->job != b->job)
    return a->job < b->job ? -1 : 1;
  return (a->rank > b->rank) - (a->rank < b->rank);
}

int hc_proc_names_span_jobs(const hc_proc_name_t *a, int na,
                            const hc_proc_name_t *b, int nb) {
  uint64_t job = na > 0 ? a[0].job : nb > 0 ? b[0].job : 0;
  for (int i = 0; i < na; i++)
    if (a[i].job != job)
      return 1;
  for (int i = 0; i < nb; i++)
    if (b[i].job != job)
      return 1;
  return 0;
}
