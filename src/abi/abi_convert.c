/*
 * The standard-ABI layer's conversions that are not on the hot path:
 * builtin handles back to the ABI, the integer families, error codes,
 * statuses, scratch arrays.  The hot ones are inline in abi_impl.h.
 */
#include "abi/abi_impl.h"
#include "mpi/spawn_codes.h"

#include <stdlib.h>
#include <string.h>

int hc_abi_to_mpich[HC_ABI_PREDEF_MAX];

/* Per kind, the builtin and null handles sorted by MPICH value, for the
 * way back.  Filled once by hc_abi_tables_init. */
static struct hc_abi_handle_pair abi_back[HC_ABI_NKINDS][128];
static int abi_back_n[HC_ABI_NKINDS];

static int abi_pair_cmp(const void *a, const void *b) {
  const struct hc_abi_handle_pair *x = a, *y = b;
  return (x->mpich > y->mpich) - (x->mpich < y->mpich);
}

static int abi_back_has(int kind, int mpich) {
  for (int i = 0; i < abi_back_n[kind]; i++)
    if (abi_back[kind][i].mpich == mpich)
      return 1;
  return 0;
}

void hc_abi_tables_init(void) {
  /* A small value that names no predefined handle reads as invalid. */
  for (int i = 0; i < HC_ABI_PREDEF_MAX; i++)
    hc_abi_to_mpich[i] = HC_ABI_NO_VALUE;
  for (int i = 0; i < hc_abi_handle_npairs; i++) {
    const struct hc_abi_handle_pair *p = &hc_abi_handle_pairs[i];
    hc_abi_to_mpich[p->abi] = p->mpich;
    /* Nulls come first in the table, so a name libhcmpi maps to a null
     * (a type it lacks) never hides the null on the way back. */
    if (p->mpich == HC_ABI_NO_VALUE || abi_back_has(p->kind, p->mpich))
      continue;
    abi_back[p->kind][abi_back_n[p->kind]++] = *p;
  }
  for (int k = 0; k < HC_ABI_NKINDS; k++)
    qsort(abi_back[k], (size_t)abi_back_n[k], sizeof abi_back[k][0],
          abi_pair_cmp);
}

uintptr_t hc_abi_handle_out_slow(int kind, int h) {
  const struct hc_abi_handle_pair key = {.mpich = h};
  const struct hc_abi_handle_pair *p = bsearch(
      &key, abi_back[kind], (size_t)abi_back_n[kind], sizeof key, abi_pair_cmp);
  return p ? p->abi : (uintptr_t)(uint32_t)h;
}

/* ---- integer families ---- */
int hc_abi_pair_in(const struct hc_abi_pair *p, int n, int v) {
  for (int i = 0; i < n; i++)
    if (p[i].abi == v)
      return p[i].mpich;
  return v == MPI_UNDEFINED ? v : HC_ABI_NO_VALUE;
}

int hc_abi_pair_out(const struct hc_abi_pair *p, int n, int v) {
  for (int i = 0; i < n; i++)
    if (p[i].mpich == v)
      return p[i].abi;
  return v;
}

/* Mode bits: each ABI bit to MPICH's bit of the same name; a bit the
 * standard does not define becomes one no MPICH mode has. */
int hc_abi_bits_in(const struct hc_abi_pair *p, int n, int v) {
  int out = 0, known = 0;
  for (int i = 0; i < n; i++) {
    known |= p[i].abi;
    if (v & p[i].abi)
      out |= p[i].mpich;
  }
  return v & ~known ? out | (1 << 30) : out;
}

int hc_abi_bits_out(const struct hc_abi_pair *p, int n, int v) {
  int out = 0;
  for (int i = 0; i < n; i++)
    if (v & p[i].mpich)
      out |= p[i].abi;
  return out;
}

int hc_abi_keyval_in(int k) {
  return k >= 0 && k < 1000
             ? hc_abi_pair_in(hc_abi_keyval_pairs, hc_abi_keyval_npairs, k)
             : k;
}

int hc_abi_keyval_out(int k) {
  return k == HC_MPICH_KEYVAL_INVALID ? MPI_KEYVAL_INVALID : k;
}

/* ---- ranks ---- */
const int hc_abi_rank_neg[5] = {
    [0] = 0,
    [-MPI_ANY_SOURCE] = HC_MPICH_ANY_SOURCE,
    [2] = HC_ABI_NO_VALUE,
    [-MPI_PROC_NULL] = HC_MPICH_PROC_NULL,
    [-MPI_ROOT] = HC_MPICH_ROOT,
};

int hc_abi_rank_out_slow(int r) {
  switch (r) {
  case HC_MPICH_ANY_SOURCE:
    return MPI_ANY_SOURCE;
  case HC_MPICH_PROC_NULL:
    return MPI_PROC_NULL;
  case HC_MPICH_ROOT:
    return MPI_ROOT;
  default:
    return r;
  }
}

/* ---- error codes ----
 * The predefined classes convert by name.  A class libhcmpi has and the
 * standard does not (MPIX ones) moves above MPI_ERR_LASTCODE by a fixed
 * offset, so it stays distinct and converts back; codes libhcmpi creates
 * (MPI_Add_error_class/code) are far above both and pass unchanged. */
#define ABI_ERR_MPICH_OFFSET (MPI_ERR_LASTCODE + 1)
#define ABI_ERR_MPICH_MAX 256

int hc_abi_err_out_slow(int code) {
  for (int i = 0; i < hc_abi_err_npairs; i++)
    if (hc_abi_err_pairs[i].mpich == code)
      return hc_abi_err_pairs[i].abi;
  if (code > 0 && code < ABI_ERR_MPICH_MAX)
    return code + ABI_ERR_MPICH_OFFSET;
  return code;
}

int hc_abi_err_in_slow(int code) {
  for (int i = 0; i < hc_abi_err_npairs; i++)
    if (hc_abi_err_pairs[i].abi == code)
      return hc_abi_err_pairs[i].mpich;
  if (code > ABI_ERR_MPICH_OFFSET &&
      code < ABI_ERR_MPICH_OFFSET + ABI_ERR_MPICH_MAX)
    return code - ABI_ERR_MPICH_OFFSET;
  return code;
}

/* A spawn's array_of_errcodes: libhcmpi wrote its codes into the caller's
 * array, as many as the root's process count, which only libhcmpi knows
 * at the other ranks (src/mpi/spawn_codes.h). */
void hc_abi_errcodes_out(int *codes) {
  if (codes == MPI_ERRCODES_IGNORE)
    return;
  int n = hc_mpi_spawn_codes_written();
  for (int i = 0; i < n; i++)
    codes[i] = hc_abi_err_out(codes[i]);
}

/* ---- statuses ----
 * MPICH keeps the count in its first two ints; the ABI status keeps them
 * in MPI_internal[0..1]. */
hc_mpich_status_t *hc_abi_status_in(const MPI_Status *s, hc_mpich_status_t *m) {
  if (s == MPI_STATUS_IGNORE)
    return HC_MPICH_STATUS_IGNORE;
  m->count_lo = s->MPI_internal[0];
  m->count_hi_and_cancelled = s->MPI_internal[1];
  m->source = hc_abi_rank_in(s->MPI_SOURCE);
  m->tag = s->MPI_TAG < 0 ? hc_abi_tag_in(s->MPI_TAG) : s->MPI_TAG;
  m->error = hc_abi_err_in(s->MPI_ERROR);
  return m;
}

hc_mpich_status_t *hc_abi_status_slot(MPI_Status *s, hc_mpich_status_t *m) {
  return s == MPI_STATUS_IGNORE ? HC_MPICH_STATUS_IGNORE : m;
}

void hc_abi_status_out(MPI_Status *s, const hc_mpich_status_t *m) {
  if (s == MPI_STATUS_IGNORE || m == HC_MPICH_STATUS_IGNORE)
    return;
  s->MPI_SOURCE = hc_abi_rank_out(m->source);
  s->MPI_TAG = hc_abi_tag_out(m->tag);
  s->MPI_ERROR = hc_abi_err_out(m->error);
  s->MPI_internal[0] = m->count_lo;
  s->MPI_internal[1] = m->count_hi_and_cancelled;
  s->MPI_internal[2] = s->MPI_internal[3] = s->MPI_internal[4] = 0;
}

void *hc_abi_scratch(void *stack, int n, size_t elem) {
  if (n <= HC_ABI_STACK)
    return stack;
  return malloc((size_t)n * elem);
}

void hc_abi_scratch_free(void *stack, void *p) {
  if (p != stack)
    free(p);
}

/* Arrays of statuses are outputs: zeroed scratch, converted back after
 * the call (entries it left alone read as an empty status). */
hc_mpich_status_t *hc_abi_statuses_in(const MPI_Status *s,
                                      hc_mpich_status_t *stack, int n) {
  if (s == MPI_STATUSES_IGNORE)
    return NULL;
  hc_mpich_status_t *m = hc_abi_scratch(stack, n, sizeof *m);
  if (m && n > 0)
    memset(m, 0, (size_t)n * sizeof *m);
  return m;
}

void hc_abi_statuses_out(MPI_Status *s, const hc_mpich_status_t *m, int n) {
  if (s == MPI_STATUSES_IGNORE || !m)
    return;
  for (int i = 0; i < n; i++)
    hc_abi_status_out(&s[i], &m[i]);
}

/* ---- lengths of the alltoallw type arrays ---- */
int hc_abi_peers(MPI_Comm comm) {
  int c = hc_abi_comm_in(comm), inter = 0, n = 0;
  if (hc_mpich.Comm_test_inter(c, &inter) != 0)
    return 0;
  if (inter ? hc_mpich.Comm_remote_size(c, &n) : hc_mpich.Comm_size(c, &n))
    return 0;
  return n;
}

int hc_abi_neighbors(MPI_Comm comm, int out) {
  int c = hc_abi_comm_in(comm), topo = 0, n = 0, rank = 0;
  if (hc_mpich.Topo_test(c, &topo) != 0)
    return 0;
  switch (hc_abi_topo_out(topo)) {
  case MPI_CART:
    return hc_mpich.Cartdim_get(c, &n) == 0 ? 2 * n : 0;
  case MPI_GRAPH:
    if (hc_mpich.Comm_rank(c, &rank) != 0)
      return 0;
    return hc_mpich.Graph_neighbors_count(c, rank, &n) == 0 ? n : 0;
  case MPI_DIST_GRAPH: {
    int indeg = 0, outdeg = 0, weighted = 0;
    if (hc_mpich.Dist_graph_neighbors_count(c, &indeg, &outdeg, &weighted))
      return 0;
    return out ? outdeg : indeg;
  }
  default:
    return 0;
  }
}
