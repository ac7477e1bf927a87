/*
 * Asynchronous file runs on the kernel's io_uring (io_ring.c).
 *
 * A ring op moves one access: the file runs of a view (offset, length and
 * place in a host buffer), each read or written by the kernel while the
 * program computes; many accesses are in flight at once, where a worker
 * doing pread / pwrite moves one at a time.  One thread of ours sleeps
 * until runs complete and reports finished ops.  The process shares one ring;
 * an op whose runs do not fit waits in a queue and is fed in as earlier
 * runs complete.  Where the kernel refuses io_uring (an old kernel, a
 * seccomp filter, io_uring_disabled) or HCMPI_IO_URING=0, hc_io_ring_usable
 * says no and the caller uses its worker thread instead.
 */
#ifndef HC_IO_RING_H
#define HC_IO_RING_H

#include <mpi.h>
#include <stddef.h>

typedef struct hc_io_ring_op hc_io_ring_op_t;

/* 1 when this process has a ring (made at the first call), else 0. */
int hc_io_ring_usable(void);

/* A new op for at most nruns runs on fd of buf (write: file <- buf), or
 * NULL when memory ran out.  Runs are added with hc_io_ring_add, in
 * stream order, then the op starts with hc_io_ring_start.  done_fn(arg)
 * runs once, on the ring's own thread, when every run is done. */
hc_io_ring_op_t *hc_io_ring_new(int fd, int write, char *buf, size_t nruns,
                                void (*done_fn)(void *arg), void *done_arg);
/* The next run: len bytes at file offset off from buf + at. */
void hc_io_ring_add(hc_io_ring_op_t *op, MPI_Offset off, MPI_Offset len,
                    MPI_Offset at);
/* Hands the op's runs to the kernel (those that fit now; the rest as
 * earlier runs finish).  0, or -1 when the ring's thread cannot start
 * (op is untouched and the caller's to free). */
int hc_io_ring_start(hc_io_ring_op_t *op);
/* A done op's outcome: 0 or the first errno; *moved the buffer bytes that
 * moved before the first short run (a read that met the end of the
 * file). */
int hc_io_ring_result(const hc_io_ring_op_t *op, MPI_Offset *moved);
/* Frees an op that is done (after its done_fn) or was never started. */
void hc_io_ring_free(hc_io_ring_op_t *op);

#endif /* HC_IO_RING_H */
