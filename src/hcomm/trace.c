#include "hcomm/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hcomm.h"
#include "hcomm/core.h"
#include "util/env.h"
#include "util/log.h"

/* 65536 records of 48 B: 3 MiB per rank between writes. */
#define TRACE_BUF_RECS 65536

int hc_trace_on;

static struct {
  pthread_mutex_t lock;
  int fd;
  size_t used;
  hc_trace_rec_t *buf;
} trace = {PTHREAD_MUTEX_INITIALIZER, -1, 0, NULL};

uint64_t hc_trace_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Writes the buffered records; on a write error tracing stops (the run
 * goes on: a trace is never worth failing the job). */
static void trace_flush_locked(void) {
  size_t len = trace.used * sizeof(hc_trace_rec_t);
  const char *p = (const char *)trace.buf;
  while (len > 0 && trace.fd >= 0) {
    ssize_t n = write(trace.fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      hc_log(HC_LOG_WARN, "trace", "write failed (%s); tracing stops",
             strerror(errno));
      hc_trace_on = 0;
      break;
    }
    p += n;
    len -= (size_t)n;
  }
  trace.used = 0;
}

static void trace_append(const hc_trace_rec_t *rec) {
  pthread_mutex_lock(&trace.lock);
  if (trace.buf != NULL) {
    trace.buf[trace.used++] = *rec;
    if (trace.used == TRACE_BUF_RECS)
      trace_flush_locked();
  }
  pthread_mutex_unlock(&trace.lock);
}

void hc_trace_call(hc_trace_call_t call, uint64_t t_start, int peer, int tag,
                   size_t bytes) {
  hc_trace_rec_t rec = {0};
  rec.t_start = t_start;
  rec.t_end = hc_trace_now();
  rec.bytes = bytes;
  rec.peer = peer;
  rec.tag = tag;
  rec.call = (uint16_t)call;
  trace_append(&rec);
}

void hc_trace_engine(hc_trace_call_t call, int peer, int tag, size_t bytes,
                     uint64_t key, int mem, hc_trace_path_t path) {
  hc_trace_rec_t rec = {0};
  rec.t_start = rec.t_end = hc_trace_now();
  rec.bytes = bytes;
  rec.key = key;
  rec.peer = peer;
  rec.tag = tag;
  rec.call = (uint16_t)call;
  rec.mem = (uint8_t)mem;
  rec.path = (uint8_t)path;
  trace_append(&rec);
}

/* mkdir -p: every rank races to create the same tree, so EEXIST is fine. */
static int trace_mkdirs(const char *dir) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char *p = path + 1; *p != '\0'; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
      return -1;
    *p = '/';
  }
  return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static int trace_open(const char *dir, hc_trace_file_hdr_t *hdr) {
  char path[4096];
  if (trace_mkdirs(dir) != 0) {
    hc_log(HC_LOG_WARN, "trace", "HCMPI_TRACE=%s: mkdir: %s", dir,
           strerror(errno));
    return -1;
  }
  snprintf(path, sizeof path, "%s/rank-%d.trace", dir, hdr->rank);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0 || write(fd, hdr, sizeof *hdr) != (ssize_t)sizeof *hdr) {
    hc_log(HC_LOG_WARN, "trace", "%s: %s; not tracing", path,
           strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  return fd;
}

void hc_trace_start(void) {
  const char *dir = hc_env_string("HCMPI_TRACE", NULL);
  if (dir == NULL || hc_trace_on)
    return;
  hc_trace_file_hdr_t hdr = {0};
  memcpy(hdr.magic, HC_TRACE_MAGIC, sizeof hdr.magic);
  hdr.version = 1;
  hdr.rec_size = sizeof(hc_trace_rec_t);
  hdr.rank = hc_engine.world_rank;
  hdr.size = hc_engine.world_size;
  hdr.pid = (int64_t)getpid();
  gethostname(hdr.host, sizeof hdr.host - 1);
  /* Every rank leaves the barrier within about one latency: the instants
   * after it are the ranks' common zero. */
  hcomm_barrier(hcomm_comm_world());
  hdr.sync_ns = hc_trace_now();
  trace.buf = malloc(TRACE_BUF_RECS * sizeof(hc_trace_rec_t));
  if (trace.buf == NULL)
    return;
  trace.fd = trace_open(dir, &hdr);
  if (trace.fd < 0) {
    free(trace.buf);
    trace.buf = NULL;
    return;
  }
  hc_trace_on = 1;
}

void hc_trace_stop(void) {
  pthread_mutex_lock(&trace.lock);
  hc_trace_on = 0;
  if (trace.buf != NULL)
    trace_flush_locked();
  if (trace.fd >= 0)
    close(trace.fd);
  trace.fd = -1;
  free(trace.buf);
  trace.buf = NULL;
  pthread_mutex_unlock(&trace.lock);
}
