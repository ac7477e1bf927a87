#include "bootstrap/pmi1_wire.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int hc_pmi1_split_field(char *token, hc_pmi1_field_t *field) {
  char *eq = strchr(token, '=');
  if (eq == NULL || eq == token)
    return -1;
  *eq = '\0';
  field->key = token;
  field->value = eq + 1;
  return 0;
}

int hc_pmi1_parse(const char *line, size_t len, hc_pmi1_msg_t *msg) {
  while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
    len--;
  if (len >= sizeof msg->buf || memchr(line, '\n', len) != NULL)
    return -1;
  memcpy(msg->buf, line, len);
  msg->buf[len] = '\0';
  msg->nfields = 0;
  char *save = NULL;
  for (char *tok = strtok_r(msg->buf, " ", &save); tok != NULL;
       tok = strtok_r(NULL, " ", &save)) {
    if (msg->nfields == HC_PMI1_FIELDS_MAX)
      return -1;
    if (hc_pmi1_split_field(tok, &msg->fields[msg->nfields]) != 0)
      return -1;
    msg->nfields++;
  }
  if (msg->nfields == 0 || strcmp(msg->fields[0].key, "cmd") != 0)
    return -1;
  return 0;
}

const char *hc_pmi1_get(const hc_pmi1_msg_t *msg, const char *key) {
  for (int i = 0; i < msg->nfields; i++)
    if (strcmp(msg->fields[i].key, key) == 0)
      return msg->fields[i].value;
  return NULL;
}

const char *hc_pmi1_cmd(const hc_pmi1_msg_t *msg) {
  return msg->nfields > 0 ? msg->fields[0].value : "";
}

long hc_pmi1_get_long(const hc_pmi1_msg_t *msg, const char *key,
                      long fallback) {
  const char *text = hc_pmi1_get(msg, key);
  if (text == NULL || *text == '\0')
    return fallback;
  char *end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno != 0 || *end != '\0')
    return fallback;
  return v;
}

int hc_pmi1_rc(const hc_pmi1_msg_t *msg) {
  if (hc_pmi1_get(msg, "rc") == NULL)
    return 0;
  return (int)hc_pmi1_get_long(msg, "rc", -1);
}

static int wire_bad_text(const char *text, int is_key) {
  if (strpbrk(text, " \n\r") != NULL)
    return 1;
  return is_key && (*text == '\0' || strchr(text, '=') != NULL);
}

static int wire_append(char *buf, size_t len, size_t *used, const char *key,
                       const char *value) {
  if (wire_bad_text(key, 1) || wire_bad_text(value, 0))
    return -1;
  int n = snprintf(buf + *used, len - *used, "%s%s=%s", *used ? " " : "", key,
                   value);
  if (n < 0 || (size_t)n >= len - *used)
    return -1;
  *used += (size_t)n;
  return 0;
}

int hc_pmi1_format(char *buf, size_t len, const char *cmd, ...) {
  size_t used = 0;
  if (len == 0 || wire_append(buf, len, &used, "cmd", cmd) != 0)
    return -1;
  va_list ap;
  va_start(ap, cmd);
  int rc = 0;
  for (const char *key = va_arg(ap, const char *); key != NULL && rc == 0;
       key = va_arg(ap, const char *)) {
    const char *value = va_arg(ap, const char *);
    rc = wire_append(buf, len, &used, key, value ? value : "");
  }
  va_end(ap);
  if (rc != 0 || used + 2 > len)
    return -1;
  buf[used++] = '\n';
  buf[used] = '\0';
  return (int)used;
}

void hc_pmi1_reader_init(hc_pmi1_reader_t *r, int fd) {
  r->fd = fd;
  r->start = 0;
  r->end = 0;
}

ssize_t hc_pmi1_reader_fill(hc_pmi1_reader_t *r) {
  if (r->start > 0) {
    memmove(r->buf, r->buf + r->start, r->end - r->start);
    r->end -= r->start;
    r->start = 0;
  }
  if (r->end == sizeof r->buf) {
    errno = EMSGSIZE;
    return -1;
  }
  ssize_t n;
  do
    n = read(r->fd, r->buf + r->end, sizeof r->buf - r->end);
  while (n < 0 && errno == EINTR);
  if (n > 0)
    r->end += (size_t)n;
  return n;
}

ssize_t hc_pmi1_reader_next(hc_pmi1_reader_t *r, char *line, size_t len) {
  char *begin = r->buf + r->start;
  char *nl = memchr(begin, '\n', r->end - r->start);
  if (nl == NULL)
    return -1;
  size_t n = (size_t)(nl - begin);
  r->start += n + 1;
  if (n >= len)
    return -2;
  memcpy(line, begin, n);
  line[n] = '\0';
  return (ssize_t)n;
}

ssize_t hc_pmi1_read_line(hc_pmi1_reader_t *r, char *line, size_t len) {
  for (;;) {
    ssize_t n = hc_pmi1_reader_next(r, line, len);
    if (n >= 0)
      return n;
    if (n == -2) {
      errno = EMSGSIZE;
      return -1;
    }
    ssize_t got = hc_pmi1_reader_fill(r);
    if (got == 0)
      errno = ECONNRESET;
    if (got <= 0)
      return -1;
  }
}

static ssize_t wire_write_some(int fd, const char *p, size_t len) {
  ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
  if (n < 0 && errno == ENOTSOCK)
    n = write(fd, p, len);
  return n;
}

int hc_pmi1_write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t n = wire_write_some(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}
