/*
 * Binding libmpi_abi to libhcmpi.  libmpi_abi exports the standard ABI's
 * MPI_x and PMPI_x, so it cannot name libhcmpi's functions of the same
 * names at link time (its own would answer).  When it loads, it looks
 * every libhcmpi PMPI_x up once in that library (a DT_NEEDED of
 * libmpi_abi, so already loaded) and calls through hc_mpich: one indirect
 * call, as a PLT call is.  libhcmpi is linked -Bsymbolic-functions, so
 * its own calls never land in libmpi_abi's functions either.
 */
#include "abi/abi_impl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ABI_MPICH_LIBRARY "libhcmpi.so.0"

struct hc_mpich_calls hc_mpich;

/* libhcmpi's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY, addresses of objects
 * there (mpi_abi.h's names are constants).  Linking to them by name also
 * keeps libhcmpi a DT_NEEDED of libmpi_abi under --as-needed. */
extern int *const hc_mpich_unweighted __asm__("MPI_UNWEIGHTED");
extern int *const hc_mpich_weights_empty __asm__("MPI_WEIGHTS_EMPTY");
/* libhcmpi's MPI_T_PVAR_ALL_HANDLES, too, is an object's address. */
extern void *const hc_mpich_pvar_all_handles __asm__("MPI_T_PVAR_ALL_HANDLES");

static void abi_fail(const char *what, const char *name) {
  fprintf(stderr, "libmpi_abi: %s %s: %s\n", what, name, dlerror());
  abort();
}

__attribute__((constructor)) static void abi_bind(void) {
  void *lib = dlopen(ABI_MPICH_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
  if (!lib)
    abi_fail("not loaded:", ABI_MPICH_LIBRARY);
  size_t n = sizeof hc_mpich_call_names / sizeof hc_mpich_call_names[0];
  _Static_assert(sizeof(struct hc_mpich_calls) == sizeof hc_mpich_call_names /
                                                      sizeof(char *) *
                                                      sizeof(void (*)(void)),
                 "one function pointer per name");
  char *slots = (char *)&hc_mpich;
  for (size_t i = 0; i < n; i++) {
    void *fn = dlsym(lib, hc_mpich_call_names[i]);
    if (!fn)
      abi_fail("cannot find", hc_mpich_call_names[i]);
    memcpy(slots + i * sizeof(void (*)(void)), &fn, sizeof fn);
  }
  dlclose(lib); /* the DT_NEEDED reference keeps it loaded */
  hc_abi_tables_init();
}

int *hc_abi_weights_in(int *w) {
  if (w == MPI_UNWEIGHTED)
    return hc_mpich_unweighted;
  return w == MPI_WEIGHTS_EMPTY ? hc_mpich_weights_empty : w;
}

const int *hc_abi_cweights_in(const int *w) {
  if (w == MPI_UNWEIGHTED)
    return hc_mpich_unweighted;
  return w == MPI_WEIGHTS_EMPTY ? hc_mpich_weights_empty : w;
}

void *hc_abi_pvar_handle_in(MPI_T_pvar_handle h) {
  return h == MPI_T_PVAR_ALL_HANDLES ? hc_mpich_pvar_all_handles : (void *)h;
}
