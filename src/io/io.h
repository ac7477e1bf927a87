/*
 * MPI-IO (MPI-4.0 chapter 14): the file object and what the io files share.
 *
 * src/io is a layer of its own beside the engine (DESIGN.md).  Its face
 * functions (PMPI_File_*) live here too, because every one of them needs
 * the file object; they check arguments with the face's helpers
 * (mpi/errors.h, mpi/datatype.h) and talk to the other ranks of the file
 * only through MPI calls on a private duplicate of the file's
 * communicator (collective buffering, shared pointers), so nothing below
 * the MPI face knows about files.  Bytes reach the file through pread /
 * pwrite (io_posix.c).  docs/io.md describes the design.
 *
 * Positions: a view turns the file into a stream of etypes.  Inside the
 * library every position is a *stream byte* (offset in etypes times the
 * etype's size in the file's representation); io_view.c maps stream bytes
 * onto file bytes through the filetype's blocks.
 */
#ifndef HC_IO_H
#define HC_IO_H

#include <mpi.h>
#include <stddef.h>

#include "mpi/mpi_impl.h"

/* One contiguous run of a filetype's data: len bytes at byte off from the
 * start of a filetype instance, holding stream bytes [pos, pos + len) of
 * that instance. */
typedef struct io_block {
  MPI_Offset off;
  MPI_Offset len;
  MPI_Offset pos;
} io_block_t;

/* Data representations: the three predefined ones, then registered ones. */
enum { IO_REP_NATIVE = 0, IO_REP_INTERNAL = 1, IO_REP_EXTERNAL32 = 2 };

/* Runs of at least a page move one by one on a local file system when
 * romio_cb_* and romio_ds_* are automatic: the page cache merges them, so
 * two-phase exchanges and sieved gaps would only add copies
 * (hc_io_view_runs_large). */
enum { IO_PAGE_RUN = 4096 };

/* Collective buffering switches (romio_cb_read / romio_cb_write). */
enum { IO_CB_DISABLE = 0, IO_CB_ENABLE = 1, IO_CB_AUTO = 2 };

/* The hints this library acts on; every other key is kept as given. */
typedef struct io_hints {
  int cb_nodes;              /* aggregators */
  MPI_Offset cb_buffer_size; /* bytes an aggregator moves per round */
  int cb_read, cb_write;     /* IO_CB_* */
  int ds_read, ds_write;     /* data sieving (romio_ds_*): IO_CB_* */
  MPI_Offset ind_rd_buffer_size, ind_wr_buffer_size; /* sieving spans */
} io_hints_t;

struct ADIOI_FileD {
  int fd;
  int readable;  /* fd can be read (sieving, aggregators patching holes) */
  int local_fs;  /* on a disk or memory file system of this node (statfs) */
  int handle;    /* Fortran value (MPI_File_c2f) */
  MPI_Comm comm; /* private duplicate; errors return */
  int rank, size;
  char *path;
  int amode;
  int atomic;
  hc_mpi_errhandler_t *errh; /* retained */
  MPI_Info info;             /* every hint given, and ours with values */
  io_hints_t hints;
  int *aggr; /* ranks of the aggregators, naggr of them */
  int naggr;
  int nodes; /* nodes the file's ranks run on */
  /* the view (io_view.c) */
  MPI_Offset disp;
  MPI_Datatype etype, filetype; /* derived ones are our duplicates */
  MPI_Offset esize;             /* etype bytes in the file representation */
  io_block_t *blocks;           /* one filetype instance, nblocks runs */
  size_t nblocks;
  int ordered;          /* runs go forward without overlap (else read-only) */
  MPI_Offset ft_size;   /* stream bytes of one instance */
  MPI_Offset ft_extent; /* file bytes one instance spans */
  int rep;              /* IO_REP_* or a registered one */
  MPI_Offset fp;        /* individual file pointer, in etypes */
  /* the shared file pointer (io_shared.c) */
  int shfp_fd; /* -1 when the pointer file could not be made */
  char *shfp_path;
  /* Collective accesses (io_collq.c) exchange over coll_comm, a second
   * duplicate made at the first one, so the file's thread never shares a
   * communicator with the calling thread's collectives on comm. */
  MPI_Comm coll_comm;
  struct hc_io_collq *collq; /* the file's queue; NULL until first used */
  struct hc_io_op *split;    /* the split collective begun, or NULL */
};

/* ---- errors (io_file.c) -------------------------------------------------- */

/* Raises errclass from call fn through f's error handler (f NULL: the
 * handler of MPI_FILE_NULL, MPI_ERRORS_RETURN unless changed).  Returns
 * the class; MPI_SUCCESS untouched. */
int hc_io_raise(MPI_File f, const char *fn, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The class of a failed MPI call (on the file's communicator a dead rank
 * is MPIX_ERR_PROC_FAILED, which every survivor then sees). */
int hc_io_class_of_code(int code);
/* The MPI error class of an errno value from a file operation. */
int hc_io_class_of_errno(int err);
/* Entry check of every call on a file: MPI ready and f a live file.
 * Raises through MPI_FILE_NULL's handler otherwise. */
int hc_io_enter(const char *fn, MPI_File f);

/* ---- views and representations (io_view.c) ----------------------------- */

/* Sets the default view (disp 0, MPI_BYTE, MPI_BYTE, native). */
int hc_io_view_default(MPI_File f);
/* Frees what the view holds. */
void hc_io_view_free(MPI_File f);
/* Calls seg for every contiguous file run of stream bytes [pos, pos + n)
 * in stream order: len bytes at file offset off holding stream bytes from
 * at (relative to pos).  Stops at the first non-zero return. */
typedef int (*hc_io_seg_cb)(void *ctx, MPI_Offset off, MPI_Offset len,
                            MPI_Offset at);
int hc_io_view_walk(MPI_File f, MPI_Offset pos, MPI_Offset n, hc_io_seg_cb seg,
                    void *ctx);
/* The file offset of stream byte pos (MPI_File_get_byte_offset). */
MPI_Offset hc_io_view_byte(MPI_File f, MPI_Offset pos);
/* Stream bytes before file byte off (the end of the file, for SEEK_END). */
MPI_Offset hc_io_view_stream_before(MPI_File f, MPI_Offset off);
/* 1 when f is on a local file system and its view's runs average at least
 * IO_PAGE_RUN bytes: accesses then go run by run, unsieved, on their own
 * rank unless a hint asks otherwise. */
int hc_io_view_runs_large(MPI_File f);
/* Bytes of count elements of t in the file representation rep. */
int hc_io_rep_size(int rep, const hc_mpi_type_t *t, MPI_Count count,
                   MPI_Offset *bytes);
/* Converts count elements between memory and rep: for external32 user is
 * their packed native stream, for a registered rep the user's buffer
 * itself (its conversion functions read the datatype's layout). */
int hc_io_rep_convert(int rep, const hc_mpi_type_t *t, MPI_Datatype handle,
                      MPI_Count count, void *user, void *file,
                      MPI_Offset position, int to_file);

/* The layout of type in an external32 file (io_filetype.c): type itself
 * when no width changes, else a committed stand-in with the same
 * constructors over file widths.  A class.  Free with
 * hc_io_file_layout_free(type, layout). */
int hc_io_file_layout_type(MPI_Datatype type, MPI_Datatype *layout);
void hc_io_file_layout_free(MPI_Datatype type, MPI_Datatype *layout);

/* 1 for a registered representation. */
int hc_io_rep_is_user(int rep);

/* ---- moving bytes (io_posix.c) ----------------------------------------- */

/* Writes / reads stream bytes [pos, pos + n) of f from / into buf through
 * the view, sieving when the view cuts them into small runs.  *done is the
 * number of stream bytes moved (a read stops at the end of the file). */
int hc_io_stream_write(MPI_File f, MPI_Offset pos, const void *buf,
                       MPI_Offset n);
int hc_io_stream_read(MPI_File f, MPI_Offset pos, void *buf, MPI_Offset n,
                      MPI_Offset *done);
/* pwrite / pread of a whole run, restarting after short transfers; 0 or
 * an errno.  A read past the end returns fewer bytes in *got. */
int hc_io_pwrite_all(int fd, const void *buf, MPI_Offset len, MPI_Offset off);
int hc_io_pread_all(int fd, void *buf, MPI_Offset len, MPI_Offset off,
                    MPI_Offset *got);
/* Byte-range locks for atomic mode and sieved writes (fcntl). */
void hc_io_lock(int fd, int write, MPI_Offset off, MPI_Offset len);
void hc_io_unlock(int fd, MPI_Offset off, MPI_Offset len);

/* ---- collective buffering (io_coll.c) ---------------------------------- */

/* The collective write / read of stream bytes [pos, pos + n) of every rank
 * (each its own pos and n) through the aggregators, over f->coll_comm. */
int hc_io_coll_write(MPI_File f, MPI_Offset pos, const void *buf, MPI_Offset n);
int hc_io_coll_read(MPI_File f, MPI_Offset pos, void *buf, MPI_Offset n,
                    MPI_Offset *done);
/* Chooses the aggregators from the cb_nodes hint (one per node when not
 * given); collective over f's communicator. */
int hc_io_coll_setup(MPI_File f);

/* ---- collective accesses in the background (io_collq.c) ---------------- */

/* Waits until every collective access queued on f has moved: the calls
 * that change what the file's thread reads (view, hints, atomicity, size)
 * or that must see its bytes (sync) call it first. */
void hc_io_collq_drain(MPI_File f);
/* Drains, ends the file's thread and frees the queue (close). */
void hc_io_collq_close(MPI_File f);

/* ---- shared file pointer (io_shared.c) ---------------------------------- */

/* Collective: makes (rank 0) and opens (all) the pointer file. */
void hc_io_shared_open(MPI_File f);
/* Collective: closes it; rank 0 removes it. */
void hc_io_shared_close(MPI_File f);
/* Atomically adds add to the shared pointer (in etypes), *old its value
 * before; MPI_SUCCESS or a raised class. */
int hc_io_shared_fetch_add(const char *fn, MPI_File f, MPI_Offset add,
                           MPI_Offset *old);
/* Sets it (one rank calls it). */
int hc_io_shared_set(const char *fn, MPI_File f, MPI_Offset value);

#endif /* HC_IO_H */
