/* hcmpirun's side of MPI_Comm_spawn: a rank's request becomes a new PMI
 * world of processes, started by the main loop. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hcmpirun.h"
#include "util/findexec.h"

/* ---- MPI_Comm_spawn ------------------------------------------------------
 * A request is any number of "cmd=hc_spawn_data key=K hex=HEX" lines, then
 * "cmd=hc_spawn ncmds=N port=P nprocs<c>=n ..." (c < N).  K is argv<c> (the
 * command's argv, each string with its NUL) or wdir<c> (its working
 * directory and a NUL, when given); the HEX of one key's lines, in order,
 * make its bytes: no line bounds a request, HC_PMI1_SPAWN_BYTES_MAX does
 * (pmi1_wire.h).  The hc_spawn line asks for a new world of the commands'
 * ranks, told P (HCMPI_PARENT_PORT) to connect back to, and takes the
 * strings sent before it.  The answer, hc_spawn_result, comes once they
 * are started, or at once with rc=-1 when a program cannot be executed or
 * the request is malformed or too large (nothing is started then);
 * hc_spawn_data lines are not answered. */

static int run_hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

/* Command c's argv from its hex form; NULL when malformed. */
static const char *run_spawn_argv(run_world_t *w, int c, const char *hex) {
  size_t n = hex != NULL ? strlen(hex) / 2 : 0, nargs = 0;
  if (n == 0 || strlen(hex) % 2 != 0 || (w->args[c] = malloc(n)) == NULL)
    return "bad_argv";
  for (size_t i = 0; i < n; i++) {
    int hi = run_hex_digit(hex[2 * i]), lo = run_hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return "bad_argv";
    w->args[c][i] = (char)(hi << 4 | lo);
    nargs += w->args[c][i] == '\0';
  }
  if (w->args[c][n - 1] != '\0' ||
      (w->argv[c] = calloc(nargs + 1, sizeof(char *))) == NULL)
    return "bad_argv";
  for (size_t i = 0, a = 0; i < n; i += strlen(w->args[c] + i) + 1)
    w->argv[c][a++] = w->args[c] + i;
  return hc_can_exec(w->argv[c][0]) ? NULL : "cannot_execute";
}

/* Command c's working directory from its hex form (one string and its
 * NUL), when given; it must be a directory. */
static const char *run_spawn_wdir(run_world_t *w, int c, const char *hex) {
  struct stat st;
  size_t n = hex != NULL ? strlen(hex) / 2 : 0;
  if (hex == NULL)
    return NULL;
  if (n < 2 || strlen(hex) % 2 != 0 || (w->wdir[c] = malloc(n)) == NULL)
    return "bad_wdir";
  for (size_t i = 0; i < n; i++) {
    int hi = run_hex_digit(hex[2 * i]), lo = run_hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return "bad_wdir";
    w->wdir[c][i] = (char)(hi << 4 | lo);
  }
  if (w->wdir[c][n - 1] != '\0' || strlen(w->wdir[c]) != n - 1)
    return "bad_wdir";
  return stat(w->wdir[c], &st) == 0 && S_ISDIR(st.st_mode) ? NULL
                                                          : "no_such_wdir";
}

void run_spawn_data_free(run_rank_t *rk) {
  for (int i = 0; i < 2 * RUN_SPAWN_CMDS; i++)
    free(rk->spawn.hex[i]);
  rk->spawn = (run_spawn_data_t){0};
}

/* The slot of key argv<c> or wdir<c>; -1 for any other key. */
static int run_spawn_data_slot(const char *key) {
  int kind = strncmp(key, "argv", 4) == 0   ? 0
             : strncmp(key, "wdir", 4) == 0 ? 1
                                            : -1;
  char *end = NULL;
  long c = kind < 0 || key[4] < '0' || key[4] > '9' ? -1
                                                    : strtol(key + 4, &end, 10);
  if (c < 0 || c >= RUN_SPAWN_CMDS || *end != '\0')
    return -1;
  return 2 * (int)c + kind;
}

/* Appends hex to slot i of d; why it cannot, or NULL. */
static const char *run_spawn_data_add(run_spawn_data_t *d, int i,
                                      const char *hex) {
  size_t n = strlen(hex);
  if (i < 0)
    return "bad_request";
  if (d->total + n > 2 * (size_t)HC_PMI1_SPAWN_BYTES_MAX)
    return "request_too_large";
  char *grown = realloc(d->hex[i], d->len[i] + n + 1);
  if (grown == NULL)
    return "out_of_memory";
  memcpy(grown + d->len[i], hex, n + 1);
  d->hex[i] = grown;
  d->len[i] += n;
  d->total += n;
  return NULL;
}

void run_pmi_spawn_data(run_job_t *job, int r, const hc_pmi1_msg_t *m) {
  run_spawn_data_t *d = &job->ranks[r].spawn;
  const char *key = hc_pmi1_get(m, "key"), *hex = hc_pmi1_get(m, "hex");
  if (d->refused != NULL)
    return;
  d->refused = key == NULL || hex == NULL
                   ? "bad_request"
                   : run_spawn_data_add(d, run_spawn_data_slot(key), hex);
  /* A refused request keeps nothing but its reason. */
  for (int i = 0; d->refused != NULL && i < 2 * RUN_SPAWN_CMDS; i++) {
    free(d->hex[i]);
    d->hex[i] = NULL;
  }
}

static void run_world_free(run_world_t *w) {
  for (int c = 0; c < w->ncmds; c++) {
    free(w->args[c]);
    free(w->argv[c]);
    free(w->wdir[c]);
  }
  free(w->port);
  free(w);
}

/* The request: the hc_spawn line m and the strings d sent before it. */
static const char *run_spawn_parse(const hc_pmi1_msg_t *m,
                                   const run_spawn_data_t *d, run_world_t *w) {
  char key[24];
  long ncmds = hc_pmi1_get_long(m, "ncmds", 0);
  const char *port = hc_pmi1_get(m, "port");
  if (d->refused != NULL)
    return d->refused;
  if (ncmds < 1 || ncmds > RUN_SPAWN_CMDS || port == NULL)
    return "bad_request";
  if ((w->port = strdup(port)) == NULL)
    return "out_of_memory";
  for (int c = 0; c < ncmds; c++) {
    w->ncmds = c + 1;
    snprintf(key, sizeof key, "nprocs%d", c);
    long n = hc_pmi1_get_long(m, key, 0);
    if (n < 1 || n > 4096)
      return "bad_nprocs";
    w->first[c] = w->n;
    w->n += (int)n;
    const char *why = run_spawn_argv(w, c, d->hex[2 * c]);
    if (why != NULL)
      return why;
    why = run_spawn_wdir(w, c, d->hex[2 * c + 1]);
    if (why != NULL)
      return why;
  }
  w->first[ncmds] = w->n;
  return NULL;
}

static void run_spawn_reply(run_job_t *job, int r, const char *why) {
  char line[128];
  run_reply(job, r, line,
            hc_pmi1_format(line, sizeof line, "hc_spawn_result", "rc",
                           why ? "-1" : "0", "msg", why ? why : "success",
                           NULL));
}

void run_pmi_spawn(run_job_t *job, int r, const hc_pmi1_msg_t *m) {
  run_world_t *w = calloc(1, sizeof *w);
  const char *why = w == NULL ? "out_of_memory"
                              : run_spawn_parse(m, &job->ranks[r].spawn, w);
  run_spawn_data_free(&job->ranks[r]);
  if (why != NULL) {
    if (w != NULL)
      run_world_free(w);
    run_spawn_reply(job, r, why);
    return;
  }
  w->asked_by = r;
  /* Started by the main loop (ranks may move), after any asked before. */
  run_world_t **tail = &job->pending;
  while (*tail != NULL)
    tail = &(*tail)->next;
  *tail = w;
}

/* Starts the oldest pending spawn's world and answers the rank that asked. */
void run_spawn_pending(run_job_t *job) {
  run_world_t *w = job->pending;
  job->pending = w->next;
  w->next = NULL;
  run_rank_t *ranks =
      realloc(job->ranks, (size_t)(job->nranks + w->n) * sizeof *ranks);
  if (ranks != NULL)
    job->ranks = ranks;
  run_world_t *worlds =
      realloc(job->worlds, (size_t)(job->nworlds + 1) * sizeof *worlds);
  if (worlds != NULL)
    job->worlds = worlds;
  if (ranks == NULL || worlds == NULL) {
    run_spawn_reply(job, w->asked_by, "out_of_memory");
    run_world_free(w);
    return;
  }
  int wi = job->nworlds++, asked = w->asked_by;
  w->base = job->nranks;
  for (int c = 0; c < w->ncmds; c++)
    for (int i = w->first[c]; i < w->first[c + 1]; i++)
      job->ranks[w->base + i] = (run_rank_t){.world = wi,
                                             .wrank = i,
                                             .appnum = c,
                                             .argv = w->argv[c],
                                             .wdir = w->wdir[c],
                                             .pmi_fd = -1,
                                             .out.fd = -1,
                                             .err.fd = -1};
  job->worlds[wi] = *w;
  free(w);
  job->nranks += job->worlds[wi].n;
  const char *why = NULL;
  for (int r = job->worlds[wi].base; why == NULL && r < job->nranks; r++)
    if (run_spawn(job, r, job->oldmask) != 0)
      why = "cannot_start";
  run_spawn_reply(job, asked, why);
}
