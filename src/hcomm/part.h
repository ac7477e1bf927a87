/*
 * Partitioned point-to-point inside the engine (part.c): what request.c
 * and progress.c call.
 */
#ifndef HC_PART_H
#define HC_PART_H

#include "hcomm.h"

typedef struct hc_part hc_part_t;

/* hcomm_start of a partitioned request (takes the lock). */
hc_status_t hc_part_start(hcomm_request_t *req);

/* Receivers started before their sender's announcement arrived; progress
 * calls hc_part_progress_locked while any wait. */
extern int hc_part_nwaiting;
int hc_part_progress_locked(void);
/* Frees a channel with its request (hc_request_release, lock held). */
void hc_part_free(hc_part_t *part);

#endif /* HC_PART_H */
