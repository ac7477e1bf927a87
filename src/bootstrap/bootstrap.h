/*
 * Bootstrap: who the peers are.  A backend tells this process its rank and
 * the job size, and offers a key-value store with a barrier (fence) through
 * which ranks publish their transport addresses.
 */
#ifndef HC_BOOTSTRAP_H
#define HC_BOOTSTRAP_H

#include <stddef.h>

#include "hcomm_status.h"

#define HC_BOOTSTRAP_KEY_MAX 64
#define HC_BOOTSTRAP_VALUE_MAX 1024

#define HC_BOOTSTRAP_NODE_MAX 64
#define HC_BOOTSTRAP_IP_MAX 16 /* "255.255.255.255" and its NUL */
#define HC_BOOTSTRAP_PORT_MAX 256 /* as HCOMM_PORT_NAME_MAX */

/* The key under which a spawning process hands its port to the children
 * through the launcher's key-value space (PMI-1's preput). */
#define HC_BOOTSTRAP_PARENT_PORT_KEY "HCMPI_PARENT_PORT"

typedef struct hc_bootstrap_info {
  int rank;
  int size;
  int appnum;        /* -1 when the launcher gives none */
  int universe_size; /* -1 when unknown */
  /* Placement as the launcher sees it (-1 and "" where it does not say):
   * this rank's index among the job's ranks on its node, their count, and
   * the node's name. */
  int local_rank;
  int local_size;
  char node[HC_BOOTSTRAP_NODE_MAX];
  /* Numeric IPv4 address of this end of the connection to the launcher
   * when that is a TCP socket, else "": an address the launcher's network
   * proved routable, which tcp prefers for its listener. */
  char reached_ip[HC_BOOTSTRAP_IP_MAX];
  /* Started by MPI_Comm_spawn through a launcher that hands over the
   * parents' port itself (Hydra): that port, else "" (hcmpirun passes it
   * in the environment, HCMPI_PARENT_PORT). */
  char parent_port[HC_BOOTSTRAP_PORT_MAX];
  /* The signal the launcher sends the survivors when a process of the job
   * died, kept running (Hydra's -disable-auto-cleanup: SIGUSR1); 0 none.
   * The ops' dead_ranks then says which. */
  int failure_signal;
} hc_bootstrap_info_t;

/* One command of a spawn: nprocs processes running argv (the program and
 * its arguments, NULL-terminated). */
typedef struct hc_bootstrap_spawn {
  const char *const *argv;
  int nprocs;
  const char *wdir; /* NULL: the launcher's own */
} hc_bootstrap_spawn_t;

typedef struct hc_bootstrap_ops {
  const char *name;
  /* 1 when this process was started by this backend's launcher (from the
   * environment only; no I/O). */
  int (*detect)(void);
  /* Connects to the launcher.  On failure *ctx is NULL or accepted by
   * fini. */
  hc_status_t (*init)(void **ctx, hc_bootstrap_info_t *info);
  /* Publishes key=value (no spaces or newlines in either) job-wide.
   * Visible to others only after the next fence. */
  hc_status_t (*put)(void *ctx, const char *key, const char *value);
  /* Collective over the job: a barrier that makes every earlier put
   * visible.  Blocks. */
  hc_status_t (*fence)(void *ctx);
  /* Reads a published value; HC_ERR_BOOTSTRAP when the key is unknown. */
  hc_status_t (*get)(void *ctx, const char *key, char *value, size_t len);
  /* Asks the launcher to end the job with code; may not return. */
  void (*abort)(void *ctx, int code, const char *message);
  /* Says goodbye to the launcher and releases ctx; safe on NULL. */
  void (*fini)(void *ctx);
  /* NULL where the backend's launchers cannot start processes at run
   * time.  Asks the launcher to start the commands' processes as a new job
   * whose processes connect to port (HCMPI_PARENT_PORT, or the info's
   * parent_port); returns once they are started.  HC_ERR_SPAWN when the launcher refused (a program it
   * cannot execute: then nothing was started), HC_ERR_NOT_SUPPORTED when
   * this launcher of the backend cannot spawn.  Blocks. */
  hc_status_t (*spawn)(void *ctx, const hc_bootstrap_spawn_t *cmds, int ncmds,
                       const char *port);
  /* NULL where the launcher keeps no such list.  The job's ranks the
   * launcher saw die (Hydra's PMI_dead_processes), asked afresh: how many,
   * the first max of them into ranks; -1 when it cannot say.  Blocks. */
  int (*dead_ranks)(void *ctx, int *ranks, int max);
} hc_bootstrap_ops_t;

extern const hc_bootstrap_ops_t hc_bootstrap_pmi1_ops;
extern const hc_bootstrap_ops_t hc_bootstrap_singleton_ops;
extern const hc_bootstrap_ops_t hc_bootstrap_pmi2_ops;
extern const hc_bootstrap_ops_t hc_bootstrap_pmix_ops;

/* Sets every field to "unknown" (-1, ""); backends start from it. */
void hc_bootstrap_info_clear(hc_bootstrap_info_t *info);

/* Parses a launcher's rank list ("1,3-5": ranks and ranges, comma
 * separated; "" none): how many, the first max into ranks; -1 when
 * malformed. */
int hc_bootstrap_parse_ranks(const char *list, int *ranks, int max);

/* Records in info->reached_ip the local IPv4 address of fd when fd is a
 * TCP socket; leaves it alone otherwise (Unix socket, pipe). */
void hc_bootstrap_note_socket(int fd, hc_bootstrap_info_t *info);

/* Ends this rank at once (SIGKILL), saying on stderr that its launcher
 * is gone and how that showed: a rank must not outlive the launcher that
 * would end the job (one killed with SIGKILL leaves its ranks running,
 * and any that wait spin or sleep for ever). */
void hc_bootstrap_launcher_gone(int rank, const char *how);

/* The backend HCMPI_BOOTSTRAP names (pmi1, pmi2, pmix, singleton), else
 * the first whose detect() says yes; singleton otherwise. */
const hc_bootstrap_ops_t *hc_bootstrap_select(void);

#endif /* HC_BOOTSTRAP_H */
