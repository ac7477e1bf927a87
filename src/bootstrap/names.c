/* The name service as files: one per service name in the directory, its
 * name the service name in hex (any bytes are safe), its content the port
 * name.  A publish writes a private file and links it into place, so two
 * jobs that publish one name at once cannot both succeed, and a lookup
 * never reads half a port name. */
#include "bootstrap/names.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/env.h"
#include "util/log.h"

#define NAMES_PATH_MAX 4096
#define NAMES_SERVICE_MAX 1024

/* The directory, made (owner only) when it is the default. */
static hc_status_t names_dir(char *dir, size_t len) {
  const char *given = hc_env_string("HCMPI_NAME_DIR", NULL);
  if (given != NULL) {
    snprintf(dir, len, "%s", given);
    return HC_OK;
  }
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, len, "%s/hcmpi-names-%u", tmp != NULL && tmp[0] ? tmp : "/tmp",
           (unsigned)getuid());
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
    hc_log(HC_LOG_ERROR, "names", "cannot make %s: %s", dir, strerror(errno));
    return HC_ERR_SYSTEM;
  }
  return HC_OK;
}

/* The file of service (suffix appended). */
static hc_status_t names_path(const char *service, const char *suffix,
                              char *path, size_t len) {
  char dir[NAMES_PATH_MAX / 2];
  size_t n = strlen(service);
  if (n == 0 || n > NAMES_SERVICE_MAX)
    return HC_ERR_ARG;
  hc_status_t rc = names_dir(dir, sizeof dir);
  if (rc != HC_OK)
    return rc;
  size_t at = strlen(dir) + 1;
  if (at + 2 * n + strlen(suffix) + 1 > len)
    return HC_ERR_ARG;
  snprintf(path, len, "%s/", dir);
  for (size_t i = 0; i < n; i++)
    at += (size_t)snprintf(path + at, len - at, "%02x",
                           (unsigned char)service[i]);
  snprintf(path + at, len - at, "%s", suffix);
  return HC_OK;
}

hc_status_t hc_names_publish(const char *service, const char *port) {
  char path[NAMES_PATH_MAX], tmp[NAMES_PATH_MAX], suffix[32];
  snprintf(suffix, sizeof suffix, ".%ld.tmp", (long)getpid());
  hc_status_t rc = names_path(service, "", path, sizeof path);
  if (rc == HC_OK)
    rc = names_path(service, suffix, tmp, sizeof tmp);
  if (rc != HC_OK)
    return rc;
  FILE *f = fopen(tmp, "w");
  if (f == NULL) {
    hc_log(HC_LOG_ERROR, "names", "cannot write %s: %s", tmp, strerror(errno));
    return HC_ERR_SYSTEM;
  }
  int ok = fputs(port, f) >= 0;
  ok = fclose(f) == 0 && ok;
  int linked = ok && link(tmp, path) == 0;
  int taken = ok && !linked && errno == EEXIST;
  unlink(tmp);
  if (linked)
    return HC_OK;
  return taken ? HC_ERR_SERVICE : HC_ERR_SYSTEM;
}

/* The port published as service into port; HC_ERR_NAME when none. */
static hc_status_t names_read(const char *path, char *port, size_t len) {
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return errno == ENOENT ? HC_ERR_NAME : HC_ERR_SYSTEM;
  size_t n = fread(port, 1, len - 1, f);
  fclose(f);
  port[n] = '\0';
  return HC_OK;
}

hc_status_t hc_names_lookup(const char *service, char *port, size_t len) {
  char path[NAMES_PATH_MAX];
  hc_status_t rc = names_path(service, "", path, sizeof path);
  return rc == HC_OK ? names_read(path, port, len) : rc;
}

hc_status_t hc_names_unpublish(const char *service, const char *port) {
  char path[NAMES_PATH_MAX], found[NAMES_SERVICE_MAX];
  hc_status_t rc = names_path(service, "", path, sizeof path);
  if (rc == HC_OK)
    rc = names_read(path, found, sizeof found);
  if (rc == HC_ERR_NAME || (rc == HC_OK && strcmp(found, port) != 0))
    return HC_ERR_SERVICE;
  if (rc == HC_OK && unlink(path) != 0)
    rc = errno == ENOENT ? HC_ERR_SERVICE : HC_ERR_SYSTEM;
  return rc;
}
