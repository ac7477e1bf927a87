/*
 * The PMI-2 wire format (MPICH's simple PMI-2, Slurm's mpi/pmi2 plugin).
 * After a PMI-1 style handshake line ("cmd=init pmi_version=2 ..."), every
 * message is a frame: six ASCII characters holding the decimal length of
 * the body (space padded), then the body "cmd=X;k=v;k=v;".  A key ends at
 * its first '=' and a value at the next ';'.  Slurm does not implement the
 * ";;" escape MPICH defines, so values we publish are escaped our own way
 * (hc_pmi2_escape) and only our own ranks read them back.
 *
 * Parsed frames land in the PMI-1 module's message type, so the lookups of
 * pmi1_wire.h (hc_pmi1_get, hc_pmi1_rc, ...) serve both protocols.
 */
#ifndef HC_PMI2_WIRE_H
#define HC_PMI2_WIRE_H

#include <stddef.h>

#include "bootstrap/pmi1_wire.h"

#define HC_PMI2_HEADER_LEN 6

/* Parses a frame body (without its length header).  Returns 0, or -1 when
 * it is too long, does not start with "cmd=", has a field without '=' or an
 * empty key, or has too many fields. */
int hc_pmi2_parse(const char *body, size_t len, hc_pmi1_msg_t *msg);

/* Formats a whole frame, header included, from NULL-terminated key, value
 * pairs.  Returns its length (without the NUL), or -1 when it does not fit
 * or a key or value holds ';' or a newline (or a key '=' or nothing). */
int hc_pmi2_format(char *buf, size_t len, const char *cmd, ...)
    __attribute__((sentinel));

/* A frame of any number of fields: hc_pmi2_add appends key=value (start
 * with *used 0 and key "cmd"; NULL value is empty), hc_pmi2_seal writes
 * the header.  -1 as hc_pmi2_format says; else add 0, seal the length. */
int hc_pmi2_add(char *buf, size_t len, size_t *used, const char *key,
                const char *value);
int hc_pmi2_seal(char *buf, size_t used);

/* Blocks until one whole frame arrives through r and parses it.  Returns
 * 0, or -1 with errno set (ECONNRESET at end of file, EPROTO for a bad
 * header or body, EMSGSIZE when the body does not fit a message). */
int hc_pmi2_read_frame(hc_pmi1_reader_t *r, hc_pmi1_msg_t *msg);

/* "TRUE"/"FALSE" as the servers spell them (any case); fallback otherwise. */
int hc_pmi2_get_bool(const hc_pmi1_msg_t *msg, const char *key, int fallback);

/* Escapes '%' as "%25" and ';' as "%3B" so that a value fits between
 * separators.  Returns the escaped length, or -1 when out does not fit it. */
int hc_pmi2_escape(const char *in, char *out, size_t len);
/* Undoes hc_pmi2_escape.  Returns the length, or -1 on a bad escape or when
 * out is too small. */
int hc_pmi2_unescape(const char *in, char *out, size_t len);

#endif /* HC_PMI2_WIRE_H */
