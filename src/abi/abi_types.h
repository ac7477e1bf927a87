/*
 * The MPICH-ABI side of the standard-ABI translation, spelled without
 * include/mpi.h (this layer is compiled against mpi_abi.h, whose names
 * clash with it): handles are ints, a file is a pointer, and the status
 * is MPICH's five ints.
 */
#ifndef HC_ABI_TYPES_H
#define HC_ABI_TYPES_H

typedef struct hc_mpich_status {
  int count_lo;
  int count_hi_and_cancelled;
  int source;
  int tag;
  int error;
} hc_mpich_status_t;

typedef void *hc_mpich_file;

/* Any callback, as libhcmpi's prototypes take it (cast at the call). */
typedef void (*hc_abi_any_fn)(void);

#endif /* HC_ABI_TYPES_H */
