/*
 * hcmpirun's -bind-to (Hydra's spelling) and --bind-to (Open MPI's): the
 * CPUs each rank may run on.  The launcher's own CPUs (its affinity, so a
 * job inside a cgroup or a Slurm allocation stays there) are grouped into
 * units, in CPU order: a hardware thread each, the threads of one core,
 * or the cores of one socket (physical package).  Rank r is bound to unit
 * r modulo their number, the round-robin placement of Hydra and Open MPI.
 */
#include "config.h" /* _GNU_SOURCE: cpu_set_t */

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcmpirun.h"

/* A topology number of cpu from sysfs, or -1 when it does not say. */
static long bind_topology(int cpu, const char *what) {
  char path[128];
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu,
           what);
  FILE *f = fopen(path, "r");
  long v = -1;
  if (f != NULL) {
    if (fscanf(f, "%ld", &v) != 1)
      v = -1;
    fclose(f);
  }
  return v;
}

/* The unit key of cpu: CPUs with equal keys share a unit. */
static long bind_key(int cpu, int level) {
  if (level == RUN_BIND_HWTHREAD)
    return cpu;
  long package = bind_topology(cpu, "physical_package_id");
  if (level == RUN_BIND_SOCKET)
    return package < 0 ? 0 : package;
  long core = bind_topology(cpu, "core_id");
  if (core < 0) /* no topology: each thread its own core */
    return cpu;
  return (package < 0 ? 0 : package) * 1000000 + core;
}

int run_bind_parse(const char *how, run_bind_t *plan) {
  static const struct {
    const char *name;
    int level;
  } names[] = {{"none", RUN_BIND_NONE},
               {"hwthread", RUN_BIND_HWTHREAD},
               {"core", RUN_BIND_CORE},
               {"socket", RUN_BIND_SOCKET},
               {"package", RUN_BIND_SOCKET}};
  int level = -1;
  for (size_t i = 0; how != NULL && i < sizeof names / sizeof names[0]; i++)
    if (strcmp(how, names[i].name) == 0)
      level = names[i].level;
  if (level < 0) {
    fprintf(stderr,
            "hcmpirun: -bind-to %s: binds to none, hwthread, core or socket\n",
            how != NULL ? how : "");
    return -1;
  }
  free(plan->units);
  plan->units = NULL;
  plan->nunits = 0;
  if (level == RUN_BIND_NONE)
    return 0;
  cpu_set_t mine;
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) {
    perror("hcmpirun: sched_getaffinity");
    return -1;
  }
  int ncpus = CPU_COUNT(&mine);
  plan->units = calloc((size_t)ncpus, sizeof *plan->units);
  long *keys = calloc((size_t)ncpus, sizeof *keys);
  if (plan->units == NULL || keys == NULL) {
    free(keys);
    fprintf(stderr, "hcmpirun: out of memory\n");
    return -1;
  }
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &mine))
      continue;
    long key = bind_key(cpu, level);
    int u = 0;
    while (u < plan->nunits && keys[u] != key)
      u++;
    if (u == plan->nunits) {
      keys[u] = key;
      CPU_ZERO(&plan->units[u]);
      plan->nunits++;
    }
    CPU_SET(cpu, &plan->units[u]);
  }
  free(keys);
  return 0;
}

void run_bind_apply(const run_bind_t *plan, int rank) {
  if (plan->nunits == 0)
    return;
  const cpu_set_t *unit = &plan->units[rank % plan->nunits];
  /* A refusal (a seccomp filter, say) leaves the rank unbound, not dead. */
  if (sched_setaffinity(0, sizeof *unit, unit) != 0)
    perror("hcmpirun: sched_setaffinity");
}
