/*
 * MPI_Alloc_mem / MPI_Free_mem.  No transport here needs registered or
 * specially placed memory (shared memory moves data by copy or CMA, verbs
 * registers user buffers on demand), so the memory is ordinary heap
 * memory, aligned for any data and a cache line; info hints are accepted
 * and not used.
 */
#include <stdlib.h>

#include "mpi/mpi_impl.h"

#define ALLOCMEM_ALIGN 64

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) {
  static const char fn[] = "MPI_Alloc_mem";
  int rc = hc_mpi_check_ptr(fn, NULL, baseptr, "baseptr");
  if (rc != MPI_SUCCESS)
    return rc;
  if (size < 0)
    return hc_mpi_raise(NULL, fn, MPI_ERR_SIZE, "negative size %ld",
                        (long)size);
  if (info != MPI_INFO_NULL && !hc_mpi_info_get(info))
    return hc_mpi_raise(NULL, fn, MPI_ERR_INFO, "invalid info 0x%x",
                        (unsigned)info);
  void *p = NULL;
  /* Size 0 still gives a distinct pointer that MPI_Free_mem accepts. */
  if (posix_memalign(&p, ALLOCMEM_ALIGN, size > 0 ? (size_t)size : 1) != 0)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "cannot allocate %ld bytes",
                        (long)size);
  *(void **)baseptr = p;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Alloc_mem, PMPI_Alloc_mem);

int PMPI_Free_mem(void *base) {
  free(base);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Free_mem, PMPI_Free_mem);
