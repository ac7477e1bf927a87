/*
 * hcmpirun's state, shared by its files: hcmpirun.c (start-up, the PMI
 * server, the main loop) and hcmpirun_spawn.c (MPI_Comm_spawn's requests).
 */
#ifndef HC_TOOLS_HCMPIRUN_H
#define HC_TOOLS_HCMPIRUN_H

#include <sched.h> /* cpu_set_t: config.h first (_GNU_SOURCE) */
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "bootstrap/kvstore.h"
#include "bootstrap/pmi1_wire.h"

#define RUN_OUT_BUF 8192
#define RUN_EXIT_TIMEOUT 124
/* Commands one MPI_Comm_spawn_multiple may start (PMI fields per line). */
#define RUN_SPAWN_CMDS 6

typedef struct run_stream {
  int fd; /* -1 once closed */
  int to; /* 1 or 2: where the lines go */
  int at_line_start;
  size_t len;
  char buf[RUN_OUT_BUF];
} run_stream_t;

/* A spawn request's strings as they arrive (hc_spawn_data lines), by key:
 * hex digits of argv<c> at [2c], of wdir<c> at [2c + 1], put together in
 * order until the hc_spawn line takes them. */
typedef struct run_spawn_data {
  char *hex[2 * RUN_SPAWN_CMDS];
  size_t len[2 * RUN_SPAWN_CMDS];
  size_t total;        /* digits held in all */
  const char *refused; /* why hc_spawn will be refused; NULL: not */
} run_spawn_data_t;

typedef struct run_rank {
  pid_t pid;
  int alive;
  int initialized;
  int finalized;
  int in_barrier;
  int pmi_fd; /* launcher's end; -1 once closed */
  hc_pmi1_reader_t reader;
  size_t kv_bytes;   /* what its entries in the key-value store cost */
  int kv_told_rank;  /* its refusals were reported (per-rank bound) */
  int kv_told_total; /* (bound of the whole store) */
  run_stream_t out;
  run_stream_t err;
  int world;   /* its run_world_t */
  int wrank;   /* its rank there */
  int appnum;  /* which command of a spawn started it */
  char **argv; /* what it runs */
  char *wdir;  /* where (NULL: hcmpirun's directory) */
  run_spawn_data_t spawn; /* its request under way (empty: none) */
} run_rank_t;

/* Ranks that share a PMI world (rank numbers, fences, key-value store):
 * the job's own ranks (world 0), or the children of one MPI_Comm_spawn,
 * which connect back to their parents' port. */
typedef struct run_world {
  int base; /* its first rank in job->ranks */
  int n;
  int nbarrier;
  char *port; /* the parents' port; NULL for world 0 */
  int ncmds;
  /* Command c: its argument strings back to back (NULL for world 0), its
   * argv, and its ranks, [first[c], first[c + 1]) of the world. */
  char *args[RUN_SPAWN_CMDS];
  char **argv[RUN_SPAWN_CMDS];
  char *wdir[RUN_SPAWN_CMDS]; /* its working directory, NULL: hcmpirun's */
  int first[RUN_SPAWN_CMDS + 1];
  int asked_by; /* the rank whose spawn made it, answered once started */
  struct run_world *next; /* the next spawn waiting in job->pending */
} run_world_t;

/* -bind-to: the CPU sets ranks are bound to in turn (hcmpirun_bind.c);
 * no units: not bound. */
enum { RUN_BIND_NONE, RUN_BIND_HWTHREAD, RUN_BIND_CORE, RUN_BIND_SOCKET };
typedef struct run_bind {
  int nunits;
  cpu_set_t *units;
} run_bind_t;

typedef struct run_opts {
  int n;
  int label;
  int relink;
  int keep_going; /* --no-kill-on-failure: a failed rank ends nobody else */
  /* -disable-auto-cleanup (Hydra's spelling): also as quiet as Hydra about a
   * rank's non-zero exit, which its status alone reports; fault-tolerance
   * test suites read any other output as a failure. */
  int quiet_exits;
  int progress;   /* --progress: live status line when stderr is a tty */
  long timeout_s;
  int usize; /* -usize N: MPI_UNIVERSE_SIZE; 0 when not given (unset) */
  run_bind_t bind; /* -bind-to / --bind-to */
  int nenv;
  char **env;
  char **argv;
  char *ld_path; /* with --relink: LD_LIBRARY_PATH for the ranks */
  char *preload; /* with --relink of a sanitized build: LD_PRELOAD */
} run_opts_t;

typedef struct run_job {
  run_opts_t opt;
  run_rank_t *ranks;
  int nranks; /* opt.n and the spawned ones */
  run_world_t *worlds;
  int nworlds;
  /* Spawns to start once the PMI line is served, oldest first: ranks of
   * different parent jobs may ask at the same time. */
  run_world_t *pending;
  const sigset_t *oldmask;
  int nalive;
  hc_kvstore_t kv;
  size_t kv_bytes;    /* what the ranks' entries cost in all */
  size_t kv_rank_max; /* HCMPI_KVS_RANK_BYTES */
  size_t kv_max;      /* HCMPI_KVS_BYTES */
  char kvsname[64];
  int sigfd;
  int terminating;
  int killed; /* SIGKILL sent */
  double kill_at;
  int term_sig;    /* what the teardown sent first */
  double deadline; /* 0: none */
  int have_code;
  int exit_code;
  int interrupt_sig;
  pid_t launcher; /* this process: a child whose parent changed is orphaned */
  int nfailed;
  double started;
  int status_on;     /* --progress and stderr is a terminal */
  int status_shown;  /* the status line is on the screen now */
  double status_due; /* when to redraw it next */
  int status_alive;  /* nalive and nfailed when it was drawn */
  int status_failed;
  /* Rank 0's standard input when ours is a terminal goes through a pipe:
   * rank 0 leads a process group of its own, which the terminal would stop
   * (SIGTTIN) if it read from it itself. */
  int stdin_to;     /* the pipe's write end; -1 when not forwarding */
  size_t stdin_len; /* bytes read from the terminal, not yet written */
  size_t stdin_off;
  char stdin_buf[4096];
} run_job_t;

/* -bind-to HOW: plans the units (0), or says why not (-1). */
int run_bind_parse(const char *how, run_bind_t *plan);
/* In rank's child before exec: binds it to its unit (if planned). */
void run_bind_apply(const run_bind_t *plan, int rank);

/* Writes a PMI reply line to rank r (nothing once its socket closed). */
void run_reply(run_job_t *job, int r, const char *line, int len);
/* Starts rank r (its world, wrank and argv set); 0 or -1. */
int run_spawn(run_job_t *job, int r, const sigset_t *oldmask);
/* The hc_spawn PMI command (hcmpirun_spawn.c): checks the request and
 * queues it on job->pending, or answers its refusal. */
void run_pmi_spawn(run_job_t *job, int r, const hc_pmi1_msg_t *m);
/* The hc_spawn_data PMI command: a piece of the next request's strings. */
void run_pmi_spawn_data(run_job_t *job, int r, const hc_pmi1_msg_t *m);
/* Drops what rank r's unfinished request holds. */
void run_spawn_data_free(run_rank_t *rk);
/* Starts the oldest of job->pending's worlds and answers the rank that
 * asked; call
 * where no rank pointer is held (the ranks array may move). */
void run_spawn_pending(run_job_t *job);

#endif /* HC_TOOLS_HCMPIRUN_H */
