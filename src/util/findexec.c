#include "util/findexec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int findexec_ok(const char *file) {
  struct stat st;
  return stat(file, &st) == 0 && S_ISREG(st.st_mode) && access(file, X_OK) == 0;
}

int hc_can_exec(const char *prog) {
  char buf[4096];
  if (prog == NULL || *prog == '\0')
    return 0;
  if (strchr(prog, '/') != NULL)
    return findexec_ok(prog);
  const char *path = getenv("PATH");
  for (const char *p = path != NULL ? path : "/usr/bin:/bin";;) {
    size_t len = strcspn(p, ":");
    int w = snprintf(buf, sizeof buf, "%.*s/%s", (int)(len ? len : 1),
                     len ? p : ".", prog);
    if (w > 0 && (size_t)w < sizeof buf && findexec_ok(buf))
      return 1;
    if (p[len] == '\0')
      return 0;
    p += len + 1;
  }
}
