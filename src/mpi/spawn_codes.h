/*
 * How many error codes the calling thread's last MPI_Comm_spawn or
 * MPI_Comm_spawn_multiple wrote into its array_of_errcodes (0 when it
 * wrote none: MPI_ERRCODES_IGNORE, or a call that failed before the spawn).
 * The count is the root's number of processes, which the other ranks learn
 * only inside the call; exported from libhcmpi for libmpi_abi, which
 * converts that many codes to the standard ABI's values after the call.
 */
#ifndef HC_MPI_SPAWN_CODES_H
#define HC_MPI_SPAWN_CODES_H

int hc_mpi_spawn_codes_written(void);

#endif /* HC_MPI_SPAWN_CODES_H */
