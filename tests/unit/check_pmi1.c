/* PMI-1 wire format: parsing real servers' replies, formatting, line I/O. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/kvstore.h"
#include "bootstrap/pmi1_wire.h"

static hc_pmi1_msg_t msg;

static void parse_ok(const char *line) {
  ck_assert_int_eq(hc_pmi1_parse(line, strlen(line), &msg), 0);
}

START_TEST(parses_hydra_init_reply_with_rc_last) {
  parse_ok("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
  ck_assert_str_eq(hc_pmi1_cmd(&msg), "response_to_init");
  ck_assert_str_eq(hc_pmi1_get(&msg, "pmi_version"), "1");
  ck_assert_str_eq(hc_pmi1_get(&msg, "pmi_subversion"), "1");
  ck_assert_int_eq(hc_pmi1_rc(&msg), 0);
  ck_assert_int_eq(msg.nfields, 4);
}
END_TEST

START_TEST(parses_slurm_init_reply_with_rc_first) {
  parse_ok("cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n");
  ck_assert_str_eq(hc_pmi1_cmd(&msg), "response_to_init");
  ck_assert_str_eq(hc_pmi1_get(&msg, "pmi_subversion"), "1");
  ck_assert_int_eq(hc_pmi1_rc(&msg), 0);
}
END_TEST

START_TEST(missing_rc_means_success) {
  parse_ok("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n");
  ck_assert_ptr_null(hc_pmi1_get(&msg, "rc"));
  ck_assert_int_eq(hc_pmi1_rc(&msg), 0);
  ck_assert_int_eq(hc_pmi1_get_long(&msg, "keylen_max", -7), 64);
  ck_assert_int_eq(hc_pmi1_get_long(&msg, "vallen_max", -7), 1024);
  ck_assert_int_eq(hc_pmi1_get_long(&msg, "nosuch", -7), -7);
  parse_ok("cmd=barrier_out");
  ck_assert_int_eq(hc_pmi1_rc(&msg), 0);
  parse_ok("cmd=finalize_ack\n");
  ck_assert_str_eq(hc_pmi1_cmd(&msg), "finalize_ack");
}
END_TEST

START_TEST(reads_failed_get_from_both_servers) {
  parse_ok("cmd=get_result rc=-1 msg=key_nosuchkey_not_found value=unknown\n");
  ck_assert_int_eq(hc_pmi1_rc(&msg), -1);
  ck_assert_str_eq(hc_pmi1_get(&msg, "msg"), "key_nosuchkey_not_found");
  parse_ok("cmd=get_result rc=1\n");
  ck_assert_int_eq(hc_pmi1_rc(&msg), 1);
  ck_assert_ptr_null(hc_pmi1_get(&msg, "value"));
}
END_TEST

START_TEST(values_keep_equals_and_semicolons) {
  parse_ok("cmd=get_result rc=0 msg=success value=a=b;c\n");
  ck_assert_str_eq(hc_pmi1_get(&msg, "value"), "a=b;c");
  parse_ok("cmd=get_result rc=0 value=(vector,(0,1,1))\n");
  ck_assert_str_eq(hc_pmi1_get(&msg, "value"), "(vector,(0,1,1))");
  parse_ok("cmd=my_kvsname kvsname=kvs_26312_0_1744744356_vm\n");
  ck_assert_str_eq(hc_pmi1_get(&msg, "kvsname"), "kvs_26312_0_1744744356_vm");
  parse_ok("cmd=put_result rc=0 value=\n");
  ck_assert_str_eq(hc_pmi1_get(&msg, "value"), "");
}
END_TEST

START_TEST(rejects_malformed_lines) {
  const char *bad[] = {"",
                       "\n",
                       "rc=0 cmd=x\n",
                       "cmd=x novalue\n",
                       "cmd=x =v\n",
                       "cmd=x a=1\nb=2\n"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_int_eq(hc_pmi1_parse(bad[i], strlen(bad[i]), &msg), -1);
  char many[512] = "cmd=x";
  for (int i = 0; i < HC_PMI1_FIELDS_MAX; i++)
    strcat(many, " k=v");
  ck_assert_int_eq(hc_pmi1_parse(many, strlen(many), &msg), -1);
}
END_TEST

START_TEST(rejects_too_long_line) {
  size_t n = HC_PMI1_LINE_MAX + 10;
  char *line = malloc(n + 1);
  memcpy(line, "cmd=put value=", 14);
  memset(line + 14, 'x', n - 14);
  line[n] = '\0';
  ck_assert_int_eq(hc_pmi1_parse(line, n, &msg), -1);
  /* The longest accepted line still parses. */
  line[HC_PMI1_LINE_MAX - 1] = '\0';
  ck_assert_int_eq(hc_pmi1_parse(line, HC_PMI1_LINE_MAX - 1, &msg), 0);
  free(line);
}
END_TEST

START_TEST(format_round_trips) {
  char buf[256];
  int n = hc_pmi1_format(buf, sizeof buf, "put", "kvsname", "kvs_1", "key",
                         "card-0", "value", "a=b;c", NULL);
  ck_assert_str_eq(buf, "cmd=put kvsname=kvs_1 key=card-0 value=a=b;c\n");
  ck_assert_int_eq(n, (int)strlen(buf));
  ck_assert_int_eq(hc_pmi1_parse(buf, (size_t)n, &msg), 0);
  ck_assert_str_eq(hc_pmi1_cmd(&msg), "put");
  ck_assert_str_eq(hc_pmi1_get(&msg, "key"), "card-0");
  ck_assert_str_eq(hc_pmi1_get(&msg, "value"), "a=b;c");
  n = hc_pmi1_format(buf, sizeof buf, "barrier_in", NULL);
  ck_assert_str_eq(buf, "cmd=barrier_in\n");
}
END_TEST

START_TEST(format_rejects_spaces_overflow_and_bad_keys) {
  char buf[32];
  ck_assert_int_eq(hc_pmi1_format(buf, sizeof buf, "put", "value", "a b", NULL),
                   -1);
  ck_assert_int_eq(hc_pmi1_format(buf, sizeof buf, "put", "value", "a\n", NULL),
                   -1);
  ck_assert_int_eq(hc_pmi1_format(buf, sizeof buf, "put", "k=x", "v", NULL),
                   -1);
  ck_assert_int_eq(hc_pmi1_format(buf, sizeof buf, "put", "value",
                                  "0123456789012345678901234567890", NULL),
                   -1);
  /* Exactly full: 15 chars + newline + NUL in 17 bytes. */
  ck_assert_int_eq(hc_pmi1_format(buf, 17, "abcdefghijk", NULL), 16);
  ck_assert_int_eq(hc_pmi1_format(buf, 16, "abcdefghijk", NULL), -1);
}
END_TEST

START_TEST(reader_joins_partial_reads_and_splits_lines) {
  int sv[2];
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  hc_pmi1_reader_t *r = malloc(sizeof *r);
  hc_pmi1_reader_init(r, sv[0]);
  char line[HC_PMI1_LINE_MAX];
  ck_assert_int_eq(hc_pmi1_write_all(sv[1], "cmd=barr", 8), 0);
  ck_assert_int_eq(hc_pmi1_reader_fill(r), 8);
  ck_assert_int_eq(hc_pmi1_reader_next(r, line, sizeof line), -1);
  ck_assert_int_eq(hc_pmi1_write_all(sv[1], "ier_out\ncmd=a x=1\ncmd=b", 23),
                   0);
  ck_assert_int_eq(hc_pmi1_read_line(r, line, sizeof line), 15);
  ck_assert_str_eq(line, "cmd=barrier_out");
  ck_assert_int_eq(hc_pmi1_read_line(r, line, sizeof line), 9);
  ck_assert_str_eq(line, "cmd=a x=1");
  ck_assert_int_eq(hc_pmi1_reader_next(r, line, sizeof line), -1);
  close(sv[1]);
  /* The unterminated tail is not a line. */
  ck_assert_int_eq(hc_pmi1_read_line(r, line, sizeof line), -1);
  ck_assert_int_eq(errno, ECONNRESET);
  close(sv[0]);
  free(r);
}
END_TEST

START_TEST(reader_rejects_endless_line) {
  int sv[2];
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  hc_pmi1_reader_t *r = malloc(sizeof *r);
  hc_pmi1_reader_init(r, sv[0]);
  char chunk[1024];
  memset(chunk, 'x', sizeof chunk);
  /* More than the reader can hold, without a newline (the socket buffer
   * holds it all, so this does not block). */
  for (size_t i = 0; i < sizeof r->buf / sizeof chunk + 1; i++)
    ck_assert_int_eq(hc_pmi1_write_all(sv[1], chunk, sizeof chunk), 0);
  char line[HC_PMI1_LINE_MAX];
  ck_assert_int_eq(hc_pmi1_read_line(r, line, sizeof line), -1);
  ck_assert_int_eq(errno, EMSGSIZE);
  close(sv[0]);
  close(sv[1]);
  free(r);
}
END_TEST

START_TEST(reader_drops_line_longer_than_caller_buffer) {
  int sv[2];
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  hc_pmi1_reader_t *r = malloc(sizeof *r);
  hc_pmi1_reader_init(r, sv[0]);
  ck_assert_int_eq(hc_pmi1_write_all(sv[1], "cmd=long_line\ncmd=ok\n", 21), 0);
  ck_assert_int_eq(hc_pmi1_reader_fill(r), 21);
  char small[8];
  ck_assert_int_eq(hc_pmi1_reader_next(r, small, sizeof small), -2);
  ck_assert_int_eq(hc_pmi1_reader_next(r, small, sizeof small), 6);
  ck_assert_str_eq(small, "cmd=ok");
  close(sv[0]);
  close(sv[1]);
  free(r);
}
END_TEST

START_TEST(kvstore_sets_replaces_and_prunes) {
  hc_kvstore_t kv;
  hc_kvstore_init(&kv);
  ck_assert_ptr_null(hc_kvstore_get(&kv, "a"));
  char key[32], val[32];
  for (int i = 0; i < 500; i++) {
    snprintf(key, sizeof key, "k%d", i);
    snprintf(val, sizeof val, "v%d", i);
    ck_assert_int_eq(hc_kvstore_set(&kv, key, val, i % 2 ? 1 : 2), 0);
  }
  ck_assert_int_eq(hc_kvstore_set(&kv, "k7", "new", 1), 0);
  ck_assert_str_eq(hc_kvstore_get(&kv, "k7"), "new");
  ck_assert_str_eq(hc_kvstore_get(&kv, "k498"), "v498");
  hc_kvstore_prune(&kv, 1);
  ck_assert_ptr_null(hc_kvstore_get(&kv, "k498"));
  ck_assert_str_eq(hc_kvstore_get(&kv, "k499"), "v499");
  ck_assert_int_eq((int)kv.count, 250);
  hc_kvstore_fini(&kv);
  ck_assert_ptr_null(hc_kvstore_get(&kv, "k499"));
}
END_TEST

/* Hydra's PMI_dead_processes: ranks and ranges, comma separated. */
START_TEST(parses_dead_rank_lists) {
  int r[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  ck_assert_int_eq(hc_bootstrap_parse_ranks("", r, 8), 0);
  ck_assert_int_eq(hc_bootstrap_parse_ranks("3", r, 8), 1);
  ck_assert_int_eq(r[0], 3);
  ck_assert_int_eq(hc_bootstrap_parse_ranks("1,4-6,9", r, 8), 5);
  int want[5] = {1, 4, 5, 6, 9};
  for (int i = 0; i < 5; i++)
    ck_assert_int_eq(r[i], want[i]);
  /* More than max: the count, and only max written. */
  r[2] = -7;
  ck_assert_int_eq(hc_bootstrap_parse_ranks("0-9", r, 2), 10);
  ck_assert_int_eq(r[1], 1);
  ck_assert_int_eq(r[2], -7);
  ck_assert_int_eq(hc_bootstrap_parse_ranks("1,,2", r, 8), -1);
  ck_assert_int_eq(hc_bootstrap_parse_ranks("5-3", r, 8), -1);
  ck_assert_int_eq(hc_bootstrap_parse_ranks("-1", r, 8), -1);
  ck_assert_int_eq(hc_bootstrap_parse_ranks("2x", r, 8), -1);
}
END_TEST

static Suite *pmi1_suite(void) {
  Suite *s = suite_create("pmi1_wire");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, parses_hydra_init_reply_with_rc_last);
  tcase_add_test(tc, parses_dead_rank_lists);
  tcase_add_test(tc, parses_slurm_init_reply_with_rc_first);
  tcase_add_test(tc, missing_rc_means_success);
  tcase_add_test(tc, reads_failed_get_from_both_servers);
  tcase_add_test(tc, values_keep_equals_and_semicolons);
  tcase_add_test(tc, rejects_malformed_lines);
  tcase_add_test(tc, rejects_too_long_line);
  tcase_add_test(tc, format_round_trips);
  tcase_add_test(tc, format_rejects_spaces_overflow_and_bad_keys);
  tcase_add_test(tc, reader_joins_partial_reads_and_splits_lines);
  tcase_add_test(tc, reader_rejects_endless_line);
  tcase_add_test(tc, reader_drops_line_longer_than_caller_buffer);
  tcase_add_test(tc, kvstore_sets_replaces_and_prunes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(pmi1_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
