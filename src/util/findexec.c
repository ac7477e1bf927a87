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

int hc_find_exec(const char *prog, const char *dirs, char *found,
                 size_t len) {
  if (prog == NULL || *prog == '\0' || len == 0)
    return 0;
  if (strchr(prog, '/') != NULL) {
    int w = snprintf(found, len, "%s", prog);
    return w > 0 && (size_t)w < len && findexec_ok(found);
  }
  for (const char *p = dirs != NULL ? dirs : "";;) {
    size_t dlen = strcspn(p, ":");
    int w = snprintf(found, len, "%.*s/%s", (int)(dlen ? dlen : 1),
                     dlen ? p : ".", prog);
    if (w > 0 && (size_t)w < len && findexec_ok(found))
      return 1;
    if (p[dlen] == '\0')
      return 0;
    p += dlen + 1;
  }
}

int hc_can_exec(const char *prog) {
  char buf[4096];
  const char *path = getenv("PATH");
  return hc_find_exec(prog, path != NULL ? path : "/usr/bin:/bin", buf,
                      sizeof buf);
}
