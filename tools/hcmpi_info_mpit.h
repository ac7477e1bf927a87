/* hcmpi_info --mpit (hcmpi_info_mpit.c): prints the MPI_T variables,
 * categories and events; returns the exit status. */
#ifndef HC_TOOLS_HCMPI_INFO_MPIT_H
#define HC_TOOLS_HCMPI_INFO_MPIT_H

int hc_info_mpit(void);

#endif /* HC_TOOLS_HCMPI_INFO_MPIT_H */
