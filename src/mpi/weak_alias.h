/*
 * MPI_X as a weak alias of PMPI_X, the binding MPICH's libmpi.so.12
 * exports (tests/relink/libs.sh compares them).  GCC's link-time
 * optimisation (12) makes the symbols of `#pragma weak` and of weak alias
 * attributes strong; a plain alias, which the LTO symbol table and so the
 * archive index know, turned weak by the assembler keeps both.  The
 * library is linked with -flto-partition=one, so the .weak line is
 * assembled in the same file as the alias it changes.
 */
#ifndef HC_MPI_WEAK_ALIAS_H
#define HC_MPI_WEAK_ALIAS_H

#if defined(__clang__)
/* clang's assembler refuses to rebind a defined alias, and its builds here
 * (the fuzz targets) use no LTO: the attribute says it all. */
#define HC_WEAK_ALIAS(name, target)                                           \
  extern __typeof(target) name __attribute__((weak, alias(#target)))
#else
#define HC_WEAK_ALIAS(name, target)                                           \
  extern __typeof(target) name __attribute__((alias(#target)));               \
  __asm__(".weak " #name)
#endif

#endif /* HC_MPI_WEAK_ALIAS_H */
