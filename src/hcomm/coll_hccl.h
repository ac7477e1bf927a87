/*
 * The engine's side of HCCL's own collectives (coll_hccl.c; the calls the
 * MPI face uses are in hcomm.h).
 */
#ifndef HC_COLL_HCCL_H
#define HC_COLL_HCCL_H

#include "hcomm.h"

/* One communicator's HcclComm and stream. */
typedef struct hc_hccl_coll_comm hc_hccl_coll_comm_t;

/* The communicator goes: its HcclComm with it. */
void hc_hccl_coll_comm_gone(hcomm_comm_t *comm);
/* Finalize, before HCCL is unloaded: every HcclComm still alive. */
void hc_hccl_coll_fini(void);

#endif /* HC_COLL_HCCL_H */
