/*
 * MPIX streams (MPICH 4.1+): MPIX_Stream_create/free, stream
 * communicators (MPIX_Stream_comm_create, _multiplex, MPIX_Comm_get_stream),
 * point-to-point between given streams (MPIX_Stream_send/recv and their I-
 * and _c forms) and MPIX_Info_set_hex, which encodes a stream handle for
 * the "value" key as MPICH does: each byte, in memory order, as two
 * upper-case hex digits.  The enqueue operations are in stream_enqueue.c.
 *
 * A multiplexed communicator keeps, when some rank gave more than one
 * stream, a hidden duplicate per (source index, destination index) pair,
 * so a message sent between two streams only matches a receive naming the
 * same pair.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/handle.h"
#include "mpi/stream.h"
#include "util/env.h"
#include "util/hex.h"
#include "util/lock.h"

static hc_handle_table_t stream_table =
    HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_STREAM, 0);
/* Guards every stream's attached count. */
static pthread_mutex_t stream_lock = PTHREAD_MUTEX_INITIALIZER;

hc_mpi_stream_t *hc_mpi_stream_get(MPIX_Stream handle) {
  return hc_handle_get(&stream_table, handle);
}

/* ---- MPIX_Info_set_hex and its decoding --------------------------------- */

int PMPIX_Info_set_hex(MPI_Info info, const char *key, const void *value,
                       int value_size) {
  static const char fn[] = "MPIX_Info_set_hex";
  if (value_size < 0 || value_size > (MPI_MAX_INFO_VAL - 1) / 2)
    return hc_mpi_raise(NULL, fn, MPI_ERR_INFO_VALUE,
                        "value_size %d outside [0, %d]", value_size,
                        (MPI_MAX_INFO_VAL - 1) / 2);
  if (value_size > 0 && value == NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "value is NULL");
  char hex[MPI_MAX_INFO_VAL];
  const unsigned char *bytes = value;
  for (int i = 0; i < value_size; i++)
    snprintf(hex + 2 * i, 3, "%02X", bytes[i]);
  hex[2 * value_size] = '\0';
  return PMPI_Info_set(info, key, hex);
}
HC_WEAK_ALIAS(MPIX_Info_set_hex, PMPIX_Info_set_hex);

/* Decodes exactly len bytes: pairs of hex digits, and "[N]" for N zero
 * bytes (the run-length form newer MPICH writes).  0, or -1. */
static int hex_decode(const char *s, unsigned char *out, size_t len) {
  size_t n = 0;
  while (*s != '\0') {
    if (*s == '[') {
      char *end;
      unsigned long zeros = strtoul(s + 1, &end, 10);
      if (*end != ']' || zeros > len - n)
        return -1;
      memset(out + n, 0, zeros);
      n += zeros;
      s = end + 1;
      continue;
    }
    int hi = hc_hex_digit(s[0]), lo = hi < 0 ? -1 : hc_hex_digit(s[1]);
    if (lo < 0 || n == len)
      return -1;
    out[n++] = (unsigned char)(hi << 4 | lo);
    s += 2;
  }
  return n == len ? 0 : -1;
}

/* ---- MPIX_Stream_create / free ------------------------------------------ */

/* The memory kind named by the "type" key: 0 and *kind, or -1. */
static int stream_kind_of(const char *type, int *kind) {
  if (strcmp(type, "aclrtStream") == 0)
    *kind = HCOMM_MEM_ACL;
  else if (strcmp(type, "cudaStream_t") == 0 || strcmp(type, "CUstream") == 0)
    *kind = HCOMM_MEM_CUDA;
  else
    return -1;
  return 0;
}

/* Reads "type" and "value" of info: *kind (host when no type) and *app. */
static int stream_parse_info(const char *fn, MPI_Info info, int *kind,
                             void **app) {
  char type[MPI_MAX_INFO_VAL], value[MPI_MAX_INFO_VAL];
  int len = (int)sizeof type, flag = 0;
  *kind = HCOMM_MEM_HOST;
  *app = NULL;
  if (info == MPI_INFO_NULL)
    return MPI_SUCCESS;
  int rc = PMPI_Info_get_string(info, "type", &len, type, &flag);
  if (rc != MPI_SUCCESS || !flag)
    return rc;
  if (stream_kind_of(type, kind) != 0)
    return hc_mpi_raise(NULL, fn, MPI_ERR_INFO_VALUE,
                        "unknown stream type \"%s\" (aclrtStream, "
                        "cudaStream_t, or no type for a host stream)",
                        type);
  len = (int)sizeof value;
  rc = PMPI_Info_get_string(info, "value", &len, value, &flag);
  if (rc != MPI_SUCCESS)
    return rc;
  if (!flag || hex_decode(value, (unsigned char *)app, sizeof *app) != 0 ||
      *app == NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_INFO_VALUE,
                        "a %s stream needs key \"value\": its handle as "
                        "MPIX_Info_set_hex writes it (%zu bytes)",
                        type, sizeof *app);
  return MPI_SUCCESS;
}

static void stream_destroy(hc_mpi_stream_t *s) {
  hcomm_stream_release(s->engine);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

int PMPIX_Stream_create(MPI_Info info, MPIX_Stream *stream) {
  static const char fn[] = "MPIX_Stream_create";
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, stream, "stream");
  int kind;
  void *app;
  if (rc == MPI_SUCCESS)
    rc = stream_parse_info(fn, info, &kind, &app);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_stream_t *s = calloc(1, sizeof *s);
  if (s == NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  s->kind = kind;
  s->app = app;
  atomic_init(&s->error, MPI_SUCCESS);
  pthread_mutex_init(&s->lock, NULL);
  if (kind != HCOMM_MEM_HOST) {
    hc_status_t st = hcomm_stream_adopt(kind, app, &s->engine);
    if (st != HC_OK) {
      stream_destroy(s);
      return hc_mpi_raise(NULL, fn, MPI_ERR_UNSUPPORTED_OPERATION,
                          "no %s runtime to run the stream on (%s)",
                          kind == HCOMM_MEM_ACL ? "Ascend" : "CUDA",
                          hcomm_strerror(st));
    }
  }
  /* auto: direct unless the runtime's IPC closes wait for the stream. */
  const char *direct = hc_env_string("HCMPI_STREAM_DIRECT", "auto");
  s->direct = strcmp(direct, "auto") == 0
                  ? s->engine == NULL || hcomm_stream_paths_safe(s->engine)
                  : hc_env_bool("HCMPI_STREAM_DIRECT", 1);
  if (hc_handle_alloc(&stream_table, s, &s->handle) != 0) {
    stream_destroy(s);
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  *stream = s->handle;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPIX_Stream_create, PMPIX_Stream_create);

int PMPIX_Stream_free(MPIX_Stream *stream) {
  static const char fn[] = "MPIX_Stream_free";
  int rc = hc_mpi_check_ptr(fn, NULL, stream, "stream");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_stream_t *s = hc_mpi_stream_get(*stream);
  if (s == NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "invalid stream 0x%x", *stream);
  hc_lock(&stream_lock);
  int attached = s->attached;
  hc_unlock(&stream_lock);
  if (attached > 0)
    return hc_mpi_raise(NULL, fn, MPI_ERR_OTHER,
                        "stream 0x%x is still attached to %d "
                        "communicator(s): free them first",
                        *stream, attached);
  if (s->progressing)
    return hc_mpi_raise(NULL, fn, MPI_ERR_OTHER,
                        "stream 0x%x still has a progress thread "
                        "(MPIX_Stop_progress_thread first)",
                        *stream);
  rc = s->engine != NULL ? hc_mpi_enq_drain(s) : MPI_SUCCESS;
  hc_handle_free(&stream_table, s->handle);
  stream_destroy(s);
  *stream = MPIX_STREAM_NULL;
  return rc;
}
HC_WEAK_ALIAS(MPIX_Stream_free, PMPIX_Stream_free);

/* ---- progress ------------------------------------------------------------ */

/* One engine makes progress for every stream: progressing any stream (or
 * MPIX_STREAM_NULL) progresses all of them. */
int PMPIX_Stream_progress(MPIX_Stream stream) {
  static const char fn[] = "MPIX_Stream_progress";
  int rc = hc_mpi_check_ready(fn);
  if (rc != MPI_SUCCESS)
    return rc;
  if (stream != MPIX_STREAM_NULL && hc_mpi_stream_get(stream) == NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "invalid stream 0x%x", stream);
  hcomm_progress();
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPIX_Stream_progress, PMPIX_Stream_progress);

static void *stream_progress_main(void *arg) {
  hc_mpi_stream_t *s = arg;
  while (!atomic_load(&s->stop_progress)) {
    hcomm_progress();
    sched_yield();
  }
  return NULL;
}

/* Looks up a stream for the progress-thread calls (MPIX_STREAM_NULL is
 * not a stream that can own a thread). */
static int stream_lookup(const char *fn, MPIX_Stream stream,
                         hc_mpi_stream_t **out) {
  int rc = hc_mpi_check_ready(fn);
  if (rc != MPI_SUCCESS)
    return rc;
  *out = hc_mpi_stream_get(stream);
  if (*out == NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "invalid stream 0x%x", stream);
  return MPI_SUCCESS;
}

int PMPIX_Start_progress_thread(MPIX_Stream stream) {
  static const char fn[] = "MPIX_Start_progress_thread";
  hc_mpi_stream_t *s = NULL;
  int rc = stream_lookup(fn, stream, &s);
  if (rc != MPI_SUCCESS)
    return rc;
  if (s->progressing)
    return hc_mpi_raise(NULL, fn, MPI_ERR_OTHER,
                        "stream 0x%x already has a progress thread", stream);
  hcomm_threads_enable(); /* before the thread can enter the engine */
  atomic_init(&s->stop_progress, 0);
  if (pthread_create(&s->progress_thread, NULL, stream_progress_main, s) != 0)
    return hc_mpi_raise(NULL, fn, MPI_ERR_OTHER, "cannot start a thread");
  s->progressing = 1;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPIX_Start_progress_thread, PMPIX_Start_progress_thread);

int PMPIX_Stop_progress_thread(MPIX_Stream stream) {
  static const char fn[] = "MPIX_Stop_progress_thread";
  hc_mpi_stream_t *s = NULL;
  int rc = stream_lookup(fn, stream, &s);
  if (rc != MPI_SUCCESS)
    return rc;
  if (!s->progressing)
    return hc_mpi_raise(NULL, fn, MPI_ERR_OTHER,
                        "stream 0x%x has no progress thread", stream);
  atomic_store(&s->stop_progress, 1);
  pthread_join(s->progress_thread, NULL);
  s->progressing = 0;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPIX_Stop_progress_thread, PMPIX_Stop_progress_thread);

/* ---- stream communicators ----------------------------------------------- */

void hc_mpi_stream_detach(hc_mpi_stream_attach_t *a) {
  if (a == NULL)
    return;
  hc_lock(&stream_lock);
  for (int i = 0; i < a->nlocal; i++)
    if (a->local[i] != NULL)
      a->local[i]->attached--;
  hc_unlock(&stream_lock);
  for (int i = 0; a->pairs != NULL && i < a->width * a->width; i++)
    if (a->pairs[i] != MPI_COMM_NULL)
      PMPI_Comm_free(&a->pairs[i]);
  free(a->pairs);
  free(a->counts);
  free(a->local);
  free(a);
}

void hc_mpi_stream_quiesce(hc_mpi_stream_attach_t *a) {
  for (int i = 0; a != NULL && i < a->nlocal; i++)
    if (a->local[i] != NULL && a->local[i]->engine != NULL)
      hcomm_stream_drain(a->local[i]->engine);
}

/* The hidden duplicates of a communicator some rank gave several streams:
 * one per (source index, destination index), made in the same order on
 * every rank. */
static int stream_make_pairs(hc_mpi_stream_attach_t *a, MPI_Comm comm) {
  int n = a->width * a->width;
  a->pairs = malloc((size_t)n * sizeof *a->pairs);
  if (a->pairs == NULL)
    return MPI_ERR_NO_MEM;
  for (int i = 0; i < n; i++)
    a->pairs[i] = MPI_COMM_NULL;
  for (int i = 0; i < n; i++) {
    int rc = PMPI_Comm_dup(comm, &a->pairs[i]);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  return MPI_SUCCESS;
}

/* Builds the attachment of n local streams (objects already checked) to
 * the new communicator c (collective over it). */
static int stream_attach(hc_mpi_comm_t *c, int n, hc_mpi_stream_t **local) {
  int size = 0;
  PMPI_Comm_size(c->handle, &size);
  hc_mpi_stream_attach_t *a = calloc(1, sizeof *a);
  if (a == NULL) {
    free(local);
    return MPI_ERR_NO_MEM;
  }
  a->nlocal = n;
  a->local = local;
  a->counts = malloc((size_t)size * sizeof *a->counts);
  int rc = a->counts != NULL ? MPI_SUCCESS : MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS)
    rc = PMPI_Allgather(&n, 1, MPI_INT, a->counts, 1, MPI_INT, c->handle);
  for (int r = 0; rc == MPI_SUCCESS && r < size; r++)
    if (a->counts[r] > a->width)
      a->width = a->counts[r];
  if (rc == MPI_SUCCESS && a->width > 1)
    rc = stream_make_pairs(a, c->handle);
  hc_lock(&stream_lock);
  for (int i = 0; i < n; i++)
    if (local[i] != NULL)
      local[i]->attached++;
  hc_unlock(&stream_lock);
  c->streams = a; /* on failure too: the communicator's release undoes it */
  return rc;
}

/* The stream objects of handles[0..count) (MPIX_STREAM_NULL: NULL); a
 * communicator given none gets one null stream, as in MPICH. */
static int stream_lookup_all(const char *fn, hc_mpi_comm_t *c, int count,
                             const MPIX_Stream *handles, hc_mpi_stream_t ***out,
                             int *n) {
  *n = count > 0 ? count : 1;
  hc_mpi_stream_t **local = calloc((size_t)*n, sizeof *local);
  if (local == NULL)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  for (int i = 0; i < count; i++) {
    if (handles[i] == MPIX_STREAM_NULL)
      continue;
    local[i] = hc_mpi_stream_get(handles[i]);
    if (local[i] == NULL) {
      free(local);
      return hc_mpi_raise(c, fn, MPI_ERR_ARG, "invalid stream 0x%x at %d",
                          handles[i], i);
    }
  }
  *out = local;
  return MPI_SUCCESS;
}

static int stream_comm_make(const char *fn, MPI_Comm comm, int count,
                            const MPIX_Stream *streams, MPI_Comm *newcomm) {
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  if (count < 0 || (count > 0 && streams == NULL))
    return hc_mpi_raise(c, fn, MPI_ERR_ARG, "%d streams at %p", count,
                        (const void *)streams);
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter)
    return hc_mpi_raise(c, fn, MPI_ERR_COMM,
                        "streams attach to intracommunicators only");
  rc = hc_mpi_check_ptr(fn, c, newcomm, "newcomm");
  hc_mpi_stream_t **local = NULL;
  int n = 0;
  if (rc == MPI_SUCCESS)
    rc = stream_lookup_all(fn, c, count, streams, &local, &n);
  if (rc != MPI_SUCCESS)
    return rc;
  MPI_Comm dup = MPI_COMM_NULL;
  rc = PMPI_Comm_dup(comm, &dup);
  if (rc != MPI_SUCCESS) {
    free(local);
    return rc;
  }
  hc_mpi_comm_t *d = hc_mpi_comm_get(dup);
  rc = stream_attach(d, n, local);
  if (rc != MPI_SUCCESS) {
    PMPI_Comm_free(&dup);
    return hc_mpi_raise(c, fn, rc, "attaching %d stream(s) failed", n);
  }
  *newcomm = dup;
  return MPI_SUCCESS;
}

int PMPIX_Stream_comm_create(MPI_Comm comm, MPIX_Stream stream,
                             MPI_Comm *newcomm) {
  return stream_comm_make("MPIX_Stream_comm_create", comm, 1, &stream, newcomm);
}
HC_WEAK_ALIAS(MPIX_Stream_comm_create, PMPIX_Stream_comm_create);

int PMPIX_Stream_comm_create_multiplex(MPI_Comm comm, int count,
                                       MPIX_Stream array_of_streams[],
                                       MPI_Comm *newcomm) {
  return stream_comm_make("MPIX_Stream_comm_create_multiplex", comm, count,
                          array_of_streams, newcomm);
}
HC_WEAK_ALIAS(MPIX_Stream_comm_create_multiplex,
              PMPIX_Stream_comm_create_multiplex);

int PMPIX_Comm_get_stream(MPI_Comm comm, int idx, MPIX_Stream *stream) {
  static const char fn[] = "MPIX_Comm_get_stream";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, stream, "stream");
  if (rc != MPI_SUCCESS)
    return rc;
  int n = c->streams != NULL ? c->streams->nlocal : 1;
  if (idx < 0 || idx >= n)
    return hc_mpi_raise(c, fn, MPI_ERR_ARG, "stream index %d outside [0, %d)",
                        idx, n);
  hc_mpi_stream_t *s = c->streams != NULL ? c->streams->local[idx] : NULL;
  *stream = s != NULL ? s->handle : MPIX_STREAM_NULL;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPIX_Comm_get_stream, PMPIX_Comm_get_stream);

/* ---- point-to-point between given streams ------------------------------- */

/* The communicator that carries messages from stream index src_idx of the
 * sender to dst_idx of the receiver; mine is this rank's index, theirs the
 * peer's (unchecked for MPI_PROC_NULL and MPI_ANY_SOURCE). */
static int stream_route(const char *fn, MPI_Comm comm, int peer, int mine,
                        int theirs, int src_idx, int dst_idx, MPI_Comm *out) {
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_stream_attach_t *a = c->streams;
  if (a == NULL)
    return hc_mpi_raise(c, fn, MPI_ERR_COMM,
                        "not a stream communicator (MPIX_Stream_comm_create)");
  int size = 0, me = 0;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_rank(comm, &me);
  int known = peer >= 0 && peer < size;
  if (mine < 0 || mine >= a->counts[me] ||
      (known && (theirs < 0 || theirs >= a->counts[peer])))
    return hc_mpi_raise(c, fn, MPI_ERR_ARG,
                        "stream indices %d -> %d: this rank has %d "
                        "stream(s), rank %d has %d",
                        src_idx, dst_idx, a->counts[me], peer,
                        known ? a->counts[peer] : -1);
  *out = a->width > 1 ? a->pairs[src_idx * a->width + dst_idx] : comm;
  return MPI_SUCCESS;
}

int PMPIX_Stream_send_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                        int dest, int tag, MPI_Comm comm,
                        int source_stream_index, int dest_stream_index) {
  MPI_Comm route;
  int rc = stream_route("MPIX_Stream_send", comm, dest, source_stream_index,
                        dest_stream_index, source_stream_index,
                        dest_stream_index, &route);
  return rc != MPI_SUCCESS
             ? rc
             : PMPI_Send_c(buf, count, datatype, dest, tag, route);
}
HC_WEAK_ALIAS(MPIX_Stream_send_c, PMPIX_Stream_send_c);

int PMPIX_Stream_isend_c(const void *buf, MPI_Count count,
                         MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, int source_stream_index,
                         int dest_stream_index, MPI_Request *request) {
  MPI_Comm route;
  int rc = stream_route("MPIX_Stream_isend", comm, dest, source_stream_index,
                        dest_stream_index, source_stream_index,
                        dest_stream_index, &route);
  return rc != MPI_SUCCESS
             ? rc
             : PMPI_Isend_c(buf, count, datatype, dest, tag, route, request);
}
HC_WEAK_ALIAS(MPIX_Stream_isend_c, PMPIX_Stream_isend_c);

int PMPIX_Stream_recv_c(void *buf, MPI_Count count, MPI_Datatype datatype,
                        int source, int tag, MPI_Comm comm,
                        int source_stream_index, int dest_stream_index,
                        MPI_Status *status) {
  MPI_Comm route;
  int rc = stream_route("MPIX_Stream_recv", comm, source, dest_stream_index,
                        source_stream_index, source_stream_index,
                        dest_stream_index, &route);
  return rc != MPI_SUCCESS
             ? rc
             : PMPI_Recv_c(buf, count, datatype, source, tag, route, status);
}
HC_WEAK_ALIAS(MPIX_Stream_recv_c, PMPIX_Stream_recv_c);

int PMPIX_Stream_irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype,
                         int source, int tag, MPI_Comm comm,
                         int source_stream_index, int dest_stream_index,
                         MPI_Request *request) {
  MPI_Comm route;
  int rc = stream_route("MPIX_Stream_irecv", comm, source, dest_stream_index,
                        source_stream_index, source_stream_index,
                        dest_stream_index, &route);
  return rc != MPI_SUCCESS
             ? rc
             : PMPI_Irecv_c(buf, count, datatype, source, tag, route, request);
}
HC_WEAK_ALIAS(MPIX_Stream_irecv_c, PMPIX_Stream_irecv_c);

int PMPIX_Stream_send(const void *buf, int count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, int source_stream_index,
                      int dest_stream_index) {
  return PMPIX_Stream_send_c(buf, count, datatype, dest, tag, comm,
                             source_stream_index, dest_stream_index);
}
HC_WEAK_ALIAS(MPIX_Stream_send, PMPIX_Stream_send);

int PMPIX_Stream_isend(const void *buf, int count, MPI_Datatype datatype,
                       int dest, int tag, MPI_Comm comm,
                       int source_stream_index, int dest_stream_index,
                       MPI_Request *request) {
  return PMPIX_Stream_isend_c(buf, count, datatype, dest, tag, comm,
                              source_stream_index, dest_stream_index, request);
}
HC_WEAK_ALIAS(MPIX_Stream_isend, PMPIX_Stream_isend);

int PMPIX_Stream_recv(void *buf, int count, MPI_Datatype datatype, int source,
                      int tag, MPI_Comm comm, int source_stream_index,
                      int dest_stream_index, MPI_Status *status) {
  return PMPIX_Stream_recv_c(buf, count, datatype, source, tag, comm,
                             source_stream_index, dest_stream_index, status);
}
HC_WEAK_ALIAS(MPIX_Stream_recv, PMPIX_Stream_recv);

int PMPIX_Stream_irecv(void *buf, int count, MPI_Datatype datatype, int source,
                       int tag, MPI_Comm comm, int source_stream_index,
                       int dest_stream_index, MPI_Request *request) {
  return PMPIX_Stream_irecv_c(buf, count, datatype, source, tag, comm,
                              source_stream_index, dest_stream_index, request);
}
HC_WEAK_ALIAS(MPIX_Stream_irecv, PMPIX_Stream_irecv);
