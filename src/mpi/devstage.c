/* See devstage.h. */
#include "mpi/devstage.h"

#include <stdlib.h>

#include "util/log.h"

static const hcomm_mem_info_t devstage_host = {HCOMM_MEM_HOST, -1, 0, 0};

int hc_mpi_dev_classify(const void *buf, hcomm_mem_info_t *info) {
  if (buf == NULL || buf == HCOMM_IN_PLACE)
    return 0;
  /* Without a device runtime every pointer is host memory: one load
   * instead of a classification on each blocking collective's path. */
  if (!hcomm_mem_any_device()) {
    if (info != NULL)
      *info = devstage_host;
    return 0;
  }
  return hcomm_mem_classify(buf, info);
}

/* Bytes [start + *rel, start + *rel + *len) hold every byte that count
 * elements of t at start touch. */
static void devstage_span(const hc_mpi_type_t *t, MPI_Count count,
                          MPI_Aint *rel, size_t *len) {
  MPI_Aint step = (MPI_Aint)(count - 1) * t->extent;
  *rel = t->true_lb + (step < 0 ? step : 0);
  *len = (size_t)(t->true_extent + (step < 0 ? -step : step));
}

static hc_status_t devstage_copy(void *dst, const hcomm_mem_info_t *dinfo,
                                 const void *src, const hcomm_mem_info_t *sinfo,
                                 size_t len) {
  hc_status_t rc =
      len > 0 ? hcomm_mem_copy(dst, dinfo, src, sinfo, len) : HC_OK;
  if (rc != HC_OK)
    hc_log(HC_LOG_WARN, "mpi", "device copy of %zu bytes failed: %s", len,
           hcomm_strerror(rc));
  return rc;
}

/* A host copy of the true extent of count elements at dev: *host points
 * where dev would (its bytes from *rel on are valid); free *mem. */
static hc_status_t devstage_load(const hc_mpi_type_t *t, const char *dev,
                                 const hcomm_mem_info_t *info, MPI_Count count,
                                 char **mem, MPI_Aint *rel, size_t *len) {
  devstage_span(t, count, rel, len);
  *mem = malloc(*len ? *len : 1);
  if (*mem == NULL)
    return HC_ERR_NOMEM;
  return devstage_copy(*mem, &devstage_host, dev + *rel, info, *len);
}

hc_status_t hc_mpi_dev_pack(const hc_mpi_type_t *type, const void *dev,
                            const hcomm_mem_info_t *info, MPI_Count count,
                            void *out) {
  if (count == 0 || type->size == 0)
    return HC_OK;
  if (hc_mpi_type_dense(type))
    return devstage_copy(out, &devstage_host, dev, info,
                         (size_t)count * (size_t)type->size);
  char *mem = NULL;
  MPI_Aint rel;
  size_t len;
  hc_status_t rc = devstage_load(type, dev, info, count, &mem, &rel, &len);
  if (rc == HC_OK)
    hc_mpi_type_pack(type, mem - rel, count, out);
  free(mem);
  return rc;
}

hc_status_t hc_mpi_dev_unpack(const hc_mpi_type_t *type, const void *in,
                              MPI_Count n, MPI_Count count, void *dev,
                              const hcomm_mem_info_t *info) {
  if (n == 0 || count == 0 || type->size == 0)
    return HC_OK;
  if (hc_mpi_type_dense(type))
    return devstage_copy(dev, info, in, &devstage_host, (size_t)n);
  char *mem = NULL;
  MPI_Aint rel;
  size_t len;
  hc_status_t rc = devstage_load(type, dev, info, count, &mem, &rel, &len);
  if (rc == HC_OK) {
    hc_mpi_type_unpack_range(type, in, 0, n, mem - rel);
    rc = devstage_copy((char *)dev + rel, info, mem, &devstage_host, len);
  }
  free(mem);
  return rc;
}

hc_status_t hc_mpi_pack_any(const hc_mpi_type_t *type, const void *buf,
                            MPI_Count count, void *out) {
  hcomm_mem_info_t info;
  if (hc_mpi_dev_classify(buf, &info))
    return hc_mpi_dev_pack(type, buf, &info, count, out);
  hc_mpi_type_pack(type, buf, count, out);
  return HC_OK;
}

hc_status_t hc_mpi_unpack_any(const hc_mpi_type_t *type, const void *in,
                              MPI_Count n, MPI_Count count, void *buf) {
  hcomm_mem_info_t info;
  if (hc_mpi_dev_classify(buf, &info))
    return hc_mpi_dev_unpack(type, in, n, count, buf, &info);
  hc_mpi_type_unpack_range(type, in, 0, n, buf);
  return HC_OK;
}
