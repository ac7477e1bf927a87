/*
 * The one list of every HCMPI_* environment variable: name, default and a
 * one-line meaning.  hcmpi_info prints it and generates docs/environment.md
 * from it; tests/tools/envtable.sh fails when a variable read anywhere in
 * the tree is missing here or the committed doc differs from the table.
 */
#ifndef HC_ENVTABLE_H
#define HC_ENVTABLE_H

#include <stddef.h>

typedef struct hc_env_entry {
  const char *name;
  const char *fallback; /* the default, as a user would write it */
  const char *scope;    /* who reads it: library, hcmpirun, hcmpicc, ... */
  const char *meaning;  /* one line */
} hc_env_entry_t;

extern const hc_env_entry_t hc_env_table[];
extern const size_t hc_env_table_count;

/* What the value of a numeric variable must be.  Each names an entry of
 * hc_env_table (tests/tools/envtable.sh checks): a whole number or a size
 * (bytes, with an optional k/m/g suffix) within [min, max]. */
typedef struct hc_env_bounds {
  const char *name;
  int is_size; /* parsed as hc_env_size does, else as hc_env_long */
  long long min, max;
} hc_env_bounds_t;

extern const hc_env_bounds_t hc_env_bounds[];
extern const size_t hc_env_bounds_count;

/* Checks the numeric variables of scope that are set: 0 when each is a
 * number within its bounds, else -1 with why (len bytes) naming the first
 * one that is not, its value and what it must be. */
int hc_env_check(const char *scope, char *why, size_t len);

#endif /* HC_ENVTABLE_H */
