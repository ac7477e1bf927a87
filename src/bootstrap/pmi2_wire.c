#include "bootstrap/pmi2_wire.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int hc_pmi2_parse(const char *body, size_t len, hc_pmi1_msg_t *msg) {
  if (len >= sizeof msg->buf || memchr(body, '\0', len) != NULL)
    return -1;
  memcpy(msg->buf, body, len);
  msg->buf[len] = '\0';
  msg->nfields = 0;
  /* Fields end at ';' (the last one too, though some servers omit it);
   * empty fields are skipped rather than fatal. */
  char *p = msg->buf;
  while (*p != '\0') {
    char *end = strchr(p, ';');
    if (end != NULL)
      *end = '\0';
    if (*p != '\0') {
      if (msg->nfields == HC_PMI1_FIELDS_MAX ||
          hc_pmi1_split_field(p, &msg->fields[msg->nfields]) != 0)
        return -1;
      msg->nfields++;
    }
    if (end == NULL)
      break;
    p = end + 1;
  }
  if (msg->nfields == 0 || strcmp(msg->fields[0].key, "cmd") != 0)
    return -1;
  return 0;
}

static int pmi2w_bad_text(const char *text, int is_key) {
  if (strpbrk(text, ";\n\r") != NULL)
    return 1;
  return is_key && (*text == '\0' || strchr(text, '=') != NULL);
}

int hc_pmi2_add(char *buf, size_t len, size_t *used, const char *key,
                const char *value) {
  if (*used < HC_PMI2_HEADER_LEN)
    *used = HC_PMI2_HEADER_LEN;
  if (value == NULL)
    value = "";
  if (*used >= len || pmi2w_bad_text(key, 1) || pmi2w_bad_text(value, 0))
    return -1;
  int n = snprintf(buf + *used, len - *used, "%s=%s;", key, value);
  if (n < 0 || (size_t)n >= len - *used)
    return -1;
  *used += (size_t)n;
  return 0;
}

int hc_pmi2_seal(char *buf, size_t used) {
  if (used <= HC_PMI2_HEADER_LEN || used - HC_PMI2_HEADER_LEN > 999999)
    return -1;
  /* The header is written last: snprintf's NUL must not cut the body. */
  char head[HC_PMI2_HEADER_LEN + 1];
  snprintf(head, sizeof head, "%-6zu", used - HC_PMI2_HEADER_LEN);
  memcpy(buf, head, HC_PMI2_HEADER_LEN);
  return (int)used;
}

int hc_pmi2_format(char *buf, size_t len, const char *cmd, ...) {
  size_t used = 0;
  if (hc_pmi2_add(buf, len, &used, "cmd", cmd) != 0)
    return -1;
  va_list ap;
  va_start(ap, cmd);
  int rc = 0;
  for (const char *key = va_arg(ap, const char *); key != NULL && rc == 0;
       key = va_arg(ap, const char *))
    rc = hc_pmi2_add(buf, len, &used, key, va_arg(ap, const char *));
  va_end(ap);
  return rc == 0 ? hc_pmi2_seal(buf, used) : -1;
}

/* Blocks until at least want bytes are buffered in r. */
static int pmi2w_fill_to(hc_pmi1_reader_t *r, size_t want) {
  /* The fill moves buffered bytes to the front, so want always fits. */
  while (r->end - r->start < want) {
    ssize_t got = hc_pmi1_reader_fill(r);
    if (got == 0)
      errno = ECONNRESET;
    if (got <= 0)
      return -1;
  }
  return 0;
}

static long pmi2w_header(const char *p) {
  char head[HC_PMI2_HEADER_LEN + 1];
  memcpy(head, p, HC_PMI2_HEADER_LEN);
  head[HC_PMI2_HEADER_LEN] = '\0';
  char *end = NULL;
  long n = strtol(head, &end, 10);
  while (end != NULL && *end == ' ')
    end++;
  if (end == head || end == NULL || *end != '\0' || n < 0)
    return -1;
  return n;
}

int hc_pmi2_read_frame(hc_pmi1_reader_t *r, hc_pmi1_msg_t *msg) {
  if (pmi2w_fill_to(r, HC_PMI2_HEADER_LEN) != 0)
    return -1;
  long n = pmi2w_header(r->buf + r->start);
  if (n < 0) {
    errno = EPROTO;
    return -1;
  }
  if ((size_t)n >= sizeof msg->buf) {
    errno = EMSGSIZE;
    return -1;
  }
  if (pmi2w_fill_to(r, HC_PMI2_HEADER_LEN + (size_t)n) != 0)
    return -1;
  const char *body = r->buf + r->start + HC_PMI2_HEADER_LEN;
  r->start += HC_PMI2_HEADER_LEN + (size_t)n;
  if (hc_pmi2_parse(body, (size_t)n, msg) != 0) {
    errno = EPROTO;
    return -1;
  }
  return 0;
}

int hc_pmi2_get_bool(const hc_pmi1_msg_t *msg, const char *key, int fallback) {
  const char *v = hc_pmi1_get(msg, key);
  if (v != NULL && strcasecmp(v, "TRUE") == 0)
    return 1;
  if (v != NULL && strcasecmp(v, "FALSE") == 0)
    return 0;
  return fallback;
}

int hc_pmi2_escape(const char *in, char *out, size_t len) {
  size_t o = 0;
  for (const char *p = in; *p != '\0'; p++) {
    const char *piece = *p == '%' ? "%25" : *p == ';' ? "%3B" : NULL;
    size_t n = piece ? 3 : 1;
    if (o + n >= len)
      return -1;
    if (piece != NULL)
      memcpy(out + o, piece, 3);
    else
      out[o] = *p;
    o += n;
  }
  if (o >= len)
    return -1;
  out[o] = '\0';
  return (int)o;
}

int hc_pmi2_unescape(const char *in, char *out, size_t len) {
  size_t o = 0;
  for (const char *p = in; *p != '\0'; p++) {
    char c = *p;
    if (c == '%') {
      if (strncmp(p, "%25", 3) == 0)
        c = '%';
      else if (strncmp(p, "%3B", 3) == 0)
        c = ';';
      else
        return -1;
      p += 2;
    }
    if (o + 1 >= len)
      return -1;
    out[o++] = c;
  }
  if (o >= len)
    return -1;
  out[o] = '\0';
  return (int)o;
}
