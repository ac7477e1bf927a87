/* Whether a program could be started: what both spawn paths check before
 * they ask for processes (hcmpirun's server side, the PMI-1 client facing
 * Hydra), so that a missing program is MPI_ERR_SPAWN, not a dead job. */
#ifndef HC_UTIL_FINDEXEC_H
#define HC_UTIL_FINDEXEC_H

/* 1 when execvp would find prog as an executable regular file: a name
 * with a '/' as given, else searched along PATH ("/usr/bin:/bin" without
 * one; an empty entry is the current directory). */
int hc_can_exec(const char *prog);

#endif /* HC_UTIL_FINDEXEC_H */
