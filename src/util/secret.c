/* A fresh random job secret (secret.h). */
#include "util/secret.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

int hc_secret_new(char *hex, size_t len) {
  unsigned char k[(HC_SECRET_HEX - 1) / 2];
  size_t got = 0;
  if (len < HC_SECRET_HEX)
    return -1;
  while (got < sizeof k) {
    ssize_t n = getrandom(k + got, sizeof k - got, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    got += (size_t)n;
  }
  for (size_t i = 0; i < sizeof k; i++)
    snprintf(hex + 2 * i, 3, "%02x", k[i]);
  memset(k, 0, sizeof k); /* nothing of it stays on the stack */
  return 0;
}
