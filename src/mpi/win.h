/*
 * Windows of the MPI face (win.c: creation, shared mappings, names, info,
 * error handlers; win_ops.c: the operations; win_sync.c: epochs).  The
 * engine's hcomm_win_t does the one-sided work; this object adds what MPI
 * hangs on a window.
 */
#ifndef HC_MPI_WIN_H
#define HC_MPI_WIN_H

#include <mpi.h>

#include "mpi/mpi_impl.h"

typedef struct hc_mpi_win {
  int handle; /* MPI_Win value */
  hcomm_win_t *engine;
  /* The window's private communicator object: its engine communicator
   * carries all the window's traffic and its handler is the window's.
   * It has no MPI_Comm handle: its handle field holds the window's, which
   * is what a user handler of the window is called with. */
  hc_mpi_comm_t *errcomm;
  int nranks; /* members (the size of errcomm's engine communicator) */
  void *base;
  MPI_Aint size;
  int disp_unit;
  int flavor;      /* MPI_WIN_FLAVOR_* */
  int model;       /* MPI_WIN_UNIFIED */
  void *allocated; /* MPI_Win_allocate's memory, freed with the window */
  /* MPI_Win_allocate(_shared) of device memory (mpi_memory_alloc_kinds):
   * its hcomm_mem_kind (HCOMM_MEM_HOST otherwise) and the allocation,
   * freed through the engine with the window. */
  int mem_kind;
  void *device_mem;
  /* MPI_Win_allocate_shared, and MPI_Win_allocate on one node: the node's
   * mapping, every member's piece, and the engine's lock words at lock_off
   * (hcomm_win_share) */
  char *map;
  size_t map_len, lock_off;
  MPI_Aint *shm_off, *shm_size;
  int *shm_disp;
  MPI_Info info; /* the hints given (a duplicate), or MPI_INFO_NULL */
  /* Every accumulate kind goes as NIC atomics (hcomm_win_nic_atomics):
   * one outside the contract is MPI_ERR_OP (win_ops.c). */
  int nic_atomics;
  char name[MPI_MAX_OBJECT_NAME];
  hc_mpi_attr_t *attrs; /* attr.c, under its lock */
} hc_mpi_win_t;

/* Entry check of every call on a window: MPI initialised, win valid (else
 * MPI_ERR_WIN raised on MPI_COMM_WORLD's handler). */
int hc_mpi_win_enter(const char *fn, MPI_Win win, hc_mpi_win_t **out);
/* The window win names, or NULL, raising nothing (MPI must be ready):
 * for a fast path that leaves every error to a later hc_mpi_win_enter. */
hc_mpi_win_t *hc_mpi_win_lookup(MPI_Win win);
/* The communicator whose error handler is the window's (MPI_Win_set_
 * errhandler sets it); NULL when win names no window. */
hc_mpi_comm_t *hc_mpi_win_errcomm(MPI_Win win);
/* The value of a predefined window attribute (MPI_WIN_BASE ...) of the
 * window with handle win: 1 and *value set (what MPI_Win_get_attr stores),
 * or 0 when keyval is not one. */
int hc_mpi_win_predefined_attr(int win, int keyval, void **value);
/* 1 for MPI_WIN_BASE, _SIZE, _DISP_UNIT, _CREATE_FLAVOR, _MODEL. */
int hc_mpi_win_is_predefined_key(int keyval);
/* Runs every delete callback of the window's attributes (MPI_Win_free). */
int hc_mpi_win_attr_delete_all(const char *fn, hc_mpi_win_t *win);

/* The engine's combine callback: MPI op and predefined type handles. */
hc_status_t hc_mpi_win_combine(int op, int type, const void *in, void *inout,
                               size_t bytes);

#endif /* HC_MPI_WIN_H */
