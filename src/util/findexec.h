/* Whether a program could be started: what both spawn paths check before
 * they ask for processes (hcmpirun's server side, the PMI-1 client facing
 * Hydra), so that a missing program is MPI_ERR_SPAWN, not a dead job; and
 * where MPI_Comm_spawn's "path" info key finds a program. */
#ifndef HC_UTIL_FINDEXEC_H
#define HC_UTIL_FINDEXEC_H

#include <stddef.h>

/* Looks prog up as execvp would: a name with a '/' as given, else in each
 * directory of dirs (separated by ':'; an empty entry is the current
 * directory), the first where it is an executable regular file.  Returns
 * 1 with that file's name ("dir/prog", or prog itself) in found (len
 * bytes), 0 when there is none or the name does not fit. */
int hc_find_exec(const char *prog, const char *dirs, char *found, size_t len);

/* hc_find_exec along PATH ("/usr/bin:/bin" without one). */
int hc_can_exec(const char *prog);

#endif /* HC_UTIL_FINDEXEC_H */
