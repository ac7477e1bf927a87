/*
 * Drives the bootstrap layer the way the engine does: select, init, put,
 * fence, get, fini.  By default every rank publishes a value, and checks
 * the value of every other rank over two fence epochs.  Options make one
 * rank fail in a chosen way so that launchers' error handling can be tested.
 *
 *   pmi_client [--expect-size N] [--expect-backend NAME]
 *              [--fail-rank R --exit-code C] [--kill-rank R]
 *              [--abort-rank R --exit-code C] [--stdin] [--no-fini]
 *              [--fini-exit-rank R --exit-code C] [--flood-rank R|-1]
 *
 * --fini-exit-rank: rank R says goodbye (fini) as every rank does, then
 * exits with code C (a program's own status after MPI_Finalize).
 * --flood-rank: after the checks, rank R (every rank for -1) replaces one
 * key 2000 times, then puts new keys of 900 bytes until the launcher
 * refuses one (at most 20000) and says how many it took.
 * Exits 0 only when every check passed.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"

typedef struct client_opts {
  int expect_size;
  const char *expect_backend;
  int fail_rank;
  int kill_rank;
  int abort_rank;
  int fini_exit_rank;
  int exit_code;
  int read_stdin;
  int no_fini;
  int flood_rank; /* -2: none, -1: every rank */
} client_opts_t;

static int client_fail(int rank, const char *what) {
  fprintf(stderr, "pmi_client: rank %d: FAIL: %s\n", rank, what);
  return 1;
}

static void client_parse(int argc, char **argv, client_opts_t *o) {
  *o = (client_opts_t){.expect_size = -1,
                       .fail_rank = -1,
                       .kill_rank = -1,
                       .abort_rank = -1,
                       .fini_exit_rank = -1,
                       .flood_rank = -2,
                       .exit_code = 1};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : "";
    if (strcmp(a, "--stdin") == 0 || strcmp(a, "--no-fini") == 0) {
      o->read_stdin |= strcmp(a, "--stdin") == 0;
      o->no_fini |= strcmp(a, "--no-fini") == 0;
      continue;
    }
    i++;
    if (strcmp(a, "--expect-size") == 0)
      o->expect_size = atoi(v);
    else if (strcmp(a, "--expect-backend") == 0)
      o->expect_backend = v;
    else if (strcmp(a, "--fail-rank") == 0)
      o->fail_rank = atoi(v);
    else if (strcmp(a, "--kill-rank") == 0)
      o->kill_rank = atoi(v);
    else if (strcmp(a, "--abort-rank") == 0)
      o->abort_rank = atoi(v);
    else if (strcmp(a, "--fini-exit-rank") == 0)
      o->fini_exit_rank = atoi(v);
    else if (strcmp(a, "--exit-code") == 0)
      o->exit_code = atoi(v);
    else if (strcmp(a, "--flood-rank") == 0)
      o->flood_rank = atoi(v);
    else {
      fprintf(stderr, "pmi_client: unknown option %s\n", a);
      exit(2);
    }
  }
}

/* Puts key "<prefix>-<rank>", fences, and checks every rank's value. */
static int client_exchange(const hc_bootstrap_ops_t *ops, void *ctx,
                           const hc_bootstrap_info_t *info,
                           const char *prefix) {
  char key[HC_BOOTSTRAP_KEY_MAX], want[128], got[HC_BOOTSTRAP_VALUE_MAX];
  snprintf(key, sizeof key, "%s-%d", prefix, info->rank);
  /* '=' and ';' must survive the wire. */
  snprintf(want, sizeof want, "rank=%d;%s;port=%d", info->rank, prefix,
           1000 + info->rank * 7);
  if (ops->put(ctx, key, want) != HC_OK)
    return client_fail(info->rank, "put");
  if (ops->fence(ctx) != HC_OK)
    return client_fail(info->rank, "fence");
  for (int r = 0; r < info->size; r++) {
    snprintf(key, sizeof key, "%s-%d", prefix, r);
    snprintf(want, sizeof want, "rank=%d;%s;port=%d", r, prefix, 1000 + r * 7);
    for (int again = 0; again < 2; again++) {
      memset(got, 0, sizeof got);
      if (ops->get(ctx, key, got, sizeof got) != HC_OK)
        return client_fail(info->rank, "get");
      if (strcmp(got, want) != 0) {
        fprintf(stderr, "pmi_client: rank %d: key %s: got '%s' want '%s'\n",
                info->rank, key, got, want);
        return 1;
      }
    }
  }
  return 0;
}

static int client_check_info(const client_opts_t *o, const char *backend,
                             const hc_bootstrap_info_t *info) {
  if (o->expect_size >= 0 && info->size != o->expect_size)
    return client_fail(info->rank, "unexpected size");
  if (o->expect_backend && strcmp(o->expect_backend, backend) != 0)
    return client_fail(info->rank, "unexpected backend");
  if (info->rank < 0 || info->rank >= info->size)
    return client_fail(info->rank, "rank out of range");
  return 0;
}

static void client_read_stdin(int rank) {
  char buf[256];
  if (fgets(buf, sizeof buf, stdin) == NULL) {
    printf("rank %d stdin: EOF\n", rank);
    return;
  }
  buf[strcspn(buf, "\n")] = '\0';
  printf("rank %d stdin: %s\n", rank, buf);
}

/* The failure modes: this rank misbehaves, the others wait in a fence that
 * can only end when the launcher tears the job down. */
static void client_misbehave(const client_opts_t *o,
                             const hc_bootstrap_ops_t *ops, void *ctx,
                             int rank) {
  if (rank == o->fail_rank) {
    fflush(stdout);
    _exit(o->exit_code);
  }
  if (rank == o->kill_rank)
    raise(SIGKILL);
  if (rank == o->abort_rank) {
    ops->abort(ctx, o->exit_code, "pmi_client test abort");
    _exit(o->exit_code);
  }
  if (o->fail_rank >= 0 || o->kill_rank >= 0 || o->abort_rank >= 0) {
    ops->fence(ctx);
    ops->fence(ctx);
  }
}

/* Replacing one key costs nothing more each time; new keys do, until the
 * launcher's bound refuses one (0), or it took them all (1). */
static int client_flood(const hc_bootstrap_ops_t *ops, void *ctx, int rank) {
  char key[HC_BOOTSTRAP_KEY_MAX], value[901];
  memset(value, 'v', sizeof value - 1);
  value[sizeof value - 1] = '\0';
  snprintf(key, sizeof key, "same-%d", rank);
  for (int i = 0; i < 2000; i++)
    if (ops->put(ctx, key, value) != HC_OK) {
      printf("pmi_client: rank %d: replacing one key refused at %d\n", rank, i);
      return 1;
    }
  for (int i = 0; i < 20000; i++) {
    snprintf(key, sizeof key, "flood-%d-%d", rank, i);
    if (ops->put(ctx, key, value) != HC_OK) {
      printf("pmi_client: rank %d: put %d refused\n", rank, i);
      return 0;
    }
  }
  printf("pmi_client: rank %d: all 20000 puts taken\n", rank);
  return 1;
}

int main(int argc, char **argv) {
  client_opts_t o;
  client_parse(argc, argv, &o);
  const hc_bootstrap_ops_t *ops = hc_bootstrap_select();
  void *ctx = NULL;
  hc_bootstrap_info_t info;
  if (ops->init(&ctx, &info) != HC_OK)
    return client_fail(-1, "init");
  int bad = client_check_info(&o, ops->name, &info);
  client_misbehave(&o, ops, ctx, info.rank);
  if (!bad)
    bad = client_exchange(ops, ctx, &info, "card");
  if (!bad)
    bad = client_exchange(ops, ctx, &info, "epoch2");
  char v[64];
  if (!bad && ops->get(ctx, "no-such-key", v, sizeof v) != HC_ERR_BOOTSTRAP)
    bad = client_fail(info.rank, "unknown key did not give HC_ERR_BOOTSTRAP");
  if (bad) {
    /* Peers may be waiting for us in a fence. */
    ops->abort(ctx, 1, "pmi_client: check failed");
    return 1;
  }
  if (o.read_stdin)
    client_read_stdin(info.rank);
  if (o.flood_rank == -1 || o.flood_rank == info.rank)
    bad = client_flood(ops, ctx, info.rank);
  if (o.no_fini) {
    /* An erroneous program: ends without saying goodbye (and _exit keeps
     * leak checkers quiet about the context it drops). */
    fflush(stdout);
    _exit(0);
  }
  ops->fini(ctx);
  if (!bad)
    printf("pmi_client: rank %d of %d ok (%s)\n", info.rank, info.size,
           ops->name);
  if (!bad && info.rank == o.fini_exit_rank)
    return o.exit_code;
  return bad;
}
