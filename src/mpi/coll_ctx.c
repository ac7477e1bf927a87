/*
 * One collective call's state: temporaries (engine size arrays, packed
 * buffers) and the unpack jobs that finish a receive into a non-contiguous
 * datatype.  A non-blocking collective hands the state to the engine
 * (hcomm_icoll_on_complete), which runs the jobs before anyone can see the
 * request complete.
 */
#include "mpi/coll_impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct coll_job {
  const hc_mpi_type_t *type;
  const void *from;
  MPI_Count count;
  void *to;
} coll_job_t;

struct hc_mpi_coll {
  void **tmps;
  int ntmps, tmpcap;
  coll_job_t *jobs;
  int njobs, jobcap;
};

hc_mpi_coll_t *hc_mpi_coll_new(void) {
  return calloc(1, sizeof(hc_mpi_coll_t));
}

void hc_mpi_coll_free(hc_mpi_coll_t *cx) {
  if (cx == NULL)
    return;
  for (int i = 0; i < cx->ntmps; i++)
    free(cx->tmps[i]);
  free(cx->tmps);
  free(cx->jobs);
  free(cx);
}

void *hc_mpi_coll_tmp(hc_mpi_coll_t *cx, size_t bytes) {
  if (cx->ntmps == cx->tmpcap) {
    int cap = cx->tmpcap ? 2 * cx->tmpcap : 8;
    void **t = realloc(cx->tmps, (size_t)cap * sizeof *t);
    if (t == NULL)
      return NULL;
    cx->tmps = t;
    cx->tmpcap = cap;
  }
  void *p = calloc(1, bytes > 0 ? bytes : 1);
  if (p != NULL)
    cx->tmps[cx->ntmps++] = p;
  return p;
}

static int coll_job_add(hc_mpi_coll_t *cx, const coll_job_t *job) {
  if (cx->njobs == cx->jobcap) {
    int cap = cx->jobcap ? 2 * cx->jobcap : 8;
    coll_job_t *j = realloc(cx->jobs, (size_t)cap * sizeof *j);
    if (j == NULL)
      return -1;
    cx->jobs = j;
    cx->jobcap = cap;
  }
  cx->jobs[cx->njobs++] = *job;
  return 0;
}

static int coll_dense(const hc_mpi_type_t *t) {
  return t->contiguous && (MPI_Aint)t->size == t->extent &&
         t->wire_size == (size_t)t->size && t->true_lb == 0;
}

/* Sizes and offsets of the blocks; 1 when buf can be used as it is. */
static int coll_layout(int n, const hc_mpi_coll_block_t *blocks, size_t *bytes,
                       size_t *offs, size_t *total) {
  int dense = 1;
  *total = 0;
  for (int i = 0; i < n; i++) {
    dense = dense && coll_dense(blocks[i].type) && blocks[i].disp >= 0;
    bytes[i] = (size_t)blocks[i].count * (size_t)blocks[i].type->size;
    offs[i] = *total;
    *total += bytes[i];
  }
  if (dense)
    for (int i = 0; i < n; i++)
      offs[i] = (size_t)blocks[i].disp;
  return dense;
}

const void *hc_mpi_coll_send_view(hc_mpi_coll_t *cx, const void *buf, int n,
                                  const hc_mpi_coll_block_t *blocks,
                                  size_t *bytes, size_t *offs) {
  size_t total;
  if (coll_layout(n, blocks, bytes, offs, &total))
    return buf != NULL ? buf : (const void *)"";
  char *view = hc_mpi_coll_tmp(cx, total);
  if (view == NULL)
    return NULL;
  for (int i = 0; i < n; i++)
    hc_mpi_type_pack(blocks[i].type, (const char *)buf + blocks[i].disp,
                     blocks[i].count, view + offs[i]);
  return view;
}

void *hc_mpi_coll_recv_view(hc_mpi_coll_t *cx, void *buf, int n,
                            const hc_mpi_coll_block_t *blocks, int load,
                            size_t *bytes, size_t *offs) {
  size_t total;
  if (coll_layout(n, blocks, bytes, offs, &total))
    return buf != NULL ? buf : (void *)"";
  char *view = hc_mpi_coll_tmp(cx, total);
  if (view == NULL)
    return NULL;
  for (int i = 0; i < n; i++) {
    char *user = (char *)buf + blocks[i].disp;
    coll_job_t job = {blocks[i].type, view + offs[i], blocks[i].count, user};
    if (load)
      hc_mpi_type_pack(blocks[i].type, user, blocks[i].count, view + offs[i]);
    if (coll_job_add(cx, &job) != 0)
      return NULL;
  }
  return view;
}

static void coll_unpack_all(hc_mpi_coll_t *cx) {
  for (int i = 0; i < cx->njobs; i++)
    hc_mpi_type_unpack(cx->jobs[i].type, cx->jobs[i].from, cx->jobs[i].count,
                       cx->jobs[i].to);
}

/* Runs in the engine, lock held: only local work. */
static void coll_done_cb(void *arg, hc_status_t status) {
  hc_mpi_coll_t *cx = arg;
  if (status == HC_OK)
    coll_unpack_all(cx);
  hc_mpi_coll_free(cx);
}

int hc_mpi_coll_finish(const char *fn, hc_mpi_comm_t *c, hc_mpi_coll_t *cx,
                       hc_status_t rc, hcomm_request_t *eng,
                       MPI_Request *request) {
  if (rc != HC_OK) {
    hc_mpi_coll_free(cx);
    return hc_mpi_raise_status(c, fn, rc);
  }
  if (request == NULL) {
    rc = hcomm_wait(eng, NULL);
    hcomm_request_free(eng);
    if (rc == HC_OK)
      coll_unpack_all(cx);
    hc_mpi_coll_free(cx);
    return hc_mpi_raise_status(c, fn, rc);
  }
  if (cx->njobs == 0 && cx->ntmps == 0)
    hc_mpi_coll_free(cx);
  else if (hcomm_icoll_on_complete(eng, coll_done_cb, cx) != HC_OK)
    hc_mpi_coll_free(cx); /* cannot happen for a fresh collective */
  return hc_mpi_request_wrap(fn, c, eng, request);
}

int hc_mpi_coll_enter(const char *fn, MPI_Comm comm, int nb,
                      MPI_Request *request, hc_mpi_comm_t **c) {
  int rc = hc_mpi_comm_enter(fn, comm, c);
  /* The algorithms address ranks of one group; an intercommunicator's
   * peers are the remote group, so running them there would hang. */
  if (rc == MPI_SUCCESS && hcomm_comm_is_inter((*c)->engine))
    rc = hc_mpi_raise(*c, fn, MPI_ERR_COMM,
                      "collectives on intercommunicators are not supported");
  if (rc == MPI_SUCCESS && nb)
    rc = hc_mpi_check_ptr(fn, *c, request, "request");
  return rc;
}

int hc_mpi_coll_type(const char *fn, hc_mpi_comm_t *c, int count,
                     MPI_Datatype type, const hc_mpi_type_t **t) {
  int rc = hc_mpi_check_count(fn, c, count);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_type(fn, c, type, t);
  return rc;
}

int hc_mpi_coll_counts(const char *fn, hc_mpi_comm_t *c, const int *counts,
                       int n, const char *what) {
  int rc = hc_mpi_check_ptr(fn, c, counts, what);
  for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
    if (counts[i] < 0)
      rc = hc_mpi_raise(c, fn, MPI_ERR_COUNT, "invalid count %s[%d] = %d", what,
                        i, counts[i]);
  return rc;
}

int hc_mpi_coll_nomem(const char *fn, hc_mpi_comm_t *c, hc_mpi_coll_t *cx) {
  hc_mpi_coll_free(cx);
  return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
}
