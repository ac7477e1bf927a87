#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/env.h"

static const char *const log_names[] = {"none", "error", "warn", "info",
                                        "debug"};

static int log_parse_level(const char *text) {
  if (text == NULL)
    return HC_LOG_NONE;
  for (int i = 0; i < (int)(sizeof log_names / sizeof log_names[0]); i++)
    if (strcmp(text, log_names[i]) == 0)
      return i;
  return HC_LOG_WARN;
}

int hc_log_level(void) {
  static int level = -1;
  if (level < 0)
    level = log_parse_level(hc_env_string("HCMPI_LOG", NULL));
  return level;
}

void hc_log(int level, const char *subsys, const char *fmt, ...) {
  if (level > hc_log_level())
    return;
  char line[1024];
  int n = snprintf(line, sizeof line, "hcmpi[%d] %s %s: ", (int)getpid(),
                   log_names[level], subsys);
  va_list ap;
  va_start(ap, fmt);
  if (n > 0 && n < (int)sizeof line)
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  va_end(ap);
  fprintf(stderr, "%s\n", line);
}
