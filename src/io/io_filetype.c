/*
 * The layout of a type in a file whose representation changes the width
 * of some predefined types (external32: MPI_LONG and MPI_UNSIGNED_LONG are
 * 4 bytes there, MPI_WCHAR 2, the pair types lose their padding).
 *
 * MPI-4.0 14.5 says how such a type lies in the file: constructors whose
 * strides and displacements count elements (contiguous, vector, indexed,
 * subarray, darray) are measured with the file extents of their old
 * types, while byte displacements (hvector, hindexed, struct, resized) are
 * taken as they are, with no scaling.  So the layout is the type rebuilt
 * with the same constructor calls over stand-ins: each predefined type
 * whose width changes becomes that many bytes.  Flattening the stand-in
 * gives the file runs, and since the converted stream holds the elements
 * in type-map order at their file widths, the stream maps onto those runs
 * exactly as a native stream maps onto the native type.
 */
#include <stdlib.h>

#include "io/io.h"

/* A predefined type's stand-in: itself when the width stays, else that
 * many bytes (no alignment: the file has no padding). */
static int standin_named(MPI_Datatype type, MPI_Datatype *out) {
  const hc_mpi_type_t *t = hc_mpi_type_get(type);
  MPI_Count bytes = hc_mpi_ext32_size(t, 1);
  if (bytes == t->size) {
    *out = type;
    return MPI_SUCCESS;
  }
  return PMPI_Type_contiguous((int)bytes, MPI_BYTE, out);
}

static void standin_free(MPI_Datatype *t) {
  const hc_mpi_type_t *o = hc_mpi_type_get(*t);
  if (o && !o->predefined)
    PMPI_Type_free(t);
}

static int standin(MPI_Datatype type, MPI_Datatype *out);

/* The same constructor as comb over the stand-ins c[] of its old types. */
static int standin_build(int comb, const int *in, const MPI_Aint *ad,
                         const MPI_Datatype *c, MPI_Datatype *out) {
  int n = in[0];
  switch (comb) {
  case MPI_COMBINER_DUP:
    return PMPI_Type_dup(c[0], out);
  case MPI_COMBINER_CONTIGUOUS:
    return PMPI_Type_contiguous(n, c[0], out);
  case MPI_COMBINER_VECTOR:
    return PMPI_Type_vector(n, in[1], in[2], c[0], out);
  case MPI_COMBINER_HVECTOR:
    return PMPI_Type_create_hvector(n, in[1], ad[0], c[0], out);
  case MPI_COMBINER_INDEXED:
    return PMPI_Type_indexed(n, in + 1, in + 1 + n, c[0], out);
  case MPI_COMBINER_HINDEXED:
    return PMPI_Type_create_hindexed(n, in + 1, ad, c[0], out);
  case MPI_COMBINER_INDEXED_BLOCK:
    return PMPI_Type_create_indexed_block(n, in[1], in + 2, c[0], out);
  case MPI_COMBINER_HINDEXED_BLOCK:
    return PMPI_Type_create_hindexed_block(n, in[1], ad, c[0], out);
  case MPI_COMBINER_STRUCT:
    return PMPI_Type_create_struct(n, in + 1, ad, c, out);
  case MPI_COMBINER_SUBARRAY:
    return PMPI_Type_create_subarray(n, in + 1, in + 1 + n, in + 1 + 2 * n,
                                     in[1 + 3 * n], c[0], out);
  case MPI_COMBINER_DARRAY: {
    int nd = in[2];
    return PMPI_Type_create_darray(n, in[1], nd, in + 3, in + 3 + nd,
                                   in + 3 + 2 * nd, in + 3 + 3 * nd,
                                   in[3 + 4 * nd], c[0], out);
  }
  case MPI_COMBINER_RESIZED:
    return PMPI_Type_create_resized(c[0], ad[0], ad[1], out);
  default:
    return MPI_ERR_UNSUPPORTED_DATAREP;
  }
}

/* The stand-in of a derived type: its contents, each old type's
 * stand-in, the same constructor.  Large-count constructors (MPI-4 _c)
 * are refused. */
static int standin_derived(MPI_Datatype type, MPI_Datatype *out) {
  MPI_Count ni = 0, na = 0, nc = 0, nt = 0;
  int comb = 0;
  int rc = PMPI_Type_get_envelope_c(type, &ni, &na, &nc, &nt, &comb);
  if (rc != MPI_SUCCESS)
    return rc;
  if (nc > 0)
    return MPI_ERR_UNSUPPORTED_DATAREP;
  int *in = malloc(sizeof(int) * (size_t)(ni + 1));
  MPI_Aint *ad = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
  MPI_Datatype *old = calloc((size_t)nt + 1, sizeof(MPI_Datatype));
  MPI_Datatype *c = calloc((size_t)nt + 1, sizeof(MPI_Datatype));
  rc = in && ad && old && c ? MPI_SUCCESS : MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS)
    rc = PMPI_Type_get_contents(type, (int)ni, (int)na, (int)nt, in, ad, old);
  int made = 0;
  for (; rc == MPI_SUCCESS && made < nt; made++)
    rc = standin(old[made], &c[made]);
  if (rc == MPI_SUCCESS)
    rc = standin_build(comb, in, ad, c, out);
  for (int i = 0; i < made; i++)
    standin_free(&c[i]);
  for (MPI_Count i = 0; old && i < nt; i++)
    standin_free(&old[i]);
  free(in);
  free(ad);
  free(old);
  free(c);
  return rc;
}

static int standin(MPI_Datatype type, MPI_Datatype *out) {
  const hc_mpi_type_t *t = hc_mpi_type_get(type);
  if (t->predefined)
    return standin_named(type, out);
  return standin_derived(type, out);
}

int hc_io_file_layout_type(MPI_Datatype type, MPI_Datatype *out) {
  const hc_mpi_type_t *t = hc_mpi_type_get(type);
  if (hc_mpi_ext32_size(t, 1) == t->size) {
    *out = type; /* no width changes: the native layout is the file's */
    return MPI_SUCCESS;
  }
  int rc = standin(type, out);
  if (rc == MPI_SUCCESS)
    rc = PMPI_Type_commit(out);
  return rc;
}

void hc_io_file_layout_free(MPI_Datatype type, MPI_Datatype *layout) {
  if (*layout != type)
    standin_free(layout);
  *layout = MPI_DATATYPE_NULL;
}
