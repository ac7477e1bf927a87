/*
 * MPI_Alloc_mem / MPI_Free_mem.  The memory is ordinary heap memory,
 * aligned for any data and a cache line.  When a transport registers host
 * memory (verbs), the allocation is registered at once
 * (hcomm_mem_register), so that rendezvous transfers and windows over it
 * skip on-demand registration, and MPI_Free_mem deregisters it before
 * freeing.  Only registered allocations are remembered (a short list:
 * programs hold few); info hints are accepted and not used.
 */
#include <pthread.h>
#include <stdlib.h>

#include "mpi/mpi_impl.h"

#define ALLOCMEM_ALIGN 64

typedef struct allocmem_reg {
  void *base;
  hcomm_memreg_t *reg;
  struct allocmem_reg *next;
} allocmem_reg_t;

static pthread_mutex_t allocmem_lock = PTHREAD_MUTEX_INITIALIZER;
static allocmem_reg_t *allocmem_regs;

/* Registers p's size bytes where a transport wants it; a failure only
 * costs the on-demand registration later. */
static void allocmem_register(void *p, size_t size) {
  hcomm_memreg_t *reg = NULL;
  if (size == 0 || hcomm_mem_register(p, size, &reg) != HC_OK || reg == NULL)
    return;
  allocmem_reg_t *r = malloc(sizeof *r);
  if (r == NULL) {
    hcomm_mem_deregister(reg);
    return;
  }
  r->base = p;
  r->reg = reg;
  pthread_mutex_lock(&allocmem_lock);
  r->next = allocmem_regs;
  allocmem_regs = r;
  pthread_mutex_unlock(&allocmem_lock);
}

/* Deregisters base if it was registered. */
static void allocmem_deregister(void *base) {
  allocmem_reg_t *found = NULL;
  pthread_mutex_lock(&allocmem_lock);
  for (allocmem_reg_t **link = &allocmem_regs; *link != NULL;
       link = &(*link)->next)
    if ((*link)->base == base) {
      found = *link;
      *link = found->next;
      break;
    }
  pthread_mutex_unlock(&allocmem_lock);
  if (found == NULL)
    return;
  hcomm_mem_deregister(found->reg);
  free(found);
}

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
  allocmem_register(p, (size_t)size);
  *(void **)baseptr = p;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Alloc_mem, PMPI_Alloc_mem);

int PMPI_Free_mem(void *base) {
  if (base != NULL)
    allocmem_deregister(base);
  free(base);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Free_mem, PMPI_Free_mem);
