#include "util/env.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *hc_env_string(const char *name, const char *fallback) {
  const char *value = getenv(name);
  return (value != NULL && value[0] != '\0') ? value : fallback;
}

int hc_env_parse_long(const char *text, long *out) {
  char *end;
  errno = 0;
  long value = strtol(text, &end, 0);
  if (end == text || *end != '\0' || errno == ERANGE)
    return -1;
  *out = value;
  return 0;
}

/* The parsers leave value alone on failure: it stays the fallback. */
long hc_env_long(const char *name, long fallback) {
  const char *text = hc_env_string(name, NULL);
  long value = fallback;
  if (text != NULL)
    (void)hc_env_parse_long(text, &value);
  return value;
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

int hc_env_parse_size(const char *text, size_t *out) {
  char *end;
  errno = 0;
  /* strtoull would take "-1" for the largest value. */
  if (strchr(text, '-') != NULL)
    return -1;
  unsigned long long value = strtoull(text, &end, 0);
  if (end == text || errno == ERANGE)
    return -1;
  static const char units[] = "kmg"; /* 2^10, 2^20, 2^30 */
  const char *unit =
      *end != '\0' ? strchr(units, tolower((unsigned char)*end)) : NULL;
  unsigned shift = unit != NULL ? 10u * (unsigned)(unit - units + 1) : 0;
  if (unit != NULL)
    end++;
  if (*end != '\0' || value > (unsigned long long)SIZE_MAX >> shift)
    return -1;
  *out = (size_t)(value << shift);
  return 0;
}

size_t hc_env_size(const char *name, size_t fallback) {
  const char *text = hc_env_string(name, NULL);
  size_t value;
  if (text == NULL || hc_env_parse_size(text, &value) != 0)
    return fallback;
  return value;
}
