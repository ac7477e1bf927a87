/*
 * HCMPI_TRACE=dir: a per-rank binary log of MPI calls and engine message
 * events, merged by tools/hcmpi-trace into a Perfetto timeline, a traffic
 * matrix and an HTML report.  Records are fixed-size and appended to a
 * per-rank buffer; the buffer is written to dir/rank-N.trace when full and
 * at MPI_Finalize.  When tracing is off every hook costs one test of
 * hc_trace_on (a plain int, 0): callers write
 *   if (hc_trace_on) hc_trace_call(...);
 * File layout (little-endian, this host's): hc_trace_file_hdr_t, then
 * hc_trace_rec_t records.  tools/hcmpi-trace mirrors the enums below.
 */
#ifndef HC_TRACE_H
#define HC_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "util/trace_path.h"

/* What a record is.  Numbers are part of the file format: append only. */
typedef enum hc_trace_call {
  HC_TRACE_ENG_SEND = 1, /* engine: a message left (key: its send id) */
  HC_TRACE_ENG_RECV = 2, /* engine: a message met its receive (same key) */
  HC_TRACE_MPI_SEND = 10,
  HC_TRACE_MPI_ISEND = 11,
  HC_TRACE_MPI_RECV = 12,
  HC_TRACE_MPI_IRECV = 13,
  HC_TRACE_MPI_SENDRECV = 14,
  HC_TRACE_MPI_WAIT = 15,
  HC_TRACE_MPI_TEST = 16,
  HC_TRACE_MPI_PROBE = 17,
  HC_TRACE_MPI_BARRIER = 20,
  HC_TRACE_MPI_BCAST = 21,
  HC_TRACE_MPI_REDUCE = 22,
  HC_TRACE_MPI_ALLREDUCE = 23,
  HC_TRACE_MPI_GATHER = 24,
  HC_TRACE_MPI_ALLGATHER = 25,
  HC_TRACE_MPI_SCATTER = 26,
  HC_TRACE_MPI_ALLTOALL = 27,
  HC_TRACE_MPI_ALLTOALLV = 28,
  HC_TRACE_MPI_REDUCE_SCATTER = 29,
  HC_TRACE_MPI_SCAN = 30,
  HC_TRACE_MPI_ALLGATHERV = 31,
  HC_TRACE_MPI_GATHERV = 32,
  HC_TRACE_MPI_SCATTERV = 33,
  /* Format 1.1: every call under its own name (before, send modes were
   * MPI_Send and every wait MPI_Wait). */
  HC_TRACE_MPI_SSEND = 34,
  HC_TRACE_MPI_RSEND = 35,
  HC_TRACE_MPI_BSEND = 36,
  HC_TRACE_MPI_ISSEND = 37,
  HC_TRACE_MPI_IRSEND = 38,
  HC_TRACE_MPI_IBSEND = 39,
  HC_TRACE_MPI_SENDRECV_REPLACE = 40,
  HC_TRACE_MPI_IPROBE = 41,
  HC_TRACE_MPI_MPROBE = 42,
  HC_TRACE_MPI_IMPROBE = 43,
  HC_TRACE_MPI_MRECV = 44,
  HC_TRACE_MPI_IMRECV = 45,
  HC_TRACE_MPI_WAITALL = 46,
  HC_TRACE_MPI_WAITANY = 47,
  HC_TRACE_MPI_WAITSOME = 48,
  HC_TRACE_MPI_TESTALL = 49,
  HC_TRACE_MPI_TESTANY = 50,
  HC_TRACE_MPI_TESTSOME = 51,
  HC_TRACE_MPI_START = 52,
  HC_TRACE_MPI_STARTALL = 53,
  HC_TRACE_MPI_EXSCAN = 54,
  HC_TRACE_MPI_REDUCE_SCATTER_BLOCK = 55,
  HC_TRACE_MPI_ALLTOALLW = 56,
  HC_TRACE_MPI_IBARRIER = 60,
  HC_TRACE_MPI_IBCAST = 61,
  HC_TRACE_MPI_IREDUCE = 62,
  HC_TRACE_MPI_IALLREDUCE = 63,
  HC_TRACE_MPI_IGATHER = 64,
  HC_TRACE_MPI_IALLGATHER = 65,
  HC_TRACE_MPI_ISCATTER = 66,
  HC_TRACE_MPI_IALLTOALL = 67,
  HC_TRACE_MPI_IALLTOALLV = 68,
  HC_TRACE_MPI_IREDUCE_SCATTER = 69,
  HC_TRACE_MPI_ISCAN = 70,
  HC_TRACE_MPI_IALLGATHERV = 71,
  HC_TRACE_MPI_IGATHERV = 72,
  HC_TRACE_MPI_ISCATTERV = 73,
  HC_TRACE_MPI_IEXSCAN = 74,
  HC_TRACE_MPI_IREDUCE_SCATTER_BLOCK = 75,
  HC_TRACE_MPI_IALLTOALLW = 76
} hc_trace_call_t;

#define HC_TRACE_MAGIC "HCTRACE1"
typedef struct hc_trace_file_hdr {
  char magic[8];
  uint32_t version;  /* 1 */
  uint32_t rec_size; /* sizeof(hc_trace_rec_t) */
  int32_t rank;      /* world rank */
  int32_t size;      /* world size */
  uint64_t sync_ns;  /* CLOCK_MONOTONIC when the start barrier ended */
  int64_t pid;
  char host[64];
} hc_trace_file_hdr_t;

typedef struct hc_trace_rec {
  uint64_t t_start; /* ns, CLOCK_MONOTONIC */
  uint64_t t_end;
  uint64_t bytes;
  uint64_t key; /* engine events: sender's request id (pairs send/recv) */
  int32_t peer; /* MPI calls: rank in comm; engine: world rank; -1 none */
  int32_t tag;
  uint16_t call; /* hc_trace_call_t */
  uint8_t mem;   /* 0 host, 1 device */
  uint8_t path;  /* hc_trace_path_t */
  uint32_t pad;
} hc_trace_rec_t;

/* Nonzero while tracing records (after hc_trace_start, before _stop). */
extern int hc_trace_on;

/* Current CLOCK_MONOTONIC in ns. */
uint64_t hc_trace_now(void);
/* After hcomm_init: when HCMPI_TRACE names a directory, aligns the ranks'
 * clocks with one barrier on the world and starts recording. */
void hc_trace_start(void);
/* Before hcomm_finalize: writes what is buffered and closes the file. */
void hc_trace_stop(void);
/* One MPI call that began at t_start (from hc_trace_now) and ends now. */
void hc_trace_call(hc_trace_call_t call, uint64_t t_start, int peer, int tag,
                   size_t bytes);
/* One engine event now. */
void hc_trace_engine(hc_trace_call_t call, int peer, int tag, size_t bytes,
                     uint64_t key, int mem, hc_trace_path_t path);

#endif /* HC_TRACE_H */
