/*
 * Typed data in device memory, for the face: the face never dereferences a
 * pointer the device layer (src/device) classifies as device memory, so a
 * non-contiguous datatype there is packed from, or unpacked into, a host
 * copy of the elements' true extent, moved by the device layer's copy.
 * Used by point-to-point staging (xfer.c) and the collectives' views
 * (coll_ctx.c).
 */
#ifndef HC_MPI_DEVSTAGE_H
#define HC_MPI_DEVSTAGE_H

#include "hcomm.h"
#include "mpi/datatype.h"

/* 1 when buf is device memory (*info filled); NULL is host. */
int hc_mpi_dev_classify(const void *buf, hcomm_mem_info_t *info);

/* Packs count elements of type at dev (device memory described by info)
 * into out (count * size bytes).  HC_OK, HC_ERR_NOMEM, or the status of
 * the failed device copy. */
hc_status_t hc_mpi_dev_pack(const hc_mpi_type_t *type, const void *dev,
                            const hcomm_mem_info_t *info, MPI_Count count,
                            void *out);
/* Unpacks the first n bytes of the packed stream in into count elements
 * of type at dev; the bytes between the type's blocks keep their values
 * (they are read back first).  Statuses as hc_mpi_dev_pack. */
hc_status_t hc_mpi_dev_unpack(const hc_mpi_type_t *type, const void *in,
                              MPI_Count n, MPI_Count count, void *dev,
                              const hcomm_mem_info_t *info);

/* hc_mpi_type_pack / hc_mpi_type_unpack_range(first 0, n bytes) for a
 * buffer in host or device memory (classified here); HC_OK for host. */
hc_status_t hc_mpi_pack_any(const hc_mpi_type_t *type, const void *buf,
                            MPI_Count count, void *out);
hc_status_t hc_mpi_unpack_any(const hc_mpi_type_t *type, const void *in,
                              MPI_Count n, MPI_Count count, void *buf);

#endif /* HC_MPI_DEVSTAGE_H */
