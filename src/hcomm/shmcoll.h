/*
 * Collectives of the ranks of one node through one shared segment per
 * communicator (shmcoll.c, shmcoll_seg.c), and of communicators that span
 * nodes through a node communicator of each node and the node leaders'
 * schedules (shmcoll_hier.c), for the blocking Barrier, Bcast, Reduce and
 * Allreduce of the engine (coll.c), whose arguments the MPI face has
 * already made contiguous host bytes.  The I-forms and the
 * persistent forms stay schedules (nbc.c): these algorithms wait in place.
 *
 * Each call either runs the collective and returns its status, or returns
 * HC_ERR_NOT_SUPPORTED and does nothing, and then the caller runs the
 * schedule.  Which one happens depends only on what every rank has alike
 * (the communicator, the byte count, the op's element size, the
 * environment), so every rank takes the same path.  Invalid arguments are
 * HC_ERR_NOT_SUPPORTED too: the schedule's checks report them.
 */
#ifndef HC_SHMCOLL_H
#define HC_SHMCOLL_H

#include <stddef.h>

#include "hcomm.h"

/* The defaults of the tunables (HCMPI_COLL_SHM*). */
#define HC_SHMCOLL_MAX ((size_t)4 << 20)
#define HC_SHMCOLL_CHUNK ((size_t)64 << 10)

typedef struct hc_shmcoll_tuning {
  int enabled;  /* HCMPI_COLL_SHM: 0 leaves every collective to schedules */
  size_t max;   /* larger messages take the schedule */
  size_t chunk; /* bytes of one rank's slot: the pipeline's step */
} hc_shmcoll_tuning_t;

extern hc_shmcoll_tuning_t hc_shmcoll_tuning;
/* Reads HCMPI_COLL_SHM* (engine init, with hc_coll_tuning_load). */
void hc_shmcoll_tuning_load(void);

hc_status_t hc_shmcoll_barrier(hcomm_comm_t *comm);
hc_status_t hc_shmcoll_bcast(void *buf, size_t bytes, int root,
                             hcomm_comm_t *comm);
/* sendbuf HCOMM_IN_PLACE: the input is in recvbuf (the root's, for
 * reduce); recvbuf is written at the root only for reduce. */
hc_status_t hc_shmcoll_reduce(const void *sendbuf, void *recvbuf, size_t count,
                              const hcomm_reduce_op_t *op, int root,
                              hcomm_comm_t *comm);
hc_status_t hc_shmcoll_allreduce(const void *sendbuf, void *recvbuf,
                                 size_t count, const hcomm_reduce_op_t *op,
                                 hcomm_comm_t *comm);

/* Unmaps comm's segment, if it has one (the communicator is going away). */
void hc_shmcoll_free(hcomm_comm_t *comm);

#endif /* HC_SHMCOLL_H */
