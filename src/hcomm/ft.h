/*
 * Fault tolerance after a peer's death (User-Level Failure Mitigation):
 * revoking a communicator, the fault-tolerant agreement, and shrink,
 * which builds on it.  Their messages are HC_PKT_FT packets, apart from
 * every matching context, so a revoked communicator still agrees and
 * shrinks; docs/ft.md describes the protocols.
 */
#ifndef HC_FT_H
#define HC_FT_H

#include "hcomm.h"
#include "hcomm/proto.h"

/* Communicators revoked in this process so far: the hot paths test this
 * word alone and look further only when it is not 0. */
extern int hc_ft_nrevoked;
/* Agreements in flight (stepped by progress while not 0). */
extern int hc_ft_nactive;

/* 1 when comm (by its context id and members) was revoked. */
int hc_ft_comm_revoked(const hcomm_comm_t *comm);
/* Why an ANY_SOURCE receive on comm cannot wait: the failure of a member
 * not acknowledged on comm (hcomm_comm_ack_failed); HC_OK when none. */
hc_status_t hc_ft_any_source_failure(const hcomm_comm_t *comm);
/* Why a wildcard receive cannot go on waiting by itself: it sits in a
 * posted queue of comm's point-to-point context (not matched yet) while a
 * member failed without acknowledgement (ULFM's "failure pending": the
 * dead one may have been its sender).  HC_OK when req is not so stalled.
 * Parts of joined requests (MPI_Isendrecv) never stall: progress fails
 * them, as their request has no pending state of its own. */
hc_status_t hc_ft_recv_stalled(const hcomm_request_t *req);
/* Why a blocking probe of comm for source_world (a world rank or
 * HCOMM_ANY_SOURCE) that found nothing cannot wait: comm revoked, the
 * source failed, or for ANY_SOURCE a member's unacknowledged failure.
 * HC_OK when it may wait. */
hc_status_t hc_ft_probe_failure(const hcomm_comm_t *comm, int source_world);
/* An HC_PKT_FT packet from world rank src (proto.c's dispatch). */
void hc_ft_on_packet(int src, const hc_pkt_hdr_t *hdr, const void *payload);
/* Steps the agreements in flight; returns how many moved. */
int hc_ft_progress_locked(void);
/* comm is destroyed: its revocation, acknowledgements and the votes kept
 * for it go (comm.c). */
void hc_ft_comm_gone(const hcomm_comm_t *comm);
/* Frees what is kept (engine finalize). */
void hc_ft_fini(void);

#endif /* HC_FT_H */
