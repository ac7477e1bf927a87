/* PMI-2 wire format, and the pmi2 backend against a scripted server that
 * answers the way Slurm 22.05's mpi/pmi2 plugin does. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/kvstore.h"
#include "bootstrap/pmi2_wire.h"

static hc_pmi1_msg_t msg;

START_TEST(formats_frame_with_left_aligned_length) {
  char buf[128];
  int n = hc_pmi2_format(buf, sizeof buf, "kvs-put", "key", "k1", "value",
                         "v=1", NULL);
  ck_assert_int_eq(n, 6 + 29);
  ck_assert_str_eq(buf, "29    cmd=kvs-put;key=k1;value=v=1;");
  n = hc_pmi2_format(buf, sizeof buf, "kvs-fence", NULL);
  ck_assert_str_eq(buf, "14    cmd=kvs-fence;");
  ck_assert_int_eq(n, 20);
}
END_TEST

START_TEST(builds_a_frame_field_by_field) {
  char buf[64];
  size_t used = 0;
  ck_assert_int_eq(hc_pmi2_add(buf, sizeof buf, &used, "cmd", "spawn"), 0);
  ck_assert_int_eq(hc_pmi2_add(buf, sizeof buf, &used, "argv0", NULL), 0);
  ck_assert_int_eq(hc_pmi2_add(buf, sizeof buf, &used, "argv1", "a;b"), -1);
  ck_assert_int_eq(hc_pmi2_seal(buf, used), 6 + 17);
  buf[used] = '\0';
  ck_assert_str_eq(buf, "17    cmd=spawn;argv0=;");
  char big[80];
  memset(big, 'y', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  ck_assert_int_eq(hc_pmi2_add(buf, sizeof buf, &used, "k", big), -1);
  ck_assert_int_eq(hc_pmi2_seal(buf, 6), -1); /* no body */
}
END_TEST

START_TEST(format_refuses_separators_and_overflow) {
  char buf[64];
  ck_assert_int_eq(
      hc_pmi2_format(buf, sizeof buf, "kvs-put", "key", "a;b", NULL), -1);
  ck_assert_int_eq(hc_pmi2_format(buf, sizeof buf, "kvs-put", "k=1", "v", NULL),
                   -1);
  ck_assert_int_eq(
      hc_pmi2_format(buf, sizeof buf, "kvs-put", "key", "v\n", NULL), -1);
  ck_assert_int_eq(hc_pmi2_format(buf, sizeof buf, "kvs-put", "", "v", NULL),
                   -1);
  char big[80];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  ck_assert_int_eq(
      hc_pmi2_format(buf, sizeof buf, "kvs-put", "value", big, NULL), -1);
  ck_assert_int_eq(hc_pmi2_format(buf, 6, "x", NULL), -1);
}
END_TEST

START_TEST(parses_slurm_fullinit_response) {
  const char *body = "cmd=fullinit-response;rc=0;pmi-version=2;"
                     "pmi-subversion=0;rank=3;size=4;appnum=-1;"
                     "debugged=FALSE;pmiverbose=FALSE;";
  ck_assert_int_eq(hc_pmi2_parse(body, strlen(body), &msg), 0);
  ck_assert_str_eq(hc_pmi1_cmd(&msg), "fullinit-response");
  ck_assert_int_eq(hc_pmi1_rc(&msg), 0);
  ck_assert_int_eq(hc_pmi1_get_long(&msg, "rank", -9), 3);
  ck_assert_int_eq(hc_pmi1_get_long(&msg, "size", -9), 4);
  ck_assert_int_eq(hc_pmi1_get_long(&msg, "appnum", -9), -1);
  ck_assert_int_eq(hc_pmi2_get_bool(&msg, "debugged", 7), 0);
  ck_assert_int_eq(msg.nfields, 9);
}
END_TEST

START_TEST(parses_values_with_equals_and_missing_last_separator) {
  const char *body = "cmd=kvs-get-response;rc=0;found=TRUE;value=a=b%3Bc";
  ck_assert_int_eq(hc_pmi2_parse(body, strlen(body), &msg), 0);
  ck_assert_int_eq(hc_pmi2_get_bool(&msg, "found", 0), 1);
  ck_assert_str_eq(hc_pmi1_get(&msg, "value"), "a=b%3Bc");
  body = "cmd=kvs-get-response;rc=0;found=false;";
  ck_assert_int_eq(hc_pmi2_parse(body, strlen(body), &msg), 0);
  ck_assert_int_eq(hc_pmi2_get_bool(&msg, "found", 1), 0);
  ck_assert_ptr_null(hc_pmi1_get(&msg, "value"));
}
END_TEST

START_TEST(parse_rejects_malformed_bodies) {
  const char *bad[] = {"rc=0;cmd=x;", "cmd=x;novalue;", "cmd=x;=v;", "", ";"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_int_eq(hc_pmi2_parse(bad[i], strlen(bad[i]), &msg), -1);
  char many[512] = "cmd=x;";
  for (int i = 0; i < HC_PMI1_FIELDS_MAX; i++)
    strcat(many, "k=v;");
  ck_assert_int_eq(hc_pmi2_parse(many, strlen(many), &msg), -1);
}
END_TEST

START_TEST(escape_round_trips_separators) {
  char esc[64], plain[64];
  ck_assert_int_eq(hc_pmi2_escape("rank=1;card;100%", esc, sizeof esc), 22);
  ck_assert_str_eq(esc, "rank=1%3Bcard%3B100%25");
  ck_assert_int_eq(hc_pmi2_unescape(esc, plain, sizeof plain), 16);
  ck_assert_str_eq(plain, "rank=1;card;100%");
  ck_assert_int_eq(hc_pmi2_escape(";;", esc, 6), -1);
  ck_assert_int_eq(hc_pmi2_escape(";;", esc, 7), 6);
  ck_assert_int_eq(hc_pmi2_unescape("a%2", plain, sizeof plain), -1);
  ck_assert_int_eq(hc_pmi2_unescape("a%41", plain, sizeof plain), -1);
  ck_assert_int_eq(hc_pmi2_unescape("abc", plain, 3), -1);
}
END_TEST

START_TEST(reads_frames_split_and_back_to_back) {
  int sv[2];
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  const char *a = "23    cmd=kvs-fence-response;";
  const char *b = "27    cmd=finalize-response;rc=0;";
  ck_assert_int_eq(write(sv[1], a, 3), 3);
  hc_pmi1_reader_t r;
  hc_pmi1_reader_init(&r, sv[0]);
  /* The rest of a, then all of b, arrive while we wait. */
  ck_assert_int_eq(write(sv[1], a + 3, strlen(a) - 3), (ssize_t)strlen(a) - 3);
  ck_assert_int_eq(write(sv[1], b, strlen(b)), (ssize_t)strlen(b));
  ck_assert_int_eq(hc_pmi2_read_frame(&r, &msg), 0);
  ck_assert_str_eq(hc_pmi1_cmd(&msg), "kvs-fence-response");
  ck_assert_int_eq(hc_pmi2_read_frame(&r, &msg), 0);
  ck_assert_str_eq(hc_pmi1_cmd(&msg), "finalize-response");
  ck_assert_int_eq(write(sv[1], "abcdef", 6), 6);
  ck_assert_int_eq(hc_pmi2_read_frame(&r, &msg), -1);
  ck_assert_int_eq(errno, EPROTO);
  close(sv[1]);
  close(sv[0]);
  /* The peer goes away in the middle of a frame. */
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  hc_pmi1_reader_init(&r, sv[0]);
  ck_assert_int_eq(write(sv[1], b, 10), 10);
  close(sv[1]);
  ck_assert_int_eq(hc_pmi2_read_frame(&r, &msg), -1);
  ck_assert_int_eq(errno, ECONNRESET);
  close(sv[0]);
}
END_TEST

/* ---- a scripted Slurm-like server in a thread ---- */

typedef struct fake_server {
  int fd;
  hc_kvstore_t kv;
  char log[4096]; /* every request body, one per line */
} fake_server_t;

static void fake_send(fake_server_t *s, const char *body) {
  char frame[2048];
  int n = snprintf(frame, sizeof frame, "%-6d%s", (int)strlen(body), body);
  ck_assert_int_eq(write(s->fd, frame, (size_t)n), n);
}

static void fake_reply(fake_server_t *s, hc_pmi1_msg_t *req) {
  const char *cmd = hc_pmi1_cmd(req);
  char body[1024];
  if (strcmp(cmd, "fullinit") == 0) {
    fake_send(s, "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;"
                 "rank=2;size=3;appnum=-1;debugged=FALSE;pmiverbose=FALSE;");
  } else if (strcmp(cmd, "info-getjobattr") == 0) {
    fake_send(s, "cmd=info-getjobattr-response;rc=0;found=TRUE;value=3;");
  } else if (strcmp(cmd, "kvs-put") == 0) {
    hc_kvstore_set(&s->kv, hc_pmi1_get(req, "key"), hc_pmi1_get(req, "value"),
                   0);
    fake_send(s, "cmd=kvs-put-response;rc=0;");
  } else if (strcmp(cmd, "kvs-fence") == 0) {
    /* Another rank's value, published during this epoch. */
    hc_kvstore_set(&s->kv, "card-0", "peer%3Bzero", 0);
    fake_send(s, "cmd=kvs-fence-response;rc=0;");
  } else if (strcmp(cmd, "kvs-get") == 0) {
    const char *v = hc_kvstore_get(&s->kv, hc_pmi1_get(req, "key"));
    snprintf(body, sizeof body, "cmd=kvs-get-response;rc=0;found=%s;%s%s%s",
             v ? "TRUE" : "FALSE", v ? "value=" : "", v ? v : "", v ? ";" : "");
    fake_send(s, body);
  } else if (strcmp(cmd, "finalize") == 0) {
    fake_send(s, "cmd=finalize-response;rc=0;");
  }
}

static void *fake_run(void *arg) {
  fake_server_t *s = arg;
  hc_pmi1_reader_t r;
  hc_pmi1_reader_init(&r, s->fd);
  char line[256];
  ssize_t n = hc_pmi1_read_line(&r, line, sizeof line);
  if (n < 0)
    return NULL;
  snprintf(s->log, sizeof s->log, "%s\n", line);
  const char *hello = "cmd=response_to_init rc=0 pmi_version=2 "
                      "pmi_subversion=0\n";
  if (write(s->fd, hello, strlen(hello)) < 0)
    return NULL;
  hc_pmi1_msg_t req;
  char raw[HC_PMI1_LINE_MAX];
  while (hc_pmi2_read_frame(&r, &req) == 0) {
    size_t used = strlen(s->log);
    /* Rebuild the body from the parsed fields for the log. */
    raw[0] = '\0';
    for (int i = 0; i < req.nfields; i++) {
      strcat(raw, req.fields[i].key);
      strcat(raw, "=");
      strcat(raw, req.fields[i].value);
      strcat(raw, ";");
    }
    snprintf(s->log + used, sizeof s->log - used, "%s\n", raw);
    fake_reply(s, &req);
  }
  return NULL;
}

START_TEST(backend_talks_to_slurm_like_server) {
  int sv[2];
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  fake_server_t *s = calloc(1, sizeof *s);
  s->fd = sv[1];
  hc_kvstore_init(&s->kv);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, fake_run, s), 0);
  char fdtext[16];
  snprintf(fdtext, sizeof fdtext, "%d", sv[0]);
  setenv("PMI_FD", fdtext, 1);
  setenv("PMI_JOBID", "7.0", 1);
  setenv("PMI_RANK", "2", 1);
  /* Slurm's kvs-fence is a barrier: no extra barrier keys on the wire. */
  setenv("SLURM_MPI_TYPE", "pmi2", 1);

  const hc_bootstrap_ops_t *ops = &hc_bootstrap_pmi2_ops;
  void *ctx = NULL;
  hc_bootstrap_info_t info;
  ck_assert_int_eq(ops->init(&ctx, &info), HC_OK);
  ck_assert_int_eq(info.rank, 2);
  ck_assert_int_eq(info.size, 3);
  ck_assert_int_eq(info.appnum, -1);
  ck_assert_int_eq(info.universe_size, 3);
  ck_assert_int_eq(ops->put(ctx, "card-2", "a=1;b%"), HC_OK);
  ck_assert_int_eq(ops->put(ctx, "bad key", "v"), HC_ERR_ARG);
  ck_assert_int_eq(ops->fence(ctx), HC_OK);
  char v[64];
  ck_assert_int_eq(ops->get(ctx, "card-0", v, sizeof v), HC_OK);
  ck_assert_str_eq(v, "peer;zero");
  ck_assert_int_eq(ops->get(ctx, "card-2", v, sizeof v), HC_OK);
  ck_assert_str_eq(v, "a=1;b%");
  ck_assert_int_eq(ops->get(ctx, "card-0", v, 5), HC_ERR_TRUNCATE);
  ck_assert_int_eq(ops->get(ctx, "nosuch", v, sizeof v), HC_ERR_BOOTSTRAP);
  ops->fini(ctx);
  unsetenv("SLURM_MPI_TYPE");
  ck_assert_int_eq(pthread_join(t, NULL), 0);
  ck_assert_str_eq(s->log,
                   "cmd=init pmi_version=2 pmi_subversion=0\n"
                   "cmd=fullinit;pmijobid=7.0;pmirank=2;threaded=FALSE;\n"
                   "cmd=info-getjobattr;key=universeSize;\n"
                   "cmd=kvs-put;key=card-2;value=a=1%3Bb%25;\n"
                   "cmd=kvs-fence;\n"
                   "cmd=kvs-get;srcid=-1;key=card-0;\n"
                   "cmd=kvs-get;srcid=-1;key=nosuch;\n"
                   "cmd=finalize;\n");
  close(sv[1]);
  hc_kvstore_fini(&s->kv);
  free(s);
}
END_TEST

START_TEST(select_honours_hcmpi_bootstrap) {
  unsetenv("PMI_FD");
  unsetenv("PMI_PORT");
  unsetenv("SLURM_MPI_TYPE");
  unsetenv("PMIX_NAMESPACE");
  unsetenv("PMIX_RANK");
  setenv("HCMPI_BOOTSTRAP", "pmix", 1);
  ck_assert_str_eq(hc_bootstrap_select()->name, "pmix");
  setenv("HCMPI_BOOTSTRAP", "pmi2", 1);
  ck_assert_str_eq(hc_bootstrap_select()->name, "pmi2");
  setenv("HCMPI_BOOTSTRAP", "nonsense", 1);
  ck_assert_str_eq(hc_bootstrap_select()->name, "singleton");
  unsetenv("HCMPI_BOOTSTRAP");
  setenv("PMI_FD", "9", 1);
  ck_assert_str_eq(hc_bootstrap_select()->name, "pmi1");
  setenv("SLURM_MPI_TYPE", "pmi2", 1);
  ck_assert_str_eq(hc_bootstrap_select()->name, "pmi2");
  unsetenv("PMI_FD");
  setenv("PMIX_NAMESPACE", "slurm.pmix.5.0", 1);
  ck_assert_str_eq(hc_bootstrap_select()->name, "pmix");
}
END_TEST

int main(void) {
  Suite *s = suite_create("pmi2");
  TCase *tc = tcase_create("wire");
  tcase_add_test(tc, formats_frame_with_left_aligned_length);
  tcase_add_test(tc, builds_a_frame_field_by_field);
  tcase_add_test(tc, format_refuses_separators_and_overflow);
  tcase_add_test(tc, parses_slurm_fullinit_response);
  tcase_add_test(tc, parses_values_with_equals_and_missing_last_separator);
  tcase_add_test(tc, parse_rejects_malformed_bodies);
  tcase_add_test(tc, escape_round_trips_separators);
  tcase_add_test(tc, reads_frames_split_and_back_to_back);
  suite_add_tcase(s, tc);
  TCase *be = tcase_create("backend");
  tcase_add_test(be, backend_talks_to_slurm_like_server);
  tcase_add_test(be, select_honours_hcmpi_bootstrap);
  suite_add_tcase(s, be);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
