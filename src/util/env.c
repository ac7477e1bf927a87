#include "util/env.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *hc_env_string(const char *name, const char *fallback) {
  const char *value = getenv(name);
  return (value != NULL && value[0] != '\0') ? value : fallback;
}

long hc_env_long(const char *name, long fallback) {
  const char *text = hc_env_string(name, NULL);
  if (text == NULL)
    return fallback;
  char *end;
  long value = strtol(text, &end, 0);
  return (end != text && *end == '\0') ? value : fallback;
}

int hc_env_bool(const char *name, int fallback) {
  const char *text = hc_env_string(name, NULL);
  if (text == NULL)
    return fallback;
  static const char *const yes[] = {"1", "yes", "true", "on"};
  static const char *const no[] = {"0", "no", "false", "off"};
  for (size_t i = 0; i < 4; i++) {
    if (strcasecmp(text, yes[i]) == 0)
      return 1;
    if (strcasecmp(text, no[i]) == 0)
      return 0;
  }
  return fallback;
}

size_t hc_env_size(const char *name, size_t fallback) {
  const char *text = hc_env_string(name, NULL);
  if (text == NULL)
    return fallback;
  char *end;
  unsigned long long value = strtoull(text, &end, 0);
  if (end == text)
    return fallback;
  switch (*end) {
  case 'k': case 'K': value <<= 10; end++; break;
  case 'm': case 'M': value <<= 20; end++; break;
  case 'g': case 'G': value <<= 30; end++; break;
  default: break;
  }
  return *end == '\0' ? (size_t)value : fallback;
}
