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
 * "cmd=hc_spawn ncmds=K port=P nprocs<c>=N argv<c>=HEX [wdir<c>=HEX]" (c <
 * K; HEX: the command's argv, each string with its NUL, in hex; the
 * working directory the same way) asks for a new world of
 * the commands' ranks, told P (HCMPI_PARENT_PORT) to connect back to.  The
 * answer, hc_spawn_result, comes once they are started, or at once with
 * rc=-1 when a program cannot be executed (nothing is started then). */

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

static void run_world_free(run_world_t *w) {
  for (int c = 0; c < w->ncmds; c++) {
    free(w->args[c]);
    free(w->argv[c]);
    free(w->wdir[c]);
  }
  free(w->port);
  free(w);
}

static const char *run_spawn_parse(const hc_pmi1_msg_t *m, run_world_t *w) {
  char key[24];
  long ncmds = hc_pmi1_get_long(m, "ncmds", 0);
  const char *port = hc_pmi1_get(m, "port");
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
    snprintf(key, sizeof key, "argv%d", c);
    const char *why = run_spawn_argv(w, c, hc_pmi1_get(m, key));
    if (why != NULL)
      return why;
    snprintf(key, sizeof key, "wdir%d", c);
    why = run_spawn_wdir(w, c, hc_pmi1_get(m, key));
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
  const char *why = w == NULL ? "out_of_memory" : run_spawn_parse(m, w);
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
