/* Shared segments of a node's ranks (see shmseg.h). */
#include "config.h" /* _GNU_SOURCE, for memfd_create */

#include "util/shmseg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/env.h"
#include "util/log.h"

/* 1 when tag is 1 to HC_SHMSEG_TAG_MAX lower-case hex digits. */
static int shmseg_tag_ok(const char *tag) {
  size_t n = strspn(tag, "0123456789abcdef");
  return n > 0 && n <= HC_SHMSEG_TAG_MAX && tag[n] == '\0';
}

/* HCMPI_SHM_TAG where it is a tag, else NULL. */
static const char *shmseg_tag(void) {
  const char *tag = hc_env_string("HCMPI_SHM_TAG", NULL);
  return tag != NULL && shmseg_tag_ok(tag) ? tag : NULL;
}

static int shmseg_random_name(char *name, size_t len) {
  unsigned char bytes[8];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -1;
    got += (size_t)n;
  }
  const char *tag = shmseg_tag();
  int w = snprintf(name, len, "/hcmpi-%s%s", tag != NULL ? tag : "",
                   tag != NULL ? "-" : "");
  for (size_t i = 0; i < sizeof bytes; i++)
    w += snprintf(name + w, len - (size_t)w, "%02x", bytes[i]);
  return 0;
}

/* A memfd is born mode 0777, and other local ranks reopen it through
 * /proc/<pid>/fd: only this user may, like a named segment. */
static int shmseg_memfd(char *name, size_t len) {
  int fd = memfd_create("hcmpi-shm", MFD_CLOEXEC);
  if (fd < 0) {
    hc_log(HC_LOG_INFO, "shm", "memfd_create: %s; using a named segment",
           strerror(errno));
    return -1;
  }
  if (fchmod(fd, 0600) != 0) {
    hc_log(HC_LOG_ERROR, "shm", "fchmod of the memfd: %s", strerror(errno));
    close(fd);
    return -2;
  }
  snprintf(name, len, "memfd-%ld-%d", (long)getpid(), fd);
  return fd;
}

int hc_shmseg_create(char *name, size_t len, int *memfd) {
  *memfd = 0;
  if (hc_env_bool("HCMPI_SHM_MEMFD", 1)) {
    int fd = shmseg_memfd(name, len);
    if (fd >= 0)
      *memfd = 1;
    if (fd != -1)
      return fd < 0 ? -1 : fd;
  }
  int fd = -1;
  for (int tries = 0; fd < 0 && tries < 8; tries++) {
    if (shmseg_random_name(name, len) != 0)
      return -1;
    fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0)
    hc_log(HC_LOG_ERROR, "shm", "shm_open(%s): %s", name, strerror(errno));
  else if (hc_env_bool("HCMPI_TEST_SHMSEG_DIE", 0)) {
    hc_log(HC_LOG_DEBUG, "shm", "dying on purpose after making %s", name);
    raise(SIGKILL); /* before anyone could unlink it: the launcher must */
  }
  return fd;
}

int hc_shmseg_sweep(const char *tag) {
  char prefix[sizeof "hcmpi-" + HC_SHMSEG_TAG_MAX + 1];
  if (!shmseg_tag_ok(tag))
    return 0;
  snprintf(prefix, sizeof prefix, "hcmpi-%s-", tag);
  DIR *dir = opendir("/dev/shm");
  if (dir == NULL)
    return 0;
  int removed = 0;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    char name[sizeof e->d_name + 1];
    if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
      continue;
    snprintf(name, sizeof name, "/%s", e->d_name);
    removed += shm_unlink(name) == 0;
  }
  closedir(dir);
  return removed;
}

hc_status_t hc_shmseg_reserve(int fd, const char *name, size_t size) {
  return hc_shmseg_reserve_part(fd, name, size, size);
}

hc_status_t hc_shmseg_reserve_part(int fd, const char *name, size_t size,
                                   size_t reserved) {
  int err = ftruncate(fd, (off_t)size) != 0 ? errno : 0;
  if (err == 0 && reserved > 0)
    err = posix_fallocate(fd, 0, (off_t)reserved);
  if (err == 0)
    return HC_OK;
  hc_log(HC_LOG_ERROR, "shm", "sizing %s to %zu bytes: %s", name, size,
         strerror(err));
  return HC_ERR_SYSTEM;
}

int hc_shmseg_open(const char *name) {
  long pid;
  int memfd, used = 0;
  if (sscanf(name, "memfd-%ld-%d%n", &pid, &memfd, &used) == 2 &&
      name[used] == '\0') {
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd/%d", pid, memfd);
    return open(path, O_RDWR | O_CLOEXEC);
  }
  return shm_open(name, O_RDWR, 0);
}
