/* The per-job secret that authenticates transports' connections: made by
 * hcmpirun (exported as HCMPI_JOB_SECRET) or by rank 0 under another
 * launcher, so both take it from here. */
#ifndef HC_UTIL_SECRET_H
#define HC_UTIL_SECRET_H

#include <stddef.h>

/* Bytes of hex a secret takes, its terminating NUL included (32 random
 * bytes). */
#define HC_SECRET_HEX 65

/* Writes a fresh random secret as hex into hex (len >= HC_SECRET_HEX);
 * 0, or -1 when len is short or the kernel gives no random bytes. */
int hc_secret_new(char *hex, size_t len);

#endif /* HC_UTIL_SECRET_H */
