/* <mpi.h> for programs built against the MPI-5.0 standard ABI (hcmpicc
 * -abi puts this folder first on the include path): the standard's header. */
#include "../mpi_abi.h"
