#include "hcomm/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
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

/* A spin flag rather than a mutex: the critical section is one 48-byte
 * store (a mutex cost more than the record itself, bench/RESULTS.md);
 * only the rare flush, one write(2) per 65536 records, holds it long, and
 * a waiter yields meanwhile. */
static struct {
  atomic_flag busy;
  int fd;
  size_t used;
  hc_trace_rec_t *buf;
} trace = {ATOMIC_FLAG_INIT, -1, 0, NULL};

static void trace_lock(void) {
  while (atomic_flag_test_and_set_explicit(&trace.busy, memory_order_acquire))
    sched_yield();
}

static void trace_unlock(void) {
  atomic_flag_clear_explicit(&trace.busy, memory_order_release);
}

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

/* Stores one record straight into the buffer (no copy through the stack). */
static void trace_append(uint64_t t_start, uint64_t t_end, size_t bytes,
                         uint64_t key, int peer, int tag, hc_trace_call_t call,
                         int mem, hc_trace_path_t path) {
  trace_lock();
  if (trace.buf != NULL) {
    hc_trace_rec_t *r = &trace.buf[trace.used++];
    r->t_start = t_start;
    r->t_end = t_end;
    r->bytes = bytes;
    r->key = key;
    r->peer = peer;
    r->tag = tag;
    r->call = (uint16_t)call;
    r->mem = (uint8_t)mem;
    r->path = (uint8_t)path;
    r->pad = 0;
    if (trace.used == TRACE_BUF_RECS)
      trace_flush_locked();
  }
  trace_unlock();
}

void hc_trace_call(hc_trace_call_t call, uint64_t t_start, int peer, int tag,
                   size_t bytes) {
  trace_append(t_start, hc_trace_now(), bytes, 0, peer, tag, call, 0,
               HC_TRACE_PATH_NONE);
}

void hc_trace_engine(hc_trace_call_t call, int peer, int tag, size_t bytes,
                     uint64_t key, int mem, hc_trace_path_t path) {
  uint64_t now = hc_trace_now();
  trace_append(now, now, bytes, key, peer, tag, call, mem, path);
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
    hc_log(HC_LOG_WARN, "trace", "%s: %s; not tracing", path, strerror(errno));
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
  trace_lock();
  hc_trace_on = 0;
  if (trace.buf != NULL)
    trace_flush_locked();
  if (trace.fd >= 0)
    close(trace.fd);
  trace.fd = -1;
  free(trace.buf);
  trace.buf = NULL;
  trace_unlock();
}
