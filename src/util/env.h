/*
 * Tunables: every HCMPI_* environment variable is read through these, and
 * listed with its default and meaning in docs/environment.md.
 */
#ifndef HC_ENV_H
#define HC_ENV_H

#include <stddef.h>

/* The value of name, or fallback when unset or empty. */
const char *hc_env_string(const char *name, const char *fallback);
/* Integer value; fallback when unset or not a number. */
long hc_env_long(const char *name, long fallback);
/* 1 for 1/yes/true/on, 0 for 0/no/false/off, fallback otherwise. */
int hc_env_bool(const char *name, int fallback);
/* A size with optional k/m/g suffix (powers of 1024). */
size_t hc_env_size(const char *name, size_t fallback);

/* The parsers behind hc_env_long and hc_env_size: 0 and *out when text is
 * a whole number (a size: with its suffix) that fits, else -1. */
int hc_env_parse_long(const char *text, long *out);
int hc_env_parse_size(const char *text, size_t *out);

#endif /* HC_ENV_H */
