/*
 * hcmpi_info: what this hcmpi build is and what it would use here.
 * Sections: version, configure, transports, devices, bootstrap,
 * environment.  --mpit lists the MPI_T variables, categories and events.
 * --env-markdown prints docs/environment.md (generated from
 * the same table, so the doc and this output cannot drift).
 */
#include "config.h"

#include <dlfcn.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "device/query.h"
#include "mpi.h"
#include "tools/hcmpi_info_config.h"
#include "tools/hcmpi_info_mpit.h"
#include "transport/transport.h"
#include "util/cpu_profile.h"
#include "util/env.h"
#include "util/envtable.h"

static void info_section(const char *title) { printf("\n[%s]\n", title); }

static void info_version(void) {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  info_section("version");
  printf("  hcmpi            %s\n", PACKAGE_VERSION);
  printf("  MPI standard     %d.%d (MPICH 4.x ABI: libmpi.so.12)\n",
         MPI_VERSION, MPI_SUBVERSION);
  if (MPI_Get_library_version(lib, &len) == MPI_SUCCESS)
    printf("  library          %s\n", lib);
}

static void info_configure(void) {
  info_section("configure");
  printf("  options          %s\n",
         HC_INFO_CONFIGURE_ARGS[0] ? HC_INFO_CONFIGURE_ARGS : "(none)");
  printf("  prefix           %s\n", HC_INFO_PREFIX);
  printf("  compiler         %s\n", HC_INFO_CC);
}

/* Same rule as the engine: HCMPI_TRANSPORTS unset means all. */
static int info_transport_enabled(const char *name) {
  const char *list = hc_env_string("HCMPI_TRANSPORTS", NULL);
  if (list == NULL || strcmp(name, "self") == 0)
    return 1;
  size_t n = strlen(name);
  for (const char *p = list; *p != '\0';) {
    size_t len = strcspn(p, ",");
    if (len == n && strncmp(p, name, n) == 0)
      return 1;
    p += len;
    p += (*p == ',');
  }
  return 0;
}

static int info_have_ipv4(char *name, size_t len) {
  struct ifaddrs *list;
  if (getifaddrs(&list) != 0)
    return 0;
  int found = 0;
  for (struct ifaddrs *ifa = list; ifa != NULL; ifa = ifa->ifa_next) {
    if (ifa->ifa_addr == NULL || ifa->ifa_addr->sa_family != AF_INET ||
        !(ifa->ifa_flags & IFF_UP))
      continue;
    /* Prefer a non-loopback interface, as the transport does. */
    if (!found || !(ifa->ifa_flags & IFF_LOOPBACK))
      snprintf(name, len, "%s", ifa->ifa_name);
    found = 1;
    if (!(ifa->ifa_flags & IFF_LOOPBACK))
      break;
  }
  freeifaddrs(list);
  return found;
}

static const char *info_cma_state(void) {
  FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
  int scope = 0;
  if (f != NULL) {
    if (fscanf(f, "%d", &scope) != 1)
      scope = 0;
    fclose(f);
  }
  if (!hc_env_bool("HCMPI_SHM_CMA", 1))
    return "off (HCMPI_SHM_CMA=0)";
  return scope >= 2 ? "refused (yama ptrace_scope >= 2: pipelined copy)"
                    : "single-copy CMA";
}

/* A size as a user would write it: 4m, 64k, 100. */
static void info_size_text(size_t bytes, char *text, size_t len) {
  if (bytes != 0 && bytes % ((size_t)1 << 30) == 0)
    snprintf(text, len, "%zug", bytes >> 30);
  else if (bytes != 0 && bytes % ((size_t)1 << 20) == 0)
    snprintf(text, len, "%zum", bytes >> 20);
  else if (bytes != 0 && bytes % ((size_t)1 << 10) == 0)
    snprintf(text, len, "%zuk", bytes >> 10);
  else
    snprintf(text, len, "%zu", bytes);
}

/* Which processor profile gave the shared-memory thresholds their
 * defaults, and the values they take here (a setting wins). */
static void info_cpu_profile(void) {
  const char *const thresholds[] = {
      "HCMPI_SHM_CMA_MIN", "HCMPI_SHM_CMA_HELP_MIN", "HCMPI_SHM_FAR_READ_MIN",
      "HCMPI_SHM_FAR_CELL_STREAM_MIN", "HCMPI_COLL_SHM_STREAM_MIN"};
  printf("  cpu profile      %s\n", hc_cpu_profile()->name);
  for (size_t i = 0; i < sizeof thresholds / sizeof thresholds[0]; i++) {
    size_t fallback = 0;
    char text[32];
    hc_cpu_profile_default(thresholds[i], &fallback);
    info_size_text(hc_env_size(thresholds[i], fallback), text, sizeof text);
    printf("    %-30s %s%s\n", thresholds[i], text,
           getenv(thresholds[i]) != NULL ? " (set)" : "");
  }
  /* No setting of its own: it caps HCMPI_EAGER_LIMIT's default. */
  char eager[32];
  info_size_text(hc_cpu_profile()->shm_eager_max, eager, sizeof eager);
  printf("    %-30s %s%s\n", "shm eager max", eager,
         getenv("HCMPI_EAGER_LIMIT") != NULL ? " (HCMPI_EAGER_LIMIT set wins)"
                                             : "");
}

static void info_transport_line(const char *name, int usable,
                                const char *detail) {
  printf("  %-6s compiled in, %s%s%s\n", name,
         !info_transport_enabled(name) ? "disabled by HCMPI_TRANSPORTS"
         : usable                      ? "usable"
                                       : "not usable",
         detail[0] ? ": " : "", detail);
}

static void info_transports(void) {
  const hc_transport_ops_t *const all[] = {
      &hc_transport_self_ops, &hc_transport_shm_ops, &hc_transport_tcp_ops};
  char detail[160], ifname[IF_NAMESIZE + 1] = "";
  info_section("transports");
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    const char *name = all[i]->name;
    int usable = 1;
    detail[0] = '\0';
    if (strcmp(name, "shm") == 0) {
      int fd = memfd_create("hcmpi-info", 0);
      usable = fd >= 0 || access("/dev/shm", W_OK) == 0;
      if (fd >= 0)
        close(fd);
      snprintf(detail, sizeof detail, "rendezvous %s", info_cma_state());
    } else if (strcmp(name, "tcp") == 0) {
      usable = info_have_ipv4(ifname, sizeof ifname);
      snprintf(detail, sizeof detail, "interface %s",
               hc_env_string("HCMPI_TCP_IF", ifname[0] ? ifname : "none"));
    }
    info_transport_line(name, usable, detail);
  }
  info_cpu_profile();
#ifdef HC_HAVE_VERBS
  /* Usable when the library it dlopens at init is there; whether an HCA
   * is active only MPI_Init finds out. */
  const char *lib = hc_env_string("HCMPI_VERBS_LIB", "libibverbs.so.1");
  void *verbs = dlopen(lib, RTLD_LAZY | RTLD_LOCAL);
  snprintf(detail, sizeof detail, "%s %s", lib, verbs ? "loads" : "not found");
  if (verbs != NULL)
    dlclose(verbs);
  info_transport_line("verbs", verbs != NULL, detail);
#else
  printf("  verbs  not compiled in (configure found no infiniband/verbs.h)\n");
#endif
}

static void info_device(const char *label, hc_mem_kind_t kind) {
  hc_device_query_t q;
  hc_device_query(kind, &q);
  if (!q.loaded) {
    printf("  %-5s not found (%s)\n", label, q.error);
    return;
  }
  printf("  %-5s library %s, version %s, ", label, q.path, q.version);
  if (q.usable)
    printf("%d device(s)\n", q.count);
  else
    printf("not usable (%s)\n", q.error);
}

static void info_devices(void) {
  info_section("devices");
  printf("  HCMPI_DEVICE=%s, HCMPI_DEVICE_PATH=%s\n",
         hc_env_string("HCMPI_DEVICE", "auto"),
         hc_env_string("HCMPI_DEVICE_PATH", "auto"));
  info_device("acl", HC_MEM_ACL);
  info_device("cuda", HC_MEM_CUDA);
}

static void info_bootstrap(void) {
  const hc_bootstrap_ops_t *ops = hc_bootstrap_select();
  info_section("bootstrap");
  printf("  would use        %s%s\n", ops->name,
         hc_env_string("HCMPI_BOOTSTRAP", NULL) ? " (HCMPI_BOOTSTRAP)"
                                                : " (detected)");
  printf("  available        pmi1 (hcmpirun, Hydra), pmi2 (Slurm), pmix "
         "(dlopen), singleton\n");
}

/* The current value of a variable as shown; a secret is never echoed (a
 * terminal log or a pasted bug report would carry it). */
static const char *info_env_shown(const char *name) {
  const char *now = getenv(name);
  if (now == NULL)
    return "-";
  if (strcmp(name, "HCMPI_JOB_SECRET") == 0)
    return "set (hidden)";
  return now;
}

static void info_environment(void) {
  info_section("environment");
  printf("  %-22s %-16s %-16s %s\n", "variable", "default", "current",
         "meaning");
  for (size_t i = 0; i < hc_env_table_count; i++) {
    const hc_env_entry_t *e = &hc_env_table[i];
    printf("  %-22s %-16s %-16s %s\n", e->name, e->fallback,
           info_env_shown(e->name), e->meaning);
  }
}

static void info_markdown(void) {
  printf("# Environment variables\n\n"
         "<!-- Generated by `hcmpi_info --env-markdown` from "
         "src/util/envtable.c\n"
         "     (`make environment-doc`); edit the table, not this file. -->\n\n"
         "Every tunable of hcmpi is an `HCMPI_*` environment variable. "
         "Unset or\nempty means the default. Sizes accept a k, m or g suffix "
         "(powers of 1024);\nbooleans accept 1/yes/true/on and "
         "0/no/false/off. `hcmpi_info` prints\nthis table with the values "
         "currently set.\n\n"
         "| Variable | Default | Read by | Meaning |\n|---|---|---|---|\n");
  for (size_t i = 0; i < hc_env_table_count; i++) {
    const hc_env_entry_t *e = &hc_env_table[i];
    printf("| `%s` | %s | %s | %s |\n", e->name, e->fallback, e->scope,
           e->meaning);
  }
  printf("\n## Ranges\n\n"
         "A numeric variable set to something that is not a number, or to a "
         "number\noutside its range, is refused: `MPI_Init` fails with "
         "`MPI_ERR_ARG` and a\nline naming the variable, its value and the "
         "range (hcmpirun, for its own,\nsays so and exits 1).\n\n"
         "| Variable | Smallest | Largest |\n|---|---|---|\n");
  for (const hc_env_bounds_t *b = hc_env_bounds;
       b < hc_env_bounds + hc_env_bounds_count; b++)
    printf("| `%s` | %lld | %lld%s |\n", b->name, b->min, b->max,
           b->is_size ? " (bytes)" : "");
}

static void info_usage(FILE *f) {
  fprintf(f, "usage: hcmpi_info [--env | --env-markdown | --mpit | --help]\n"
             "  (no option)     every section: version, configure, "
             "transports, devices,\n"
             "                  bootstrap, environment\n"
             "  --env           only the HCMPI_* variables (default, current, "
             "meaning)\n"
             "  --env-markdown  docs/environment.md, generated from the same "
             "table\n"
             "  --mpit          the MPI_T control and performance variables, "
             "categories\n"
             "                  and events (after MPI_Init as a singleton)\n");
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--env-markdown") == 0) {
    info_markdown();
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--mpit") == 0)
    return hc_info_mpit();
  if (argc > 1 && strcmp(argv[1], "--env") == 0) {
    info_environment();
    return 0;
  }
  if (argc > 1) {
    int help = strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0;
    info_usage(help ? stdout : stderr);
    return help ? 0 : 1;
  }
  printf("hcmpi_info: hcmpi %s\n", PACKAGE_VERSION);
  info_version();
  info_configure();
  info_transports();
  info_devices();
  info_bootstrap();
  info_environment();
  return 0;
}
