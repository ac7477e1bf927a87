/*
 * Which device buffers the library takes, as the device layer found them
 * at run time (through the engine): MPICH's MPIX_Query_cuda_support and
 * MPIX_GPU_query_support (and _ze_, _hip_support, which have no backend),
 * and hcmpi's MPIX_Query_ascend_support.  A
 * runtime that is missing reads as no support, never as an error.
 */
#include "mpi/mpi_impl.h"

int PMPIX_Query_cuda_support(void) {
  return hcomm_mem_kind_available(HCOMM_MEM_CUDA);
}
HC_WEAK_ALIAS(MPIX_Query_cuda_support, PMPIX_Query_cuda_support);

int PMPIX_Query_ascend_support(void) {
  return hcomm_mem_kind_available(HCOMM_MEM_ACL);
}
HC_WEAK_ALIAS(MPIX_Query_ascend_support, PMPIX_Query_ascend_support);

/* No Level Zero or HIP backend exists: such buffers are never taken. */
int PMPIX_Query_ze_support(void) { return 0; }
HC_WEAK_ALIAS(MPIX_Query_ze_support, PMPIX_Query_ze_support);

int PMPIX_Query_hip_support(void) { return 0; }
HC_WEAK_ALIAS(MPIX_Query_hip_support, PMPIX_Query_hip_support);

int PMPIX_GPU_query_support(int gpu_type, int *is_supported) {
  static const char fn[] = "MPIX_GPU_query_support";
  int rc = hc_mpi_check_ptr(fn, NULL, is_supported, "is_supported");
  if (rc != MPI_SUCCESS)
    return rc;
  switch (gpu_type) {
  case MPIX_GPU_SUPPORT_CUDA:
    *is_supported = hcomm_mem_kind_available(HCOMM_MEM_CUDA);
    return MPI_SUCCESS;
  case MPIX_GPU_SUPPORT_ZE: /* no Level Zero or HIP backend exists */
  case MPIX_GPU_SUPPORT_HIP:
    *is_supported = 0;
    return MPI_SUCCESS;
  default:
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "unknown GPU type %d", gpu_type);
  }
}
HC_WEAK_ALIAS(MPIX_GPU_query_support, PMPIX_GPU_query_support);
