/*
 * hcmpirun: starts N copies of a program on this host and serves them the
 * PMI-1 wire protocol over inherited socketpairs (PMI_FD), the way MPICH's
 * Hydra does for a local job.  One poll() loop handles the PMI sockets, the
 * ranks' stdout/stderr pipes and signals (through a signalfd).
 *
 * Exit status: 0 when every rank exits 0; otherwise the exit code of the
 * first rank that failed (128+N for a rank killed by signal N), the code
 * given to an abort, 124 when --timeout expired, 128+N when hcmpirun itself
 * was interrupted by signal N and no rank reported a failure, 1 for usage
 * or start-up errors.  A rank that initialised PMI and exits 0 without
 * finalize counts as failing with code 1: its peers could otherwise wait in
 * a fence forever.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/kvstore.h"
#include "bootstrap/pmi1_wire.h"
#include "util/env.h"
#include "util/envtable.h"
#include "util/secret.h"
#include "util/shmseg.h"

#include "hcmpirun.h"

static double run_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- options ---------------------------------------------------------- */

static void run_usage(FILE *f) {
  fprintf(f,
          "usage: hcmpirun [-n|-np N] [--label] [--timeout S] [--env K=V]..."
          " [--relink] prog [args...]\n"
          "  -n, -np N     start N ranks (default 1)\n"
          "  --label, -l   prefix each output line with \"[rank] \"\n"
          "  --timeout S   end the job after S seconds (exit status 124)\n"
          "  --env K=V     set K=V in every rank's environment\n"
          "  --progress    show a live status line (ranks running, finished,\n"
          "                failed, elapsed time) when stderr is a terminal\n"
          "  --no-kill-on-failure   a rank that dies or fails does not end\n"
          "                the others (they see MPIX_ERR_PROC_FAILED); the\n"
          "                exit status still reports it (also HCMPI_FT=1)\n"
          "  -genv K V, -env K V   the same, mpiexec style\n"
          "  -disable-auto-cleanup  Hydra's name for --no-kill-on-failure;\n"
          "                like Hydra, it names no rank that exits with a\n"
          "                non-zero code (the exit status still does)\n"
          "  --relink      run a program built against MPICH, or against\n"
          "                another MPI's standard ABI (libmpi_abi.so.1), on\n"
          "                hcmpi: put hcmpi's libmpi.so.12/libmpich.so.12\n"
          "                and libmpi_abi.so.1 first on the ranks'\n"
          "                LD_LIBRARY_PATH (a build with --enable-sanitizers\n"
          "                also preloads the ASan runtime it needs)\n"
          "  -ppn N, -hosts H[,H...]   accepted where every rank stays on\n"
          "                this host (H is localhost or this host's name)\n"
          "  -usize N      MPI_UNIVERSE_SIZE is N (as in Hydra; unset\n"
          "                without it: spawn is not limited to -n)\n"
          "  -bind-to, --bind-to none|hwthread|core|socket   bind rank r\n"
          "                to the r-th such unit of hcmpirun's own CPUs\n"
          "                (round robin); default none\n"
          "Not supported (hcmpirun starts ranks on this host only; use\n"
          "mpiexec.mpich for more): -f/-hostfile/-machinefile, remote "
          "-hosts,\n-genvnone, -genvlist, -wdir, and ':' "
          "(several programs).\n"
          "Environment: HCMPI_KILL_GRACE seconds between SIGTERM and SIGKILL "
          "when the job is torn down (default 2);\nMPIEXEC_TIMEOUT S acts as "
          "--timeout S (as in Hydra; --timeout wins).\n"
          "Exit status: 0 if every rank exits 0; else the first failing "
          "rank's code\n(128+N for signal N; 1 for exit 0 without "
          "MPI_Finalize), an abort's code,\n124 on --timeout, 1 on usage "
          "or start-up errors.\n");
}

static int run_parse_long(const char *text, long min, long *out) {
  char *end = NULL;
  errno = 0;
  long v = text ? strtol(text, &end, 10) : 0;
  if (text == NULL || *text == '\0' || *end != '\0' || errno != 0 || v < min)
    return -1;
  *out = v;
  return 0;
}

/* "K" "V" (mpiexec's -genv/-env) as one "K=V" string for putenv. */
static char *run_env_pair(const char *key, const char *value) {
  if (key == NULL || value == NULL || *key == '\0' || strchr(key, '=') != NULL)
    return NULL;
  size_t len = strlen(key) + strlen(value) + 2;
  char *kv = malloc(len);
  if (kv != NULL)
    snprintf(kv, len, "%s=%s", key, value);
  return kv;
}

/* Whether NAME (a -hosts entry, maybe with ":slots") is this host. */
static int run_host_is_local(const char *name, size_t len) {
  char self[256] = "";
  gethostname(self, sizeof self - 1);
  const char *colon = memchr(name, ':', len);
  if (colon != NULL)
    len = (size_t)(colon - name);
  static const char *const local[] = {"localhost", "127.0.0.1", "::1"};
  for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
    if (strlen(local[i]) == len && strncmp(name, local[i], len) == 0)
      return 1;
  return strlen(self) == len && strncmp(name, self, len) == 0;
}

static int run_hosts_local(const char *list) {
  if (list == NULL || *list == '\0')
    return 0;
  for (const char *p = list; *p != '\0';) {
    size_t len = strcspn(p, ",");
    if (len == 0 || !run_host_is_local(p, len))
      return 0;
    p += len + (p[len] == ',');
  }
  return 1;
}

/* Options of MPICH's mpiexec that hcmpirun recognises but cannot honour;
 * naming them beats a generic "bad option". */
static int run_unsupported(const char *a) {
  static const char *const names[] = {"-f",        "-hostfile", "-machinefile",
                                      "-genvnone", "-genvlist", "-envlist",
                                      "-envnone",  "-wdir",     "-launcher",
                                      "-rmk",      "-iface",    ":"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(a, names[i]) == 0) {
      fprintf(stderr,
              "hcmpirun: option %s is not supported: hcmpirun starts one "
              "program on this host only (use mpiexec.mpich for more)\n",
              a);
      return 1;
    }
  return 0;
}

/* Returns 1 when argv[*i] is an mpiexec-style option (consuming its
 * arguments), 0 when it is not one, -1 on a usage error. */
static int run_parse_mpiexec(int argc, char **argv, int *i, run_opts_t *o) {
  const char *a = argv[*i];
  long v;
  if (strcmp(a, "-genv") == 0 || strcmp(a, "-env") == 0) {
    char *kv = *i + 2 < argc ? run_env_pair(argv[*i + 1], argv[*i + 2]) : NULL;
    if (kv == NULL)
      return -1;
    o->env[o->nenv++] = kv;
    *i += 2;
    return 1;
  }
  if (strcmp(a, "-genvall") == 0 || strcmp(a, "-envall") == 0)
    return 1; /* what hcmpirun always does */
  /* Hydra's name for --no-kill-on-failure (ULFM programs pass it). */
  if (strcmp(a, "-disable-auto-cleanup") == 0 ||
      strcmp(a, "--disable-auto-cleanup") == 0) {
    o->keep_going = 1;
    o->quiet_exits = 1;
    return 1;
  }
  if (strcmp(a, "-ppn") == 0) {
    /* Every rank is on this host whatever the count per node. */
    if (run_parse_long(argv[*i + 1], 1, &v) != 0)
      return -1;
    ++*i;
    return 1;
  }
  if (strcmp(a, "-bind-to") == 0 || strcmp(a, "--bind-to") == 0) {
    if (run_bind_parse(argv[*i + 1], &o->bind) != 0)
      return -1;
    ++*i;
    return 1;
  }
  if (strcmp(a, "-usize") == 0) {
    if (run_parse_long(argv[*i + 1], 1, &v) != 0 || v > INT_MAX)
      return -1;
    o->usize = (int)v;
    ++*i;
    return 1;
  }
  if (strcmp(a, "-hosts") == 0 || strcmp(a, "-host") == 0) {
    if (!run_hosts_local(argv[*i + 1])) {
      fprintf(stderr,
              "hcmpirun: %s %s: hcmpirun starts ranks on this host only "
              "(use mpiexec.mpich for other hosts)\n",
              a, argv[*i + 1] ? argv[*i + 1] : "");
      return -1;
    }
    ++*i;
    return 1;
  }
  return run_unsupported(a) ? -1 : 0;
}

/* MPIEXEC_TIMEOUT (seconds), which test harnesses set for Hydra's
 * mpiexec, limits the job like --timeout unless --timeout was given. */
static int run_env_timeout(run_opts_t *o) {
  const char *text = getenv("MPIEXEC_TIMEOUT");
  long v;
  if (o->timeout_s > 0 || text == NULL || text[0] == '\0')
    return 0;
  if (run_parse_long(text, 1, &v) != 0) {
    fprintf(stderr, "hcmpirun: MPIEXEC_TIMEOUT=%s is not a number of seconds\n",
            text);
    return -1;
  }
  o->timeout_s = v;
  return 0;
}

/* Returns 0 to run, 1 to exit 0 (help), -1 on a usage error. */
static int run_parse_args(int argc, char **argv, run_opts_t *o) {
  long v;
  int mpiexec_rc;
  o->n = 1;
  o->env = calloc((size_t)argc, sizeof *o->env);
  int i = 1;
  for (; i < argc && (argv[i][0] == '-' || strcmp(argv[i], ":") == 0); i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    } else if (strcmp(a, "--relink") == 0) {
      o->relink = 1;
    } else if (strcmp(a, "--no-kill-on-failure") == 0) {
      o->keep_going = 1;
    } else if (strcmp(a, "--progress") == 0) {
      o->progress = 1;
    } else if ((mpiexec_rc = run_parse_mpiexec(argc, argv, &i, o)) != 0) {
      if (mpiexec_rc < 0)
        return -1;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      run_usage(stdout);
      return 1;
    } else if (strcmp(a, "--label") == 0 || strcmp(a, "-l") == 0) {
      o->label = 1;
    } else if ((strcmp(a, "-n") == 0 || strcmp(a, "-np") == 0) &&
               run_parse_long(argv[i + 1], 1, &v) == 0 && v <= 100000) {
      o->n = (int)v;
      i++;
    } else if (strcmp(a, "--timeout") == 0 &&
               run_parse_long(argv[i + 1], 1, &v) == 0) {
      o->timeout_s = v;
      i++;
    } else if (strcmp(a, "--env") == 0 && argv[i + 1] != NULL &&
               strchr(argv[i + 1], '=') != NULL && argv[i + 1][0] != '=') {
      o->env[o->nenv++] = argv[++i];
    } else {
      fprintf(stderr, "hcmpirun: bad option or argument: %s\n", a);
      return -1;
    }
  }
  if (i >= argc) {
    fprintf(stderr, "hcmpirun: no program given\n");
    return -1;
  }
  o->argv = argv + i;
  return run_env_timeout(o);
}

/* ---- --relink ------------------------------------------------------------ */

static int run_has_lib(const char *dir, const char *lib) {
  char path[PATH_MAX + 64];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, lib);
  return stat(path, &st) == 0;
}

/* The folder of lib that belongs to this hcmpirun: tree_sub of its build
 * tree when it runs from one, else the installed one; -1 when neither
 * has it. */
static int run_lib_dir(char *dir, size_t len, const char *tree_sub,
                       const char *installed, const char *lib) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash != NULL) {
      *slash = '\0';
      snprintf(dir, len, "%s/../%s", exe, tree_sub);
      if (run_has_lib(dir, lib))
        return 0;
    }
  }
  snprintf(dir, len, "%s", installed);
  return run_has_lib(dir, lib) ? 0 : -1;
}

/* The MPICH-named libraries (libmpi.so.12, libmpich.so.12). */
static int run_relink_dir(char *dir, size_t len) {
  if (run_lib_dir(dir, len, "mpich-abi/.libs", HC_MPICH_ABI_DIR,
                  "libmpi.so.12") == 0)
    return 0;
  fprintf(stderr,
          "hcmpirun: --relink: libmpi.so.12 is neither in the build tree "
          "nor in %s\n",
          HC_MPICH_ABI_DIR);
  return -1;
}

/* hcmpi's libmpi_abi.so.1 (the MPI-5.0 standard ABI); "" when absent. */
static void run_abi_dir(char *dir, size_t len) {
  if (run_lib_dir(dir, len, ".libs", HC_LIB_DIR, "libmpi_abi.so.1") != 0)
    dir[0] = '\0';
}

#if defined(__SANITIZE_ADDRESS__)
static int run_asan_runtime_cb(struct dl_phdr_info *info, size_t size,
                               void *found) {
  (void)size;
  if (strstr(info->dlpi_name, "/libasan.so") == NULL)
    return 0;
  *(const char **)found = info->dlpi_name;
  return 1;
}
#endif

/* A sanitized hcmpi's libmpi.so.12 needs the ASan runtime, which it brings
 * as a dependency.  A program built against MPICH loads it behind its own
 * first library's dependencies; when that library is libm (or any that
 * needs ld.so), ld.so comes before the runtime in the global scope, the
 * runtime's dlsym(RTLD_NEXT, "_dl_get_tls_static_info") finds nothing and
 * it calls a null pointer at start-up.  So the ranks preload the runtime
 * this hcmpirun runs with (the same build's).  NULL when not sanitized. */
static char *run_sanitizer_preload(void) {
  const char *runtime = NULL;
#if defined(__SANITIZE_ADDRESS__)
  dl_iterate_phdr(run_asan_runtime_cb, &runtime);
#endif
  if (runtime == NULL)
    return NULL;
  const char *old = getenv("LD_PRELOAD");
  size_t len = strlen(runtime) + (old ? strlen(old) : 0) + 2;
  char *preload = malloc(len);
  if (preload != NULL)
    snprintf(preload, len, "%s%s%s", runtime, old && *old ? ":" : "",
             old && *old ? old : "");
  return preload;
}

static int run_relink_setup(run_opts_t *o) {
  char dir[PATH_MAX + 32], real[PATH_MAX];
  char abi[PATH_MAX + 32], abi_real[PATH_MAX];
  if (run_relink_dir(dir, sizeof dir) != 0)
    return -1;
  const char *use = realpath(dir, real) ? real : dir;
  run_abi_dir(abi, sizeof abi);
  const char *use_abi = abi[0] && realpath(abi, abi_real) ? abi_real : abi;
  const char *old = getenv("LD_LIBRARY_PATH");
  size_t len = strlen(use) + strlen(use_abi) + (old ? strlen(old) : 0) + 3;
  o->ld_path = malloc(len);
  if (o->ld_path == NULL)
    return -1;
  snprintf(o->ld_path, len, "%s%s%s%s%s", use, use_abi[0] ? ":" : "", use_abi,
           old && *old ? ":" : "", old && *old ? old : "");
  o->preload = run_sanitizer_preload();
  return 0;
}

/* ---- --progress status line ---------------------------------------------- */

/* Erases the status line so that the next line written to the terminal
 * (a rank's output or hcmpirun's own message) starts on a clean row. */
static void run_status_clear(run_job_t *job) {
  if (!job->status_shown)
    return;
  static const char erase[] = "\r\033[K";
  (void)hc_pmi1_write_all(2, erase, sizeof erase - 1);
  job->status_shown = 0;
}

static void run_status_draw(run_job_t *job) {
  char line[160];
  long secs = (long)(run_now() - job->started);
  int finished = job->nranks - job->nalive - job->nfailed;
  int len = snprintf(line, sizeof line,
                     "\r\033[Khcmpirun: %d ranks: %d running, %d finished, "
                     "%d failed, %ld:%02ld:%02ld elapsed",
                     job->nranks, job->nalive, finished, job->nfailed,
                     secs / 3600, secs / 60 % 60, secs % 60);
  if (len > 0 && hc_pmi1_write_all(2, line, (size_t)len) == 0)
    job->status_shown = 1;
  job->status_due = run_now() + 1.0;
  job->status_alive = job->nalive;
  job->status_failed = job->nfailed;
}

/* Redraws once a second, and at once after something erased it or a
 * rank ended. */
static void run_status_tick(run_job_t *job) {
  if (!job->status_on)
    return;
  if (!job->status_shown || run_now() >= job->status_due ||
      job->status_alive != job->nalive || job->status_failed != job->nfailed)
    run_status_draw(job);
}

/* ---- output forwarding ------------------------------------------------- */

/* One write per line, so lines of different ranks never mix. */
static void run_emit(run_job_t *job, int rank, run_stream_t *s, const char *p,
                     size_t len, int ends_line) {
  static char line[RUN_OUT_BUF + 32];
  size_t used = 0;
  if (job->opt.label && s->at_line_start)
    used = (size_t)snprintf(line, 32, "[%d] ", rank);
  memcpy(line + used, p, len);
  used += len;
  if (ends_line && job->opt.label && (len == 0 || p[len - 1] != '\n'))
    line[used++] = '\n';
  s->at_line_start = len > 0 && line[used - 1] == '\n';
  run_status_clear(job);
  if (hc_pmi1_write_all(s->to, line, used) != 0 && errno != EPIPE)
    perror("hcmpirun: write");
}

static void run_stream_flush_lines(run_job_t *job, int rank, run_stream_t *s) {
  size_t start = 0;
  for (;;) {
    char *nl = memchr(s->buf + start, '\n', s->len - start);
    if (nl == NULL)
      break;
    size_t end = (size_t)(nl - s->buf) + 1;
    run_emit(job, rank, s, s->buf + start, end - start, 0);
    start = end;
  }
  if (start == 0 && s->len == sizeof s->buf) {
    /* A line longer than the buffer goes out in pieces. */
    run_emit(job, rank, s, s->buf, s->len, 0);
    start = s->len;
  }
  memmove(s->buf, s->buf + start, s->len - start);
  s->len -= start;
}

static void run_stream_close(run_job_t *job, int rank, run_stream_t *s) {
  if (s->len > 0)
    run_emit(job, rank, s, s->buf, s->len, 1);
  s->len = 0;
  close(s->fd);
  s->fd = -1;
}

static void run_stream_read(run_job_t *job, int rank, run_stream_t *s) {
  ssize_t n;
  do
    n = read(s->fd, s->buf + s->len, sizeof s->buf - s->len);
  while (n < 0 && errno == EINTR);
  if (n < 0 && errno == EAGAIN)
    return;
  if (n <= 0) {
    run_stream_close(job, rank, s);
    return;
  }
  s->len += (size_t)n;
  run_stream_flush_lines(job, rank, s);
}

/* ---- rank 0's input from a terminal -------------------------------------- */

static void run_stdin_close(run_job_t *job) {
  if (job->stdin_to >= 0)
    close(job->stdin_to);
  job->stdin_to = -1;
  job->stdin_len = job->stdin_off = 0;
}

/* Whether to read the terminal now: only in its foreground, where reading
 * cannot stop hcmpirun itself, and only while rank 0 can take the input. */
static int run_stdin_wanted(const run_job_t *job) {
  return job->stdin_to >= 0 && job->stdin_len == 0 && job->ranks[0].alive &&
         tcgetpgrp(0) == getpgrp();
}

static void run_stdin_read(run_job_t *job) {
  ssize_t n;
  do
    n = read(0, job->stdin_buf, sizeof job->stdin_buf);
  while (n < 0 && errno == EINTR);
  if (n < 0 && errno == EAGAIN)
    return;
  if (n <= 0) { /* end of input: rank 0 sees it too */
    run_stdin_close(job);
    return;
  }
  job->stdin_len = (size_t)n;
  job->stdin_off = 0;
}

static void run_stdin_write(run_job_t *job) {
  ssize_t n = write(job->stdin_to, job->stdin_buf + job->stdin_off,
                    job->stdin_len - job->stdin_off);
  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return;
  if (n < 0) { /* rank 0 closed its input or is gone */
    run_stdin_close(job);
    return;
  }
  job->stdin_off += (size_t)n;
  if (job->stdin_off == job->stdin_len)
    job->stdin_len = job->stdin_off = 0;
}

/* ---- job control ------------------------------------------------------- */

/* Each rank leads a process group of its own (run_child), so the signal
 * reaches what it started too: the MPI program behind a wrapper shell, its
 * helpers.  A rank already reaped may have left such processes behind, so
 * its group is signalled during the teardown as well; a rank that moved to
 * another group still gets the signal itself. */
static void run_signal_all(run_job_t *job, int sig) {
  for (int r = 0; r < job->nranks; r++) {
    run_rank_t *rk = &job->ranks[r];
    if (rk->pid <= 0 || (!rk->alive && !job->terminating))
      continue;
    if (kill(-rk->pid, sig) != 0 && rk->alive)
      kill(rk->pid, sig);
  }
}

/* Starts the teardown: sig to every rank now, SIGKILL when the grace period
 * ends.  A later call changes nothing: the ranks that exit from the first
 * signal must not cut short the handlers their peers are still running. */
static void run_terminate(run_job_t *job, int sig) {
  if (job->terminating)
    return;
  job->terminating = 1;
  job->term_sig = sig;
  run_signal_all(job, sig);
  job->kill_at = run_now() + (double)hc_env_long("HCMPI_KILL_GRACE", 2);
}

static void run_fail(run_job_t *job, int code) {
  if (!job->have_code) {
    job->have_code = 1;
    job->exit_code = code;
  }
}

/* ---- PMI server ---------------------------------------------------------- */

void run_reply(run_job_t *job, int r, const char *line, int len) {
  if (len < 0 || job->ranks[r].pmi_fd < 0)
    return;
  /* A rank that died with a reply pending is handled by its exit status. */
  (void)hc_pmi1_write_all(job->ranks[r].pmi_fd, line, (size_t)len);
}

static void pmi_cmd_init(run_job_t *job, int r, const hc_pmi1_msg_t *m) {
  char line[128];
  const char *ver = hc_pmi1_get(m, "pmi_version");
  int ok = ver != NULL && strcmp(ver, "1") == 0;
  job->ranks[r].initialized = 1;
  run_reply(job, r, line,
            hc_pmi1_format(line, sizeof line, "response_to_init", "pmi_version",
                           "1", "pmi_subversion", "1", "rc", ok ? "0" : "-1",
                           NULL));
}

static void pmi_cmd_maxes(run_job_t *job, int r, const hc_pmi1_msg_t *m) {
  char line[128];
  run_reply(job, r, line,
            hc_pmi1_format(line, sizeof line, "maxes", "rc", "0", "kvsname_max",
                           "256", "keylen_max", "64", "vallen_max", "1024",
                           NULL));
}

static void pmi_cmd_appnum(run_job_t *job, int r, const hc_pmi1_msg_t *m) {
  char line[64];
  char num[24];
  snprintf(num, sizeof num, "%d", job->ranks[r].appnum);
  run_reply(job, r, line,
            hc_pmi1_format(line, sizeof line, "appnum", "rc", "0", "appnum",
                           num, NULL));
}

/* The universe is -usize; without it, unknown (size -1, MPI_UNIVERSE_SIZE
 * unset), as under Hydra: answering -n would tell programs that no process
 * can be spawned, which hcmpirun does on demand. */
static void pmi_cmd_universe(run_job_t *job, int r, const hc_pmi1_msg_t *m) {
  char line[64], num[24];
  snprintf(num, sizeof num, "%d", job->opt.usize > 0 ? job->opt.usize : -1);
  run_reply(job, r, line,
            hc_pmi1_format(line, sizeof line, "universe_size", "rc", "0",
                           "size", num, NULL));
}

static void pmi_cmd_kvsname(run_job_t *job, int r, const hc_pmi1_msg_t *m) {
  char line[128];
  run_reply(job, r, line,
            hc_pmi1_format(line, sizeof line, "my_kvsname", "rc", "0",
                           "kvsname", job->kvsname, NULL));
}

/* What an entry costs the store: its text and a guess at the bookkeeping
 * (the entry, two allocations, the bucket). */
static size_t run_kv_cost(const char *key, const char *value) {
  return strlen(key) + strlen(value) + 2 + 64;
}

/* Says once per rank and bound that what would pass it; returns reply. */
static const char *run_kv_refuse(int r, int *told, const char *what,
                                 const char *bound_name, size_t bound,
                                 const char *reply) {
  if (!(*told)++)
    fprintf(stderr,
            "hcmpirun: rank %d: key-value store put refused: %s would pass "
            "%s=%zu bytes\n",
            r, what, bound_name, bound);
  return reply;
}

/* NULL when rank r may store key = value, else why not (the reply's msg),
 * said once per rank and bound on stderr as well.  An entry is charged to
 * the rank that stored it last; the launcher's own entries cost nothing. */
static const char *run_kv_refusal(run_job_t *job, int r, const char *key,
                                  const char *value, size_t *old_cost) {
  run_rank_t *rk = &job->ranks[r];
  int owner = hc_kvstore_flags(&job->kv, key);
  const char *old = hc_kvstore_get(&job->kv, key);
  *old_cost = owner > 0 ? run_kv_cost(key, old) : 0;
  size_t cost = run_kv_cost(key, value);
  size_t mine = rk->kv_bytes - (owner == r + 1 ? *old_cost : 0);
  if (mine + cost > job->kv_rank_max)
    return run_kv_refuse(r, &rk->kv_told_rank, "the rank's entries",
                         "HCMPI_KVS_RANK_BYTES", job->kv_rank_max,
                         "key_value_store_full_for_this_rank");
  if (job->kv_bytes - *old_cost + cost > job->kv_max)
    return run_kv_refuse(r, &rk->kv_told_total, "the store", "HCMPI_KVS_BYTES",
                         job->kv_max, "key_value_store_full");
  return NULL;
}

/* The entry for key is now rank r's (old_cost: what it cost its owner). */
static void run_kv_charge(run_job_t *job, int r, int owner, size_t old_cost,
                          size_t cost) {
  if (owner > 0)
    job->ranks[owner - 1].kv_bytes -= old_cost;
  job->ranks[r].kv_bytes += cost;
  job->kv_bytes = job->kv_bytes - old_cost + cost;
}

/* Stores key = value for rank r within the bounds: NULL, or why not. */
static const char *run_kv_put(run_job_t *job, int r, const char *key,
                              const char *value) {
  size_t old_cost;
  int owner = hc_kvstore_flags(&job->kv, key);
  const char *why = run_kv_refusal(job, r, key, value, &old_cost);
  if (why != NULL)
    return why;
  if (hc_kvstore_set(&job->kv, key, value, r + 1) != 0)
    return "out_of_memory";
  run_kv_charge(job, r, owner, old_cost, run_kv_cost(key, value));
  return NULL;
}

/* A spawned world's keys live apart from the others' (each world numbers
 * its ranks from 0): prefixed with the world's number. */
static const char *run_kv_key(const run_job_t *job, int r, const char *key,
                              char *buf, size_t len) {
  int w = job->ranks[r].world;
  if (w == 0 || key == NULL)
    return key;
  snprintf(buf, len, "w%d/%s", w, key);
  return buf;
}

static void pmi_cmd_put(run_job_t *job, int r, const hc_pmi1_msg_t *m) {
  char line[128], kbuf[96];
  const char *key =
      run_kv_key(job, r, hc_pmi1_get(m, "key"), kbuf, sizeof kbuf);
  const char *value = hc_pmi1_get(m, "value");
  const char *why = NULL;
  if (key == NULL || value == NULL || *key == '\0')
    why = "missing_key_or_value";
  else if (strlen(key) >= 64 || strlen(value) >= 1024)
    why = "key_or_value_too_long";
  else
    why = run_kv_put(job, r, key, value);
  run_reply(job, r, line,
            hc_pmi1_format(line, sizeof line, "put_result", "rc",
                           why ? "-1" : "0", "msg", why ? why : "success",
                           NULL));
}

static void pmi_cmd_get(run_job_t *job, int r, const hc_pmi1_msg_t *m) {
  char line[HC_PMI1_LINE_MAX], kbuf[96];
  const char *key =
      run_kv_key(job, r, hc_pmi1_get(m, "key"), kbuf, sizeof kbuf);
  const char *value = key ? hc_kvstore_get(&job->kv, key) : NULL;
  if (value != NULL)
    run_reply(job, r, line,
              hc_pmi1_format(line, sizeof line, "get_result", "rc", "0", "msg",
                             "success", "value", value, NULL));
  else
    run_reply(job, r, line,
              hc_pmi1_format(line, sizeof line, "get_result", "rc", "-1", "msg",
                             "key_not_found", NULL));
}

static void run_barrier_check(run_job_t *job);

static void pmi_cmd_barrier(run_job_t *job, int r, const hc_pmi1_msg_t *m) {
  if (job->ranks[r].in_barrier)
    return;
  job->ranks[r].in_barrier = 1;
  job->worlds[job->ranks[r].world].nbarrier++;
  run_barrier_check(job);
}

/* Releases a world's barrier once every rank of it that can still enter
 * it did: with --no-kill-on-failure the dead ones no longer count. */
static void run_world_barrier_check(run_job_t *job, run_world_t *w) {
  int need = w->n;
  if (job->opt.keep_going)
    for (int i = w->base; i < w->base + w->n; i++)
      need -= !job->ranks[i].alive && !job->ranks[i].in_barrier;
  if (w->nbarrier == 0 || w->nbarrier < need)
    return;
  char line[64];
  int len = hc_pmi1_format(line, sizeof line, "barrier_out", "rc", "0", NULL);
  w->nbarrier = 0;
  for (int i = w->base; i < w->base + w->n; i++) {
    job->ranks[i].in_barrier = 0;
    run_reply(job, i, line, len);
  }
}

static void run_barrier_check(run_job_t *job) {
  for (int w = 0; w < job->nworlds; w++)
    run_world_barrier_check(job, &job->worlds[w]);
}

static void pmi_cmd_finalize(run_job_t *job, int r, const hc_pmi1_msg_t *m) {
  char line[64];
  job->ranks[r].finalized = 1;
  run_reply(job, r, line,
            hc_pmi1_format(line, sizeof line, "finalize_ack", "rc", "0", NULL));
}

static void pmi_cmd_abort(run_job_t *job, int r, const hc_pmi1_msg_t *m) {
  int code = (int)hc_pmi1_get_long(m, "exitcode", 1);
  run_status_clear(job);
  if (!job->terminating)
    fprintf(stderr, "hcmpirun: rank %d aborted with exit code %d\n", r, code);
  run_fail(job, code);
  run_terminate(job, SIGTERM);
}

typedef struct pmi_cmd {
  const char *name;
  void (*handle)(run_job_t *job, int r, const hc_pmi1_msg_t *m);
} pmi_cmd_t;

static const pmi_cmd_t pmi_cmds[] = {
    {"init", pmi_cmd_init},
    {"get_maxes", pmi_cmd_maxes},
    {"get_appnum", pmi_cmd_appnum},
    {"get_universe_size", pmi_cmd_universe},
    {"get_my_kvsname", pmi_cmd_kvsname},
    {"put", pmi_cmd_put},
    {"get", pmi_cmd_get},
    {"barrier_in", pmi_cmd_barrier},
    {"finalize", pmi_cmd_finalize},
    {"abort", pmi_cmd_abort},
    {"hc_spawn", run_pmi_spawn},
    {"hc_spawn_data", run_pmi_spawn_data},
};

static void pmi_dispatch(run_job_t *job, int r, const char *line, size_t len) {
  static hc_pmi1_msg_t msg;
  if (hc_pmi1_parse(line, len, &msg) != 0) {
    run_status_clear(job);
    fprintf(stderr, "hcmpirun: rank %d: malformed PMI line: %.80s\n", r, line);
    return;
  }
  const char *cmd = hc_pmi1_cmd(&msg);
  for (size_t i = 0; i < sizeof pmi_cmds / sizeof pmi_cmds[0]; i++)
    if (strcmp(cmd, pmi_cmds[i].name) == 0) {
      pmi_cmds[i].handle(job, r, &msg);
      return;
    }
  run_status_clear(job);
  fprintf(stderr, "hcmpirun: rank %d: unsupported PMI command '%s'\n", r, cmd);
  char reply[128];
  run_reply(job, r, reply,
            hc_pmi1_format(reply, sizeof reply, cmd, "rc", "-1", "msg",
                           "unsupported_command", NULL));
}

static void pmi_close(run_rank_t *rk) {
  close(rk->pmi_fd);
  rk->pmi_fd = -1;
  run_spawn_data_free(rk);
}

static void pmi_serve(run_job_t *job, int r) {
  run_rank_t *rk = &job->ranks[r];
  ssize_t n = hc_pmi1_reader_fill(&rk->reader);
  if (n < 0 && errno == EAGAIN)
    return;
  static char line[HC_PMI1_LINE_MAX];
  ssize_t len;
  while (rk->pmi_fd >= 0 &&
         (len = hc_pmi1_reader_next(&rk->reader, line, sizeof line)) != -1) {
    if (len == -2) {
      run_status_clear(job);
      fprintf(stderr, "hcmpirun: rank %d: PMI line too long\n", r);
    } else
      pmi_dispatch(job, r, line, (size_t)len);
  }
  if (n < 0 && errno == EMSGSIZE) {
    run_status_clear(job);
    fprintf(stderr, "hcmpirun: rank %d: PMI line too long\n", r);
  }
  if (n <= 0 && rk->pmi_fd >= 0)
    pmi_close(rk);
}

/* ---- children ------------------------------------------------------------ */

/* A rank killed by a signal the teardown did not send died on its own, even
 * if it is reaped after another rank's failure started the teardown (over
 * tcp a peer sees the death and aborts before the kernel reports it). */
static int run_death_is_news(const run_job_t *job, int status) {
  if (!job->terminating)
    return 1;
  if (!WIFSIGNALED(status))
    return 0;
  int sig = WTERMSIG(status);
  return sig != job->term_sig && !(sig == SIGKILL && job->killed);
}

static void run_report_exit(run_job_t *job, int r, int status) {
  run_rank_t *rk = &job->ranks[r];
  int code;
  char what[160];
  int stop_others = !rk->finalized;
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    code = 128 + sig;
    snprintf(what, sizeof what, "killed by signal %d (%s)", sig,
             strsignal(sig));
  } else {
    code = WEXITSTATUS(status);
    snprintf(what, sizeof what, "exited with code %d%s", code,
             rk->finalized ? "" : " before MPI_Finalize");
    if (code == 0 && rk->initialized && !rk->finalized) {
      /* Its peers may wait for it in a fence forever. */
      code = 1;
      snprintf(what, sizeof what,
               "exited with code 0 without calling MPI_Finalize");
    }
  }
  if (code == 0)
    return;
  job->nfailed++;
  run_status_clear(job);
  /* A status the program chose after MPI_Finalize is its own: passed on
   * but not named, as Hydra does (the ranks' work completed). */
  int quiet = (job->opt.quiet_exits || rk->finalized) && WIFEXITED(status);
  if (run_death_is_news(job, status) && !quiet)
    fprintf(stderr, "hcmpirun: rank %d (pid %ld) %s\n", r, (long)rk->pid, what);
  run_fail(job, code);
  if (job->opt.keep_going)
    run_barrier_check(job);
  else if (stop_others || WIFSIGNALED(status))
    run_terminate(job, SIGTERM);
}

static void run_reap(run_job_t *job) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    for (int r = 0; r < job->nranks; r++) {
      run_rank_t *rk = &job->ranks[r];
      if (rk->pid != pid || !rk->alive)
        continue;
      rk->alive = 0;
      job->nalive--;
      /* Requests it sent just before exiting (finalize) count. */
      if (rk->pmi_fd >= 0)
        pmi_serve(job, r);
      if (rk->pmi_fd >= 0)
        pmi_close(rk);
      run_report_exit(job, r, status);
    }
  }
}

static void run_on_signal(run_job_t *job) {
  struct signalfd_siginfo si;
  while (read(job->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
    int sig = (int)si.ssi_signo;
    if (sig == SIGCHLD)
      continue;
    if (!job->interrupt_sig)
      job->interrupt_sig = sig;
    /* Signalled again while the job ends: the user wants no more grace. */
    if (job->terminating) {
      run_signal_all(job, SIGKILL);
      job->killed = 1;
    }
    run_terminate(job, sig);
  }
  run_reap(job);
}

/* ---- start-up ------------------------------------------------------------ */

static void run_close_from(int lowfd) {
  if (close_range((unsigned)lowfd, ~0U, 0) == 0)
    return;
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 65536)
    max = 65536;
  for (int fd = lowfd; fd < max; fd++)
    close(fd);
}

static void run_set_env(const run_job_t *job, int r) {
  char num[24];
  const run_world_t *w = &job->worlds[job->ranks[r].world];
  snprintf(num, sizeof num, "%d", job->ranks[r].wrank);
  setenv("PMI_RANK", num, 1);
  setenv("MPI_LOCALRANKID", num, 1);
  snprintf(num, sizeof num, "%d", w->n);
  setenv("PMI_SIZE", num, 1);
  setenv("MPI_LOCALNRANKS", num, 1);
  /* What lets the ranks ask for more (MPI_Comm_spawn), and, spawned,
   * where the parents wait (src/hcomm/dynamic.c connects). */
  setenv("HCMPI_LAUNCHER", "hcmpirun", 1);
  if (w->port != NULL)
    setenv("HCMPI_PARENT_PORT", w->port, 1);
  else
    unsetenv("HCMPI_PARENT_PORT");
  setenv("PMI_FD", "3", 1);
  unsetenv("PMI_PORT");
  unsetenv("PMI_ID");
  if (job->opt.ld_path != NULL)
    setenv("LD_LIBRARY_PATH", job->opt.ld_path, 1);
  if (job->opt.preload != NULL)
    setenv("LD_PRELOAD", job->opt.preload, 1);
  for (int i = 0; i < job->opt.nenv; i++)
    putenv(job->opt.env[i]);
}

/* In the child between fork and exec: stdout/stderr into the pipes, stdin
 * only for rank 0, the PMI socket as fd 3, nothing else open. */
static void run_child(const run_job_t *job, int r, int pmi, int out, int err,
                      int in, const sigset_t *oldmask) {
  /* A SIGKILLed launcher takes its ranks along; the getppid check closes
   * the window in which it died before the prctl. */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != job->launcher)
    _exit(127);
  /* Its own process group, which the teardown signals as a whole. */
  if (setpgid(0, 0) != 0)
    _exit(127);
  if (dup2(out, 1) < 0 || dup2(err, 2) < 0)
    _exit(127);
  run_bind_apply(&job->opt.bind, r);
  if (r != 0) {
    int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, 0) < 0)
      _exit(127);
  } else if (in >= 0 && dup2(in, 0) < 0) {
    _exit(127);
  }
  if (pmi == 3)
    fcntl(pmi, F_SETFD, 0);
  else if (dup2(pmi, 3) < 0)
    _exit(127);
  run_close_from(4);
  run_set_env(job, r);
  signal(SIGPIPE, SIG_DFL);
  /* The launcher forwards SIGINT and SIGTERM so that ranks act on them,
   * also when a shell started hcmpirun in the background with them ignored
   * (an ignored disposition survives exec). */
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  sigprocmask(SIG_SETMASK, oldmask, NULL);
  char **argv = job->ranks[r].argv;
  if (job->ranks[r].wdir != NULL && chdir(job->ranks[r].wdir) != 0) {
    fprintf(stderr, "hcmpirun: cannot enter %s: %s\n", job->ranks[r].wdir,
            strerror(errno));
    _exit(127);
  }
  execvp(argv[0], argv);
  fprintf(stderr, "hcmpirun: cannot execute %s: %s\n", argv[0],
          strerror(errno));
  _exit(127);
}

static void run_stream_init(run_stream_t *s, int fd, int to) {
  s->fd = fd;
  s->to = to;
  s->at_line_start = 1;
  s->len = 0;
}

int run_spawn(run_job_t *job, int r, const sigset_t *oldmask) {
  int sv[2], po[2], pe[2], pi[2] = {-1, -1};
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return -1;
  if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0)
    return -1;
  if (r == 0 && isatty(0) && pipe2(pi, O_CLOEXEC) != 0)
    return -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0)
    run_child(job, r, sv[1], po[1], pe[1], pi[0], oldmask);
  close(sv[1]);
  close(po[1]);
  close(pe[1]);
  if (pi[0] >= 0) {
    close(pi[0]);
    fcntl(pi[1], F_SETFL, O_NONBLOCK);
    job->stdin_to = pi[1];
  }
  /* Also here, so that no signal of the teardown finds the group missing
   * (whichever of the two calls comes second fails harmlessly). */
  setpgid(pid, pid);
  run_rank_t *rk = &job->ranks[r];
  rk->pid = pid;
  rk->alive = 1;
  rk->pmi_fd = sv[0];
  fcntl(sv[0], F_SETFL, O_NONBLOCK);
  fcntl(po[0], F_SETFL, O_NONBLOCK);
  fcntl(pe[0], F_SETFL, O_NONBLOCK);
  hc_pmi1_reader_init(&rk->reader, sv[0]);
  run_stream_init(&rk->out, po[0], 1);
  run_stream_init(&rk->err, pe[0], 2);
  job->nalive++;
  return 0;
}

/* ---- main loop ----------------------------------------------------------- */

enum {
  RUN_FD_SIG,
  RUN_FD_PMI,
  RUN_FD_OUT,
  RUN_FD_ERR,
  RUN_FD_IN,
  RUN_FD_IN_PIPE
};

typedef struct run_pollset {
  struct pollfd *fds;
  int *rank;
  int *kind;
  int n;
} run_pollset_t;

static void run_poll_add(run_pollset_t *ps, int fd, int rank, int kind) {
  if (fd < 0)
    return;
  short events = kind == RUN_FD_IN_PIPE ? POLLOUT : POLLIN;
  ps->fds[ps->n] = (struct pollfd){.fd = fd, .events = events};
  ps->rank[ps->n] = rank;
  ps->kind[ps->n] = kind;
  ps->n++;
}

static void run_poll_build(run_job_t *job, run_pollset_t *ps) {
  ps->n = 0;
  run_poll_add(ps, job->sigfd, -1, RUN_FD_SIG);
  for (int r = 0; r < job->nranks; r++) {
    run_poll_add(ps, job->ranks[r].pmi_fd, r, RUN_FD_PMI);
    run_poll_add(ps, job->ranks[r].out.fd, r, RUN_FD_OUT);
    run_poll_add(ps, job->ranks[r].err.fd, r, RUN_FD_ERR);
  }
  if (job->stdin_to >= 0 && !job->ranks[0].alive)
    run_stdin_close(job);
  if (run_stdin_wanted(job))
    run_poll_add(ps, 0, 0, RUN_FD_IN);
  else if (job->stdin_len > 0)
    run_poll_add(ps, job->stdin_to, 0, RUN_FD_IN_PIPE);
}

/* Milliseconds until the next deadline (kill or timeout); -1 for none. */
static int run_poll_timeout(run_job_t *job) {
  double next = 0;
  if (job->terminating && !job->killed)
    next = job->kill_at;
  if (job->deadline > 0 && !job->terminating)
    next = job->deadline;
  if (job->nalive == 0)
    return 1000; /* only pipes held by grandchildren remain */
  if (job->status_on && (next == 0 || job->status_due < next))
    next = job->status_due;
  /* In the background: look again later whether the terminal is ours. */
  if (job->stdin_to >= 0 && job->stdin_len == 0 && !run_stdin_wanted(job) &&
      (next == 0 || run_now() + 1.0 < next))
    next = run_now() + 1.0;
  if (next == 0)
    return -1;
  double ms = (next - run_now()) * 1000.0 + 1;
  return ms < 0 ? 0 : ms > INT_MAX ? INT_MAX : (int)ms;
}

static void run_check_deadlines(run_job_t *job) {
  double now = run_now();
  if (job->deadline > 0 && !job->terminating && now >= job->deadline) {
    run_status_clear(job);
    fprintf(stderr,
            "hcmpirun: job timed out after %ld seconds; terminating it\n",
            job->opt.timeout_s);
    run_fail(job, RUN_EXIT_TIMEOUT);
    run_terminate(job, SIGTERM);
  }
  if (job->terminating && !job->killed && now >= job->kill_at) {
    run_signal_all(job, SIGKILL);
    job->killed = 1;
  }
}

static void run_handle(run_job_t *job, const run_pollset_t *ps) {
  for (int i = 0; i < ps->n; i++) {
    if (ps->fds[i].revents == 0)
      continue;
    int r = ps->rank[i];
    switch (ps->kind[i]) {
    case RUN_FD_SIG:
      run_on_signal(job);
      break;
    case RUN_FD_PMI:
      if (job->ranks[r].pmi_fd == ps->fds[i].fd)
        pmi_serve(job, r);
      break;
    case RUN_FD_OUT:
      run_stream_read(job, r, &job->ranks[r].out);
      break;
    case RUN_FD_IN:
      run_stdin_read(job);
      break;
    case RUN_FD_IN_PIPE:
      if (job->stdin_to >= 0)
        run_stdin_write(job);
      break;
    default:
      run_stream_read(job, r, &job->ranks[r].err);
      break;
    }
  }
}

/* Room in the poll set for every rank's descriptors. */
static void run_poll_room(run_job_t *job, run_pollset_t *ps, size_t *cap) {
  size_t want = 2 + 3 * (size_t)job->nranks;
  if (want <= *cap)
    return;
  ps->fds = realloc(ps->fds, want * sizeof *ps->fds);
  ps->rank = realloc(ps->rank, want * sizeof *ps->rank);
  ps->kind = realloc(ps->kind, want * sizeof *ps->kind);
  if (ps->fds == NULL || ps->rank == NULL || ps->kind == NULL) {
    perror("hcmpirun");
    exit(1);
  }
  *cap = want;
}

static void run_loop(run_job_t *job) {
  size_t cap = 0;
  run_pollset_t ps = {NULL, NULL, NULL, 0};
  run_status_tick(job);
  for (;;) {
    run_poll_room(job, &ps, &cap);
    run_poll_build(job, &ps);
    if (job->nalive == 0 && ps.n == 1)
      break;
    int n = poll(ps.fds, (nfds_t)ps.n, run_poll_timeout(job));
    if (n < 0 && errno != EINTR) {
      perror("hcmpirun: poll");
      break;
    }
    if (n == 0 && job->nalive == 0)
      break; /* grandchildren keep the pipes open; stop waiting */
    run_check_deadlines(job);
    if (n > 0)
      run_handle(job, &ps);
    while (job->pending != NULL)
      run_spawn_pending(job);
    run_status_tick(job);
  }
  run_status_clear(job);
  for (int r = 0; r < job->nranks; r++) {
    if (job->ranks[r].out.fd >= 0)
      run_stream_close(job, r, &job->ranks[r].out);
    if (job->ranks[r].err.fd >= 0)
      run_stream_close(job, r, &job->ranks[r].err);
  }
  free(ps.fds);
  free(ps.rank);
  free(ps.kind);
}

/* fds 0-2 must exist so that our own pipes and sockets never land there. */
static void run_ensure_std_fds(void) {
  for (int fd = 0; fd < 3; fd++)
    if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
      exit(1);
}

static int run_setup(run_job_t *job, sigset_t *oldmask) {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGHUP);
  if (sigprocmask(SIG_BLOCK, &mask, oldmask) != 0)
    return -1;
  job->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (job->sigfd < 0)
    return -1;
  signal(SIGPIPE, SIG_IGN);
  job->launcher = getpid();
  job->started = run_now();
  job->status_on = job->opt.progress && isatty(2);
  if (hc_env_bool("HCMPI_FT", 0))
    job->opt.keep_going = 1;
  hc_kvstore_init(&job->kv);
  job->kv_rank_max = hc_env_size("HCMPI_KVS_RANK_BYTES", (size_t)1 << 20);
  job->kv_max = hc_env_size("HCMPI_KVS_BYTES", (size_t)256 << 20);
  snprintf(job->kvsname, sizeof job->kvsname, "hcmpirun_%ld", (long)getpid());
  /* What MPICH's own PMI client asks for: one node, all ranks on it. */
  char mapping[64];
  snprintf(mapping, sizeof mapping, "(vector,(0,1,%d))", job->opt.n);
  hc_kvstore_set(&job->kv, "PMI_process_mapping", mapping, 0);
  job->stdin_to = -1;
  job->oldmask = oldmask;
  job->ranks = calloc((size_t)job->opt.n, sizeof *job->ranks);
  job->worlds = calloc(1, sizeof *job->worlds);
  if (job->ranks == NULL || job->worlds == NULL)
    return -1;
  job->nranks = job->opt.n;
  job->nworlds = 1;
  job->worlds[0] = (run_world_t){.n = job->opt.n, .ncmds = 1, .asked_by = -1};
  for (int r = 0; r < job->opt.n; r++)
    job->ranks[r] = (run_rank_t){.wrank = r, .argv = job->opt.argv};
  return 0;
}

static int run_exit_status(const run_job_t *job) {
  if (job->have_code)
    return job->exit_code;
  if (job->interrupt_sig)
    return 128 + job->interrupt_sig;
  return 0;
}

/* The per-job secret that authenticates the ranks' tcp connections, in
 * every rank's environment; one the user exported (a job spanning several
 * launchers) is kept. */
static int run_job_secret(void) {
  const char *have = getenv("HCMPI_JOB_SECRET");
  char hex[HC_SECRET_HEX];
  if (have != NULL && have[0] != '\0')
    return 0;
  if (hc_secret_new(hex, sizeof hex) != 0)
    return -1;
  return setenv("HCMPI_JOB_SECRET", hex, 1);
}

/* The tag of the job's named shared segments (util/shmseg.h), which the
 * launcher sweeps from /dev/shm when the job ends; NULL where the user
 * exported one (a job spanning launchers: the last to end cannot know
 * which it is) or none could be made. */
static const char *run_shm_tag(void) {
  const char *have = getenv("HCMPI_SHM_TAG");
  char hex[HC_SECRET_HEX];
  if ((have != NULL && have[0] != '\0') || hc_secret_new(hex, sizeof hex) != 0)
    return NULL;
  hex[HC_SHMSEG_TAG_MAX] = '\0';
  if (setenv("HCMPI_SHM_TAG", hex, 1) != 0)
    return NULL;
  return getenv("HCMPI_SHM_TAG");
}

int main(int argc, char **argv) {
  static run_job_t job;
  int rc = run_parse_args(argc, argv, &job.opt);
  if (rc != 0) {
    if (rc < 0)
      run_usage(stderr);
    return rc < 0 ? 1 : 0;
  }
  char why[512];
  if (hc_env_check("hcmpirun", why, sizeof why) != 0) {
    fprintf(stderr, "hcmpirun: %s\n", why);
    return 1;
  }
  if (job.opt.relink && run_relink_setup(&job.opt) != 0)
    return 1;
  if (run_job_secret() != 0) {
    perror("hcmpirun: job secret");
    return 1;
  }
  const char *shm_tag = run_shm_tag();
  run_ensure_std_fds();
  sigset_t oldmask;
  if (run_setup(&job, &oldmask) != 0) {
    perror("hcmpirun: setup");
    return 1;
  }
  for (int r = 0; r < job.opt.n; r++) {
    job.ranks[r].pmi_fd = job.ranks[r].out.fd = job.ranks[r].err.fd = -1;
    if (run_spawn(&job, r, &oldmask) != 0) {
      fprintf(stderr, "hcmpirun: cannot start rank %d: %s\n", r,
              strerror(errno));
      run_fail(&job, 1);
      run_terminate(&job, SIGTERM);
      for (int k = r + 1; k < job.opt.n; k++)
        job.ranks[k].pmi_fd = job.ranks[k].out.fd = job.ranks[k].err.fd = -1;
      break;
    }
  }
  if (job.opt.timeout_s > 0)
    job.deadline = run_now() + (double)job.opt.timeout_s;
  run_loop(&job);
  /* Ranks unlink their segments once mapped; a rank killed before that
   * left its name here. */
  if (shm_tag != NULL)
    hc_shmseg_sweep(shm_tag);
  hc_kvstore_fini(&job.kv);
  for (int r = 0; r < job.nranks; r++)
    run_spawn_data_free(&job.ranks[r]);
  for (int w = 1; w < job.nworlds; w++) {
    for (int c = 0; c < job.worlds[w].ncmds; c++) {
      free(job.worlds[w].args[c]);
      free(job.worlds[w].argv[c]);
      free(job.worlds[w].wdir[c]);
    }
    free(job.worlds[w].port);
  }
  free(job.worlds);
  free(job.ranks);
  return run_exit_status(&job);
}
