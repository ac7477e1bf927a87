/*
 * The name service of MPI_Publish_name/Lookup_name: service names that
 * map to port names, visible to every job that uses the same directory
 * (HCMPI_NAME_DIR; by default one per user under the temporary directory).
 * No launcher hcmpi runs under shares names between separately started
 * jobs, so a directory all of them see is the service (docs/dynamic.md).
 */
#ifndef HC_BOOTSTRAP_NAMES_H
#define HC_BOOTSTRAP_NAMES_H

#include <stddef.h>

#include "hcomm_status.h"

/* Publishes service -> port.  HC_ERR_SERVICE when service is published
 * already; HC_ERR_SYSTEM when the directory cannot be used. */
hc_status_t hc_names_publish(const char *service, const char *port);
/* Removes service, published with port.  HC_ERR_SERVICE when it is not
 * published, or with another port. */
hc_status_t hc_names_unpublish(const char *service, const char *port);
/* The port of service into port (len bytes).  HC_ERR_NAME when service is
 * not published. */
hc_status_t hc_names_lookup(const char *service, char *port, size_t len);

#endif /* HC_BOOTSTRAP_NAMES_H */
