/*
 * gfortran's descriptor of an array (GCC 8 and later): how MPICH's mpi_f08
 * passes a TYPE(*), DIMENSION(..) choice buffer to mpi_x_f08ts_ (the
 * generated fort_bind.c takes it).  Strides count elements of span bytes.
 */
#ifndef HC_FORT_GFC_H
#define HC_FORT_GFC_H

#include <stddef.h>

typedef struct hc_f_gfc_dim {
  ptrdiff_t stride;
  ptrdiff_t lower_bound;
  ptrdiff_t upper_bound;
} hc_f_gfc_dim_t;

typedef struct hc_f_gfc_desc {
  void *base_addr;
  size_t offset;
  struct {
    size_t elem_len;
    int version;
    signed char rank;
    signed char type;
    short attribute;
  } dtype;
  ptrdiff_t span;
  hc_f_gfc_dim_t dim[15];
} hc_f_gfc_desc_t;

#endif
