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

#endif /* HC_ENVTABLE_H */
