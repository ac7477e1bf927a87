/*
 * The PMI-1 text wire protocol, shared by the client (pmi1.c) and the
 * embedded server in hcmpirun.  A message is one line "cmd=X k=v k=v\n":
 * fields are separated by single spaces, a key ends at the first '=', so
 * values may hold '=' and ';' but never spaces or newlines.  Servers order
 * fields differently and sometimes leave out rc, so everything is looked up
 * by key.
 */
#ifndef HC_PMI1_WIRE_H
#define HC_PMI1_WIRE_H

#include <stddef.h>
#include <sys/types.h>

/* Longest line accepted, newline included: a 1024-byte value plus a 256-byte
 * kvsname and a 64-byte key fit with room to spare. */
#define HC_PMI1_LINE_MAX 4096
#define HC_PMI1_FIELDS_MAX 16

/* hcmpirun's spawn request is not bound by the line: the strings of its
 * commands (arguments, working directories) come first in "hc_spawn_data"
 * lines of at most HC_PMI1_SPAWN_CHUNK hex digits each (tools/
 * hcmpirun_spawn.c says how), up to HC_PMI1_SPAWN_BYTES_MAX bytes (NULs
 * included) per request; the client refuses a larger one before it sends
 * anything, hcmpirun answers one that gets past it with an error. */
#define HC_PMI1_SPAWN_BYTES_MAX (256 * 1024)
#define HC_PMI1_SPAWN_CHUNK 3072

typedef struct hc_pmi1_field {
  const char *key;
  const char *value;
} hc_pmi1_field_t;

/* A parsed line.  The fields point into buf, which the parser owns. */
typedef struct hc_pmi1_msg {
  char buf[HC_PMI1_LINE_MAX];
  int nfields;
  hc_pmi1_field_t fields[HC_PMI1_FIELDS_MAX];
} hc_pmi1_msg_t;

/* Parses one line (a trailing "\n" or "\r\n" is allowed).  Returns 0, or -1
 * when the line is too long, has no "cmd=" first, has a field without '=',
 * an empty key, or too many fields. */
int hc_pmi1_parse(const char *line, size_t len, hc_pmi1_msg_t *msg);
/* Splits "key=value" in place (the '=' becomes the key's end); -1 when
 * there is no '=' or the key is empty.  PMI-2 fields are the same. */
int hc_pmi1_split_field(char *token, hc_pmi1_field_t *field);
/* The value of key, or NULL when absent. */
const char *hc_pmi1_get(const hc_pmi1_msg_t *msg, const char *key);
/* The value of "cmd" (never NULL after a successful parse). */
const char *hc_pmi1_cmd(const hc_pmi1_msg_t *msg);
/* rc as an integer; a missing rc means success (0), an unparsable one -1. */
int hc_pmi1_rc(const hc_pmi1_msg_t *msg);
/* Integer field; fallback when absent or not a number. */
long hc_pmi1_get_long(const hc_pmi1_msg_t *msg, const char *key, long fallback);

/* Formats "cmd=CMD k1=v1 ...\n" from NULL-terminated key, value pairs.
 * Returns the length written (without the NUL), or -1 when it does not fit
 * in len or a key/value holds a space or newline (or a key an '='). */
int hc_pmi1_format(char *buf, size_t len, const char *cmd, ...)
    __attribute__((sentinel));

/* Buffered line reader over a file descriptor. */
typedef struct hc_pmi1_reader {
  int fd;
  size_t start; /* first unread byte */
  size_t end;   /* one past the last byte read */
  char buf[2 * HC_PMI1_LINE_MAX];
} hc_pmi1_reader_t;

void hc_pmi1_reader_init(hc_pmi1_reader_t *r, int fd);
/* One read(2) into the buffer (retried on EINTR).  Returns the byte count,
 * 0 at end of file, -1 on error (errno set; EAGAIN for a non-blocking fd
 * with nothing to read; EMSGSIZE when a line does not fit). */
ssize_t hc_pmi1_reader_fill(hc_pmi1_reader_t *r);
/* Takes the next complete buffered line, without its newline, NUL-ended,
 * into line.  Returns its length, or -1 when no complete line is buffered
 * (a line longer than len is dropped and reported as -2). */
ssize_t hc_pmi1_reader_next(hc_pmi1_reader_t *r, char *line, size_t len);
/* Blocks until a whole line arrives.  Returns its length, or -1 with errno
 * set (ECONNRESET when the peer closed before a whole line came). */
ssize_t hc_pmi1_read_line(hc_pmi1_reader_t *r, char *line, size_t len);

/* Writes all of buf (retrying partial writes and EINTR; no SIGPIPE on
 * sockets).  Returns 0, or -1 with errno set. */
int hc_pmi1_write_all(int fd, const void *buf, size_t len);

#endif /* HC_PMI1_WIRE_H */
