/*
 * Partitioned point-to-point (MPI-4.0 chapter 4): MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready(_range, _list), MPI_Parrived.  The engine
 * (src/hcomm/part.c) moves partitions of bytes; this face checks the
 * arguments and turns elements of a datatype into those bytes.  A dense
 * type moves straight from and into the user's buffer (host or device); any
 * other is packed partition by partition into a staging copy as each one
 * is made ready, and a receiver's partition is unpacked from its copy when
 * MPI_Parrived first sees it arrived, or at completion.  Requests start
 * with MPI_Start(all) and complete through the usual waits and tests
 * (request.c calls hc_mpi_part_start, _land and _destroy).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/devstage.h"
#include "mpi/mpi_impl.h"

struct hc_mpi_part {
  int is_recv;
  int partitions;
  MPI_Count count;           /* elements per partition */
  const hc_mpi_type_t *type; /* retained */
  uintptr_t user;            /* the user's buffer (MPI_BOTTOM is 0) */
  size_t part_bytes;         /* packed bytes per partition */
  char *stage; /* packed copy of the message; NULL for a dense type */
  /* Per partition, this round: a send's made ready, a receive's
   * unpacked.  One byte each, so threads readying different partitions
   * write different bytes. */
  unsigned char *marks;
};

/* Where partition i's elements begin in the user's buffer. */
static void *part_user_at(const hc_mpi_part_t *p, int i) {
  return (void *)(p->user +
                  (uintptr_t)((MPI_Aint)i * p->count * p->type->extent));
}

void hc_mpi_part_destroy(hc_mpi_part_t *p) {
  if (p == NULL)
    return;
  hc_mpi_type_release(p->type);
  free(p->stage);
  free(p->marks);
  free(p);
}

/* ---- init ---------------------------------------------------------------- */

static int part_check_peer(const char *fn, hc_mpi_comm_t *c, int peer, int tag,
                           int is_recv) {
  if (is_recv && peer == MPI_ANY_SOURCE)
    return hc_mpi_raise(c, fn, MPI_ERR_RANK,
                        "MPI_ANY_SOURCE cannot match a partitioned send");
  if (is_recv && tag == MPI_ANY_TAG)
    return hc_mpi_raise(c, fn, MPI_ERR_TAG,
                        "MPI_ANY_TAG cannot match a partitioned send");
  int rc = hc_mpi_check_dest(fn, c, peer);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_send_tag(fn, c, tag);
  return rc;
}

static int part_check_args(const char *fn, hc_mpi_comm_t *c, const void *buf,
                           int partitions, MPI_Count count,
                           const hc_mpi_type_t *t, MPI_Info info,
                           MPI_Request *request) {
  if (partitions < 0)
    return hc_mpi_raise(c, fn, MPI_ERR_ARG, "negative partitions %d",
                        partitions);
  if (count < 0)
    return hc_mpi_raise(c, fn, MPI_ERR_COUNT, "negative count %lld",
                        (long long)count);
  if (partitions > 0 && t->size > 0 &&
      count > (MPI_Count)(SIZE_MAX / 2 / (size_t)t->size / (size_t)partitions))
    return hc_mpi_raise(c, fn, MPI_ERR_COUNT,
                        "%d partitions of %lld elements overflow the address "
                        "space",
                        partitions, (long long)count);
  if (buf == MPI_IN_PLACE)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                        "MPI_IN_PLACE is not a point-to-point buffer");
  if (buf == NULL && partitions > 0 && count > 0 && t->size > 0 &&
      t->true_lb == 0)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER, "NULL buffer with data");
  if (info != MPI_INFO_NULL && hc_mpi_info_get(info) == NULL)
    return hc_mpi_raise(c, fn, MPI_ERR_INFO, "invalid info 0x%x",
                        (unsigned)info);
  return hc_mpi_check_ptr(fn, c, request, "request");
}

/* The face state of a new channel; NULL when memory runs out. */
static hc_mpi_part_t *part_new(const void *buf, int partitions, MPI_Count count,
                               const hc_mpi_type_t *t, int is_recv) {
  hc_mpi_part_t *p = calloc(1, sizeof *p);
  if (p == NULL)
    return NULL;
  p->is_recv = is_recv;
  p->partitions = partitions;
  p->count = count;
  p->type = hc_mpi_type_retain(t);
  p->user = (uintptr_t)buf;
  p->part_bytes = (size_t)(count * t->size);
  size_t total = p->part_bytes * (size_t)partitions;
  p->marks = calloc(partitions > 0 ? (size_t)partitions : 1, 1);
  if (!hc_mpi_type_dense(t) && total > 0)
    p->stage = calloc(1, total);
  if (p->marks == NULL || (!hc_mpi_type_dense(t) && total > 0 && !p->stage)) {
    hc_mpi_part_destroy(p);
    return NULL;
  }
  return p;
}

static int part_init(const char *fn, const void *buf, int partitions,
                     MPI_Count count, MPI_Datatype datatype, int peer, int tag,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request,
                     int is_recv) {
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *t = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_type(fn, c, datatype, &t);
  if (rc == MPI_SUCCESS)
    rc = part_check_args(fn, c, buf, partitions, count, t, info, request);
  if (rc == MPI_SUCCESS)
    rc = part_check_peer(fn, c, peer, tag, is_recv);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_part_t *p = part_new(buf, partitions, count, t, is_recv);
  hc_mpi_request_t *r = p ? hc_mpi_request_new(HC_REQ_PERSISTENT, c) : NULL;
  if (r == NULL) {
    hc_mpi_part_destroy(p);
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  r->active = 0;
  r->is_recv = is_recv;
  r->peer = peer;
  r->tag = tag;
  r->part = p;
  void *bytes = p->stage ? p->stage : (void *)buf;
  hc_status_t st = is_recv ? hcomm_precv_init(bytes, p->part_bytes, partitions,
                                              peer, tag, c->engine, &r->engine)
                           : hcomm_psend_init(bytes, p->part_bytes, partitions,
                                              peer, tag, c->engine, &r->engine);
  if (st != HC_OK) {
    r->engine = NULL;
    hc_mpi_request_destroy(r);
    return hc_mpi_raise_status(c, fn, st);
  }
  *request = r->handle;
  return MPI_SUCCESS;
}

int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count,
                    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request) {
  return part_init("MPI_Psend_init", buf, partitions, count, datatype, dest,
                   tag, comm, info, request, 0);
}
HC_WEAK_ALIAS(MPI_Psend_init, PMPI_Psend_init);

int PMPI_Precv_init(void *buf, int partitions, MPI_Count count,
                    MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request) {
  return part_init("MPI_Precv_init", buf, partitions, count, datatype, source,
                   tag, comm, info, request, 1);
}
HC_WEAK_ALIAS(MPI_Precv_init, PMPI_Precv_init);

/* ---- rounds (request.c) -------------------------------------------------- */

int hc_mpi_part_start(const char *fn, hc_mpi_request_t *r) {
  hc_mpi_part_t *p = r->part;
  memset(p->marks, 0, p->partitions > 0 ? (size_t)p->partitions : 1);
  hc_status_t st = hcomm_start(r->engine);
  r->active = st == HC_OK;
  return hc_mpi_raise_status(r->comm, fn, st);
}

/* Unpacks receiver partition j from the staging copy, once a round;
 * landed is how many bytes of the message arrived. */
static void part_unpack(hc_mpi_part_t *p, int j, size_t landed) {
  if (p->stage == NULL || p->marks[j])
    return;
  p->marks[j] = 1;
  size_t off = p->part_bytes * (size_t)j;
  size_t n = landed <= off ? 0 : landed - off;
  n = n < p->part_bytes ? n : p->part_bytes;
  /* A failed device copy was logged; the partition has arrived. */
  (void)hc_mpi_unpack_any(p->type, p->stage + off, (MPI_Count)n, p->count,
                          part_user_at(p, j));
}

void hc_mpi_part_land(hc_mpi_part_t *p, size_t landed) {
  for (int j = 0; p->is_recv && j < p->partitions; j++)
    part_unpack(p, j, landed);
}

/* ---- ready and arrived --------------------------------------------------- */

/* The started partitioned request of the given side that handle names. */
static int part_lookup(const char *fn, MPI_Request handle, int want_recv,
                       hc_mpi_request_t **out) {
  int rc = hc_mpi_check_ready(fn);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_request_t *r =
      handle == MPI_REQUEST_NULL ? NULL : hc_mpi_request_get(handle);
  if (r == NULL || r->part == NULL || r->part->is_recv != want_recv)
    return hc_mpi_raise(r ? r->comm : NULL, fn, MPI_ERR_REQUEST,
                        "request 0x%x is not a partitioned %s",
                        (unsigned)handle, want_recv ? "receive" : "send");
  *out = r;
  return MPI_SUCCESS;
}

static int part_check_partition(const char *fn, const hc_mpi_request_t *r,
                                int partition) {
  if (partition >= 0 && partition < r->part->partitions)
    return MPI_SUCCESS;
  return hc_mpi_raise(r->comm, fn, MPI_ERR_ARG,
                      "partition %d out of range [0, %d)", partition,
                      r->part->partitions);
}

/* Checks that partition i of the started send r may be made ready. */
static int part_check_ready(const char *fn, const hc_mpi_request_t *r, int i) {
  int rc = part_check_partition(fn, r, i);
  if (rc == MPI_SUCCESS && r->part->marks[i])
    rc = hc_mpi_raise(r->comm, fn, MPI_ERR_ARG,
                      "partition %d is already ready in this round", i);
  return rc;
}

/* Packs (non-dense types) and sends partition i of the started send r. */
static int part_ready(const char *fn, hc_mpi_request_t *r, int i) {
  hc_mpi_part_t *p = r->part;
  p->marks[i] = 1;
  hc_status_t st = HC_OK;
  if (p->stage != NULL)
    st = hc_mpi_pack_any(p->type, part_user_at(p, i), p->count,
                         p->stage + p->part_bytes * (size_t)i);
  if (st == HC_OK)
    st = hcomm_pready(r->engine, i);
  return hc_mpi_raise_status(r->comm, fn, st);
}

/* Looks up a started send for the Pready calls. */
static int part_lookup_started(const char *fn, MPI_Request request,
                               hc_mpi_request_t **r) {
  int rc = part_lookup(fn, request, 0, r);
  if (rc == MPI_SUCCESS && !(*r)->active)
    rc =
        hc_mpi_raise((*r)->comm, fn, MPI_ERR_REQUEST,
                     "partitioned send 0x%x is not started", (unsigned)request);
  return rc;
}

int PMPI_Pready(int partition, MPI_Request request) {
  static const char fn[] = "MPI_Pready";
  hc_mpi_request_t *r = NULL;
  int rc = part_lookup_started(fn, request, &r);
  if (rc == MPI_SUCCESS)
    rc = part_check_ready(fn, r, partition);
  return rc == MPI_SUCCESS ? part_ready(fn, r, partition) : rc;
}
HC_WEAK_ALIAS(MPI_Pready, PMPI_Pready);

int PMPI_Pready_range(int partition_low, int partition_high,
                      MPI_Request request) {
  static const char fn[] = "MPI_Pready_range";
  hc_mpi_request_t *r = NULL;
  int rc = part_lookup_started(fn, request, &r);
  if (rc == MPI_SUCCESS && partition_low > partition_high)
    rc = hc_mpi_raise(r->comm, fn, MPI_ERR_ARG,
                      "partition_low %d above partition_high %d", partition_low,
                      partition_high);
  /* Every partition is checked before any leaves: an error readies none. */
  for (int i = partition_low; rc == MPI_SUCCESS && i <= partition_high; i++)
    rc = part_check_ready(fn, r, i);
  for (int i = partition_low; rc == MPI_SUCCESS && i <= partition_high; i++)
    rc = part_ready(fn, r, i);
  return rc;
}
HC_WEAK_ALIAS(MPI_Pready_range, PMPI_Pready_range);

int PMPI_Pready_list(int length, int array_of_partitions[],
                     MPI_Request request) {
  static const char fn[] = "MPI_Pready_list";
  hc_mpi_request_t *r = NULL;
  int rc = part_lookup_started(fn, request, &r);
  if (rc == MPI_SUCCESS && length < 0)
    rc = hc_mpi_raise(r->comm, fn, MPI_ERR_ARG, "negative length %d", length);
  if (rc == MPI_SUCCESS && length > 0)
    rc = hc_mpi_check_ptr(fn, r->comm, array_of_partitions,
                          "array_of_partitions");
  /* Every partition is checked (and marked, so one listed twice is
   * caught) before any leaves: an error readies none. */
  int k = 0;
  for (; rc == MPI_SUCCESS && k < length; k++) {
    rc = part_check_ready(fn, r, array_of_partitions[k]);
    if (rc == MPI_SUCCESS)
      r->part->marks[array_of_partitions[k]] = 1;
  }
  if (rc != MPI_SUCCESS) {
    for (int j = 0; j < k - 1; j++)
      r->part->marks[array_of_partitions[j]] = 0;
    return rc;
  }
  for (k = 0; rc == MPI_SUCCESS && k < length; k++)
    rc = part_ready(fn, r, array_of_partitions[k]);
  return rc;
}
HC_WEAK_ALIAS(MPI_Pready_list, PMPI_Pready_list);

int PMPI_Parrived(MPI_Request request, int partition, int *flag) {
  static const char fn[] = "MPI_Parrived";
  hc_mpi_request_t *r = NULL;
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, flag, "flag");
  if (rc != MPI_SUCCESS)
    return rc;
  if (request == MPI_REQUEST_NULL) { /* MPI-4.0: null or inactive: true */
    *flag = 1;
    return MPI_SUCCESS;
  }
  rc = part_lookup(fn, request, 1, &r);
  if (rc == MPI_SUCCESS)
    rc = part_check_partition(fn, r, partition);
  if (rc != MPI_SUCCESS)
    return rc;
  if (!r->active) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  int arrived = 0;
  hc_status_t st = hcomm_parrived(r->engine, partition, &arrived);
  if (st == HC_OK && arrived)
    part_unpack(r->part, partition, SIZE_MAX);
  *flag = arrived;
  return hc_mpi_raise_status(r->comm, fn, st);
}
HC_WEAK_ALIAS(MPI_Parrived, PMPI_Parrived);
