/*
 * MPI_Get_hw_resource_info (MPI-4.1): the hardware this process runs on, as
 * a new info object the caller frees.  Every value is a string read from
 * the operating system at the call, so it tells where the process is now
 * (a rebinding between calls shows).  docs/functions.md lists the keys.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "mpi/mpi_impl.h"

/* Logical CPUs this process may run on now; 0 when the system will not
 * say. */
static long hwinfo_cpus_allowed(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return 0;
  return CPU_COUNT(&set);
}

/* Sets key to the decimal n in info; positive n only (0: unknown, left
 * out). */
static int hwinfo_set_count(MPI_Info info, const char *key, long long n) {
  if (n <= 0)
    return MPI_SUCCESS;
  char text[32];
  snprintf(text, sizeof text, "%lld", n);
  return PMPI_Info_set(info, key, text);
}

int PMPI_Get_hw_resource_info(MPI_Info *hw_info) {
  static const char fn[] = "MPI_Get_hw_resource_info";
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, hw_info, "hw_info");
  if (rc != MPI_SUCCESS)
    return rc;
  MPI_Info info = MPI_INFO_NULL;
  rc = PMPI_Info_create(&info);
  if (rc != MPI_SUCCESS)
    return rc;
  /* The one resource type MPI_COMM_TYPE_HW_GUIDED splits by (comm.c). */
  rc = PMPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
  long page = sysconf(_SC_PAGESIZE), pages = sysconf(_SC_PHYS_PAGES);
  if (rc == MPI_SUCCESS)
    rc = hwinfo_set_count(info, "hcmpi_hw_cpus_online",
                          sysconf(_SC_NPROCESSORS_ONLN));
  if (rc == MPI_SUCCESS)
    rc = hwinfo_set_count(info, "hcmpi_hw_cpus_allowed", hwinfo_cpus_allowed());
  if (rc == MPI_SUCCESS)
    rc = hwinfo_set_count(info, "hcmpi_hw_memory_bytes",
                          page > 0 && pages > 0 ? (long long)page * pages : 0);
  if (rc == MPI_SUCCESS)
    rc = hwinfo_set_count(info, "hcmpi_hw_page_bytes", page);
  char host[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  if (rc == MPI_SUCCESS)
    rc = PMPI_Get_processor_name(host, &len);
  if (rc == MPI_SUCCESS)
    rc = PMPI_Info_set(info, "hcmpi_hw_host", host);
  if (rc != MPI_SUCCESS) {
    PMPI_Info_free(&info);
    return rc;
  }
  *hw_info = info;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Get_hw_resource_info, PMPI_Get_hw_resource_info);
