/*
 * The standard-ABI layer (libmpi_abi.so): converts between the MPI-5.0
 * ABI of include/mpi_abi.h and the MPICH ABI of libhcmpi at the edge, and
 * calls libhcmpi's PMPI_ functions through hc_mpich (abi_init.c).
 *
 * Handles.  A predefined ABI handle is a constant below HC_ABI_PREDEF_MAX;
 * one table indexed by that value gives its MPICH int.  Any other ABI
 * handle carries libhcmpi's int in its pointer bits, so user objects need
 * no table and no allocation.  Back from MPICH, a run-time handle (kind
 * bits 2 or 3, bit 31 set) is the pointer; the kind's null is one compare
 * (abi_conv.h; two kinds share 0x2c000000: request and message null), and
 * where the null is the kind's only predefined handle (requests, windows,
 * sessions) every other value is the pointer too, such as the completed
 * request an eager MPI_Isend returns; other builtin handles are looked up
 * per kind.  Files are pointers on both sides and differ only in the null.
 *
 * The conversions on every call (handles in, ranks, tags, the error code)
 * are static inline here: they are a compare and a load, and a call
 * would cost more than the work.  Nothing on a wrapper's hot path calls
 * out of line, so that it saves no registers: a call with an output
 * status has the status path in a function of its own (buildabi.py), and
 * MPI_STATUS_IGNORE, the usual case, passes MPICH's ignore straight on.
 */
#ifndef HC_ABI_IMPL_H
#define HC_ABI_IMPL_H

#include "abi/abi_mpich.h"
#include "abi/abi_types.h"
#include "mpi/weak_alias.h"
#include "mpi_abi.h"

#include <stddef.h>
#include <stdint.h>

#define HC_ABI_PREDEF_MAX 0x400
/* Arrays of up to this many handles or statuses convert on the stack. */
#define HC_ABI_STACK 16
/* An MPICH value that is no valid argument of any kind. */
#define HC_ABI_NO_VALUE (-0x7eadbeef)
/* MPICH's values the layer needs by name. */
#define HC_MPICH_STATUS_IGNORE ((hc_mpich_status_t *)1)
#define HC_MPICH_STATUSES_IGNORE ((hc_mpich_status_t *)1)
#define HC_MPICH_IN_PLACE ((void *)-1)
#define HC_MPICH_BUFFER_AUTOMATIC ((void *)-2)
#define HC_MPICH_PROC_NULL (-1)
#define HC_MPICH_ANY_SOURCE (-2)
#define HC_MPICH_ROOT (-3)
#define HC_MPICH_ANY_TAG (-1)
#define HC_MPICH_KEYVAL_INVALID 0x24000000

enum hc_abi_kind {
  HC_ABI_KIND_COMM,
  HC_ABI_KIND_DATATYPE,
  HC_ABI_KIND_GROUP,
  HC_ABI_KIND_INFO,
  HC_ABI_KIND_OP,
  HC_ABI_KIND_ERRHANDLER,
  HC_ABI_KIND_REQUEST,
  HC_ABI_KIND_WIN,
  HC_ABI_KIND_SESSION,
  HC_ABI_KIND_MESSAGE,
  HC_ABI_NKINDS
};

struct hc_abi_handle_pair {
  uintptr_t abi;
  int mpich;
  int kind;
};
struct hc_abi_pair {
  int abi;
  int mpich;
};

/* abi_values.c (generated): the standard's values against MPICH's;
 * abi_conv.h (generated) declares the families. */
extern const struct hc_abi_handle_pair hc_abi_handle_pairs[];
extern const int hc_abi_handle_npairs;

/* abi_convert.c */
extern int hc_abi_to_mpich[HC_ABI_PREDEF_MAX];
void hc_abi_tables_init(void);
uintptr_t hc_abi_handle_out_slow(int kind, int h);
int hc_abi_err_in_slow(int code);
int hc_abi_err_out_slow(int code);
/* Converts the codes a spawn wrote into codes (unless MPI_ERRCODES_IGNORE). */
void hc_abi_errcodes_out(int *codes);
int hc_abi_rank_out_slow(int rank);
int hc_abi_pair_in(const struct hc_abi_pair *p, int n, int v);
int hc_abi_pair_out(const struct hc_abi_pair *p, int n, int v);
int hc_abi_bits_in(const struct hc_abi_pair *p, int n, int v);
int hc_abi_bits_out(const struct hc_abi_pair *p, int n, int v);
/* Keyvals: the predefined attribute keys are constants; a keyval the
 * library created is its MPICH int (negative), passed as it is. */
int hc_abi_keyval_in(int k);
int hc_abi_keyval_out(int k);
void *hc_abi_scratch(void *stack, int n, size_t elem);
void hc_abi_scratch_free(void *stack, void *p);
hc_mpich_status_t *hc_abi_status_in(const MPI_Status *s, hc_mpich_status_t *m);
void hc_abi_status_out(MPI_Status *s, const hc_mpich_status_t *m);
/* The MPICH status an output status is written to: m, or MPICH's ignore. */
hc_mpich_status_t *hc_abi_status_slot(MPI_Status *s, hc_mpich_status_t *m);
hc_mpich_status_t *hc_abi_statuses_in(const MPI_Status *s,
                                      hc_mpich_status_t *stack, int n);
void hc_abi_statuses_out(MPI_Status *s, const hc_mpich_status_t *m, int n);
int hc_abi_peers(MPI_Comm comm);
int hc_abi_neighbors(MPI_Comm comm, int out);
int *hc_abi_weights_in(int *w);
const int *hc_abi_cweights_in(const int *w);
void *hc_abi_pvar_handle_in(MPI_T_pvar_handle h);

/* ---- handles ---- */
static inline int hc_abi_handle_in(uintptr_t v) {
  return v < HC_ABI_PREDEF_MAX ? hc_abi_to_mpich[v] : (int)(uint32_t)v;
}
static inline uintptr_t hc_abi_handle_out(int kind, int h) {
  return (uint32_t)h >> 31 ? (uintptr_t)(uint32_t)h
                           : hc_abi_handle_out_slow(kind, h);
}

static inline hc_mpich_file hc_abi_file_in(MPI_File f) {
  return f == MPI_FILE_NULL ? NULL : (hc_mpich_file)f;
}
static inline MPI_File hc_abi_file_out(hc_mpich_file f) {
  return f ? (MPI_File)f : MPI_FILE_NULL;
}

/* ---- buffers, ranks, tags, error codes ---- */
static inline void *hc_abi_buf_in(void *b) {
  return b == MPI_IN_PLACE ? HC_MPICH_IN_PLACE : b;
}
static inline const void *hc_abi_cbuf_in(const void *b) {
  return b == MPI_IN_PLACE ? HC_MPICH_IN_PLACE : b;
}
/* MPI_BUFFER_AUTOMATIC, given to a buffered-send attach and read back by
 * its detach (a void ** in a void *). */
static inline void *hc_abi_bsend_buf_in(void *b) {
  return b == MPI_BUFFER_AUTOMATIC ? HC_MPICH_BUFFER_AUTOMATIC : b;
}
static inline void hc_abi_bsend_addr_out(void *buffer_addr) {
  void **addr = buffer_addr;
  if (addr && *addr == HC_MPICH_BUFFER_AUTOMATIC)
    *addr = MPI_BUFFER_AUTOMATIC;
}
/* MPICH's value of ABI rank -i for i in 0..4 (MPI_ANY_SOURCE -1,
 * MPI_PROC_NULL -3, MPI_ROOT -4; -2 is no rank).  A table, not a call,
 * so that a send to MPI_PROC_NULL costs what any send does. */
extern const int hc_abi_rank_neg[5];
static inline int hc_abi_rank_in(int r) {
  if (r >= 0)
    return r;
  if (r >= -4)
    return hc_abi_rank_neg[-r];
  /* Below -4 only MPI_UNDEFINED means something (a Comm_split color
   * passes through other calls).  Inline, not a call: a call on this cold
   * path would make every wrapper save registers on the hot one. */
  return r == MPI_UNDEFINED ? r : HC_ABI_NO_VALUE;
}
static inline int hc_abi_rank_out(int r) {
  return r >= 0 ? r : hc_abi_rank_out_slow(r);
}
static inline int hc_abi_tag_in(int t) {
  if (t >= 0)
    return t;
  return t == MPI_ANY_TAG ? HC_MPICH_ANY_TAG : HC_ABI_NO_VALUE;
}
static inline int hc_abi_tag_out(int t) {
  return t == HC_MPICH_ANY_TAG ? MPI_ANY_TAG : t;
}
static inline int hc_abi_err_out(int rc) {
  return rc == 0 ? 0 : hc_abi_err_out_slow(rc);
}
static inline int hc_abi_err_in(int code) {
  return code == 0 ? 0 : hc_abi_err_in_slow(code);
}

#include "abi/abi_conv.h"

#endif /* HC_ABI_IMPL_H */
