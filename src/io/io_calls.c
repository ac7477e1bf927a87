/*
 * The data access calls of MPI-IO (MPI-4.0 14.4): each names its family
 * (read or write, collective or not, where it starts) and hands over to
 * the one access path in io_access.c.  The _c forms differ only in the
 * type of count.
 */
#include <stdint.h>

#include "io/io_access.h"

/* Writes pass the caller's const buffer down the shared path, which only
 * reads it when writing. */
static void *wbuf(const void *buf) { return (void *)(uintptr_t)buf; }

int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                    MPI_Request *request) {
  static const io_how_t how = {0, 0, IO_AT_POINTER};
  return hc_io_start("MPI_File_iread", fh, &how, 0, buf, count, datatype,
                     request);
}
HC_WEAK_ALIAS(MPI_File_iread, PMPI_File_iread);

int PMPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count,
                      MPI_Datatype datatype, MPI_Request *request) {
  static const io_how_t how = {0, 0, IO_AT_POINTER};
  return hc_io_start("MPI_File_iread_c", fh, &how, 0, buf, count, datatype,
                     request);
}
HC_WEAK_ALIAS(MPI_File_iread_c, PMPI_File_iread_c);

int PMPI_File_iread_all(MPI_File fh, void *buf, int count,
                        MPI_Datatype datatype, MPI_Request *request) {
  static const io_how_t how = {0, 1, IO_AT_POINTER};
  return hc_io_start("MPI_File_iread_all", fh, &how, 0, buf, count, datatype,
                     request);
}
HC_WEAK_ALIAS(MPI_File_iread_all, PMPI_File_iread_all);

int PMPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Request *request) {
  static const io_how_t how = {0, 1, IO_AT_POINTER};
  return hc_io_start("MPI_File_iread_all_c", fh, &how, 0, buf, count, datatype,
                     request);
}
HC_WEAK_ALIAS(MPI_File_iread_all_c, PMPI_File_iread_all_c);

int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                       MPI_Datatype datatype, MPI_Request *request) {
  static const io_how_t how = {0, 0, IO_AT_OFFSET};
  return hc_io_start("MPI_File_iread_at", fh, &how, offset, buf, count,
                     datatype, request);
}
HC_WEAK_ALIAS(MPI_File_iread_at, PMPI_File_iread_at);

int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf,
                         MPI_Count count, MPI_Datatype datatype,
                         MPI_Request *request) {
  static const io_how_t how = {0, 0, IO_AT_OFFSET};
  return hc_io_start("MPI_File_iread_at_c", fh, &how, offset, buf, count,
                     datatype, request);
}
HC_WEAK_ALIAS(MPI_File_iread_at_c, PMPI_File_iread_at_c);

int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request) {
  static const io_how_t how = {0, 1, IO_AT_OFFSET};
  return hc_io_start("MPI_File_iread_at_all", fh, &how, offset, buf, count,
                     datatype, request);
}
HC_WEAK_ALIAS(MPI_File_iread_at_all, PMPI_File_iread_at_all);

int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf,
                             MPI_Count count, MPI_Datatype datatype,
                             MPI_Request *request) {
  static const io_how_t how = {0, 1, IO_AT_OFFSET};
  return hc_io_start("MPI_File_iread_at_all_c", fh, &how, offset, buf, count,
                     datatype, request);
}
HC_WEAK_ALIAS(MPI_File_iread_at_all_c, PMPI_File_iread_at_all_c);

int PMPI_File_iread_shared(MPI_File fh, void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request) {
  static const io_how_t how = {0, 0, IO_AT_SHARED};
  return hc_io_start("MPI_File_iread_shared", fh, &how, 0, buf, count, datatype,
                     request);
}
HC_WEAK_ALIAS(MPI_File_iread_shared, PMPI_File_iread_shared);

int PMPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request *request) {
  static const io_how_t how = {0, 0, IO_AT_SHARED};
  return hc_io_start("MPI_File_iread_shared_c", fh, &how, 0, buf, count,
                     datatype, request);
}
HC_WEAK_ALIAS(MPI_File_iread_shared_c, PMPI_File_iread_shared_c);

int PMPI_File_iwrite(MPI_File fh, const void *buf, int count,
                     MPI_Datatype datatype, MPI_Request *request) {
  static const io_how_t how = {1, 0, IO_AT_POINTER};
  return hc_io_start("MPI_File_iwrite", fh, &how, 0, wbuf(buf), count, datatype,
                     request);
}
HC_WEAK_ALIAS(MPI_File_iwrite, PMPI_File_iwrite);

int PMPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count,
                       MPI_Datatype datatype, MPI_Request *request) {
  static const io_how_t how = {1, 0, IO_AT_POINTER};
  return hc_io_start("MPI_File_iwrite_c", fh, &how, 0, wbuf(buf), count,
                     datatype, request);
}
HC_WEAK_ALIAS(MPI_File_iwrite_c, PMPI_File_iwrite_c);

int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count,
                         MPI_Datatype datatype, MPI_Request *request) {
  static const io_how_t how = {1, 1, IO_AT_POINTER};
  return hc_io_start("MPI_File_iwrite_all", fh, &how, 0, wbuf(buf), count,
                     datatype, request);
}
HC_WEAK_ALIAS(MPI_File_iwrite_all, PMPI_File_iwrite_all);

int PMPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Request *request) {
  static const io_how_t how = {1, 1, IO_AT_POINTER};
  return hc_io_start("MPI_File_iwrite_all_c", fh, &how, 0, wbuf(buf), count,
                     datatype, request);
}
HC_WEAK_ALIAS(MPI_File_iwrite_all_c, PMPI_File_iwrite_all_c);

int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf,
                        int count, MPI_Datatype datatype,
                        MPI_Request *request) {
  static const io_how_t how = {1, 0, IO_AT_OFFSET};
  return hc_io_start("MPI_File_iwrite_at", fh, &how, offset, wbuf(buf), count,
                     datatype, request);
}
HC_WEAK_ALIAS(MPI_File_iwrite_at, PMPI_File_iwrite_at);

int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf,
                          MPI_Count count, MPI_Datatype datatype,
                          MPI_Request *request) {
  static const io_how_t how = {1, 0, IO_AT_OFFSET};
  return hc_io_start("MPI_File_iwrite_at_c", fh, &how, offset, wbuf(buf), count,
                     datatype, request);
}
HC_WEAK_ALIAS(MPI_File_iwrite_at_c, PMPI_File_iwrite_at_c);

int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf,
                            int count, MPI_Datatype datatype,
                            MPI_Request *request) {
  static const io_how_t how = {1, 1, IO_AT_OFFSET};
  return hc_io_start("MPI_File_iwrite_at_all", fh, &how, offset, wbuf(buf),
                     count, datatype, request);
}
HC_WEAK_ALIAS(MPI_File_iwrite_at_all, PMPI_File_iwrite_at_all);

int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf,
                              MPI_Count count, MPI_Datatype datatype,
                              MPI_Request *request) {
  static const io_how_t how = {1, 1, IO_AT_OFFSET};
  return hc_io_start("MPI_File_iwrite_at_all_c", fh, &how, offset, wbuf(buf),
                     count, datatype, request);
}
HC_WEAK_ALIAS(MPI_File_iwrite_at_all_c, PMPI_File_iwrite_at_all_c);

int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count,
                            MPI_Datatype datatype, MPI_Request *request) {
  static const io_how_t how = {1, 0, IO_AT_SHARED};
  return hc_io_start("MPI_File_iwrite_shared", fh, &how, 0, wbuf(buf), count,
                     datatype, request);
}
HC_WEAK_ALIAS(MPI_File_iwrite_shared, PMPI_File_iwrite_shared);

int PMPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Request *request) {
  static const io_how_t how = {1, 0, IO_AT_SHARED};
  return hc_io_start("MPI_File_iwrite_shared_c", fh, &how, 0, wbuf(buf), count,
                     datatype, request);
}
HC_WEAK_ALIAS(MPI_File_iwrite_shared_c, PMPI_File_iwrite_shared_c);

int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                   MPI_Status *status) {
  static const io_how_t how = {0, 0, IO_AT_POINTER};
  return hc_io_access("MPI_File_read", fh, &how, 0, buf, count, datatype,
                      status);
}
HC_WEAK_ALIAS(MPI_File_read, PMPI_File_read);

int PMPI_File_read_c(MPI_File fh, void *buf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {0, 0, IO_AT_POINTER};
  return hc_io_access("MPI_File_read_c", fh, &how, 0, buf, count, datatype,
                      status);
}
HC_WEAK_ALIAS(MPI_File_read_c, PMPI_File_read_c);

int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                       MPI_Status *status) {
  static const io_how_t how = {0, 1, IO_AT_POINTER};
  return hc_io_access("MPI_File_read_all", fh, &how, 0, buf, count, datatype,
                      status);
}
HC_WEAK_ALIAS(MPI_File_read_all, PMPI_File_read_all);

int PMPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {0, 1, IO_AT_POINTER};
  return hc_io_access("MPI_File_read_all_c", fh, &how, 0, buf, count, datatype,
                      status);
}
HC_WEAK_ALIAS(MPI_File_read_all_c, PMPI_File_read_all_c);

int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count,
                             MPI_Datatype datatype) {
  static const io_how_t how = {0, 1, IO_AT_POINTER};
  return hc_io_split_begin("MPI_File_read_all_begin", fh, &how, 0, buf, count,
                           datatype);
}
HC_WEAK_ALIAS(MPI_File_read_all_begin, PMPI_File_read_all_begin);

int PMPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count,
                               MPI_Datatype datatype) {
  static const io_how_t how = {0, 1, IO_AT_POINTER};
  return hc_io_split_begin("MPI_File_read_all_begin_c", fh, &how, 0, buf, count,
                           datatype);
}
HC_WEAK_ALIAS(MPI_File_read_all_begin_c, PMPI_File_read_all_begin_c);

int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status) {
  (void)buf;
  return hc_io_split_end("MPI_File_read_all_end", fh, status);
}
HC_WEAK_ALIAS(MPI_File_read_all_end, PMPI_File_read_all_end);

int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                      MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {0, 0, IO_AT_OFFSET};
  return hc_io_access("MPI_File_read_at", fh, &how, offset, buf, count,
                      datatype, status);
}
HC_WEAK_ALIAS(MPI_File_read_at, PMPI_File_read_at);

int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf,
                        MPI_Count count, MPI_Datatype datatype,
                        MPI_Status *status) {
  static const io_how_t how = {0, 0, IO_AT_OFFSET};
  return hc_io_access("MPI_File_read_at_c", fh, &how, offset, buf, count,
                      datatype, status);
}
HC_WEAK_ALIAS(MPI_File_read_at_c, PMPI_File_read_at_c);

int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {0, 1, IO_AT_OFFSET};
  return hc_io_access("MPI_File_read_at_all", fh, &how, offset, buf, count,
                      datatype, status);
}
HC_WEAK_ALIAS(MPI_File_read_at_all, PMPI_File_read_at_all);

int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void *buf,
                            MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status) {
  static const io_how_t how = {0, 1, IO_AT_OFFSET};
  return hc_io_access("MPI_File_read_at_all_c", fh, &how, offset, buf, count,
                      datatype, status);
}
HC_WEAK_ALIAS(MPI_File_read_at_all_c, PMPI_File_read_at_all_c);

int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf,
                                int count, MPI_Datatype datatype) {
  static const io_how_t how = {0, 1, IO_AT_OFFSET};
  return hc_io_split_begin("MPI_File_read_at_all_begin", fh, &how, offset, buf,
                           count, datatype);
}
HC_WEAK_ALIAS(MPI_File_read_at_all_begin, PMPI_File_read_at_all_begin);

int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf,
                                  MPI_Count count, MPI_Datatype datatype) {
  static const io_how_t how = {0, 1, IO_AT_OFFSET};
  return hc_io_split_begin("MPI_File_read_at_all_begin_c", fh, &how, offset,
                           buf, count, datatype);
}
HC_WEAK_ALIAS(MPI_File_read_at_all_begin_c, PMPI_File_read_at_all_begin_c);

int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status) {
  (void)buf;
  return hc_io_split_end("MPI_File_read_at_all_end", fh, status);
}
HC_WEAK_ALIAS(MPI_File_read_at_all_end, PMPI_File_read_at_all_end);

int PMPI_File_read_ordered(MPI_File fh, void *buf, int count,
                           MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {0, 1, IO_AT_ORDERED};
  return hc_io_access("MPI_File_read_ordered", fh, &how, 0, buf, count,
                      datatype, status);
}
HC_WEAK_ALIAS(MPI_File_read_ordered, PMPI_File_read_ordered);

int PMPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {0, 1, IO_AT_ORDERED};
  return hc_io_access("MPI_File_read_ordered_c", fh, &how, 0, buf, count,
                      datatype, status);
}
HC_WEAK_ALIAS(MPI_File_read_ordered_c, PMPI_File_read_ordered_c);

int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count,
                                 MPI_Datatype datatype) {
  static const io_how_t how = {0, 1, IO_AT_ORDERED};
  return hc_io_split_begin("MPI_File_read_ordered_begin", fh, &how, 0, buf,
                           count, datatype);
}
HC_WEAK_ALIAS(MPI_File_read_ordered_begin, PMPI_File_read_ordered_begin);

int PMPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count,
                                   MPI_Datatype datatype) {
  static const io_how_t how = {0, 1, IO_AT_ORDERED};
  return hc_io_split_begin("MPI_File_read_ordered_begin_c", fh, &how, 0, buf,
                           count, datatype);
}
HC_WEAK_ALIAS(MPI_File_read_ordered_begin_c, PMPI_File_read_ordered_begin_c);

int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status) {
  (void)buf;
  return hc_io_split_end("MPI_File_read_ordered_end", fh, status);
}
HC_WEAK_ALIAS(MPI_File_read_ordered_end, PMPI_File_read_ordered_end);

int PMPI_File_read_shared(MPI_File fh, void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {0, 0, IO_AT_SHARED};
  return hc_io_access("MPI_File_read_shared", fh, &how, 0, buf, count, datatype,
                      status);
}
HC_WEAK_ALIAS(MPI_File_read_shared, PMPI_File_read_shared);

int PMPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {0, 0, IO_AT_SHARED};
  return hc_io_access("MPI_File_read_shared_c", fh, &how, 0, buf, count,
                      datatype, status);
}
HC_WEAK_ALIAS(MPI_File_read_shared_c, PMPI_File_read_shared_c);

int PMPI_File_write(MPI_File fh, const void *buf, int count,
                    MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {1, 0, IO_AT_POINTER};
  return hc_io_access("MPI_File_write", fh, &how, 0, wbuf(buf), count, datatype,
                      status);
}
HC_WEAK_ALIAS(MPI_File_write, PMPI_File_write);

int PMPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count,
                      MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {1, 0, IO_AT_POINTER};
  return hc_io_access("MPI_File_write_c", fh, &how, 0, wbuf(buf), count,
                      datatype, status);
}
HC_WEAK_ALIAS(MPI_File_write_c, PMPI_File_write_c);

int PMPI_File_write_all(MPI_File fh, const void *buf, int count,
                        MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {1, 1, IO_AT_POINTER};
  return hc_io_access("MPI_File_write_all", fh, &how, 0, wbuf(buf), count,
                      datatype, status);
}
HC_WEAK_ALIAS(MPI_File_write_all, PMPI_File_write_all);

int PMPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {1, 1, IO_AT_POINTER};
  return hc_io_access("MPI_File_write_all_c", fh, &how, 0, wbuf(buf), count,
                      datatype, status);
}
HC_WEAK_ALIAS(MPI_File_write_all_c, PMPI_File_write_all_c);

int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count,
                              MPI_Datatype datatype) {
  static const io_how_t how = {1, 1, IO_AT_POINTER};
  return hc_io_split_begin("MPI_File_write_all_begin", fh, &how, 0, wbuf(buf),
                           count, datatype);
}
HC_WEAK_ALIAS(MPI_File_write_all_begin, PMPI_File_write_all_begin);

int PMPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                MPI_Datatype datatype) {
  static const io_how_t how = {1, 1, IO_AT_POINTER};
  return hc_io_split_begin("MPI_File_write_all_begin_c", fh, &how, 0, wbuf(buf),
                           count, datatype);
}
HC_WEAK_ALIAS(MPI_File_write_all_begin_c, PMPI_File_write_all_begin_c);

int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status) {
  (void)buf;
  return hc_io_split_end("MPI_File_write_all_end", fh, status);
}
HC_WEAK_ALIAS(MPI_File_write_all_end, PMPI_File_write_all_end);

int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf,
                       int count, MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {1, 0, IO_AT_OFFSET};
  return hc_io_access("MPI_File_write_at", fh, &how, offset, wbuf(buf), count,
                      datatype, status);
}
HC_WEAK_ALIAS(MPI_File_write_at, PMPI_File_write_at);

int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void *buf,
                         MPI_Count count, MPI_Datatype datatype,
                         MPI_Status *status) {
  static const io_how_t how = {1, 0, IO_AT_OFFSET};
  return hc_io_access("MPI_File_write_at_c", fh, &how, offset, wbuf(buf), count,
                      datatype, status);
}
HC_WEAK_ALIAS(MPI_File_write_at_c, PMPI_File_write_at_c);

int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf,
                           int count, MPI_Datatype datatype,
                           MPI_Status *status) {
  static const io_how_t how = {1, 1, IO_AT_OFFSET};
  return hc_io_access("MPI_File_write_at_all", fh, &how, offset, wbuf(buf),
                      count, datatype, status);
}
HC_WEAK_ALIAS(MPI_File_write_at_all, PMPI_File_write_at_all);

int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf,
                             MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status) {
  static const io_how_t how = {1, 1, IO_AT_OFFSET};
  return hc_io_access("MPI_File_write_at_all_c", fh, &how, offset, wbuf(buf),
                      count, datatype, status);
}
HC_WEAK_ALIAS(MPI_File_write_at_all_c, PMPI_File_write_at_all_c);

int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset,
                                 const void *buf, int count,
                                 MPI_Datatype datatype) {
  static const io_how_t how = {1, 1, IO_AT_OFFSET};
  return hc_io_split_begin("MPI_File_write_at_all_begin", fh, &how, offset,
                           wbuf(buf), count, datatype);
}
HC_WEAK_ALIAS(MPI_File_write_at_all_begin, PMPI_File_write_at_all_begin);

int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset,
                                   const void *buf, MPI_Count count,
                                   MPI_Datatype datatype) {
  static const io_how_t how = {1, 1, IO_AT_OFFSET};
  return hc_io_split_begin("MPI_File_write_at_all_begin_c", fh, &how, offset,
                           wbuf(buf), count, datatype);
}
HC_WEAK_ALIAS(MPI_File_write_at_all_begin_c, PMPI_File_write_at_all_begin_c);

int PMPI_File_write_at_all_end(MPI_File fh, const void *buf,
                               MPI_Status *status) {
  (void)buf;
  return hc_io_split_end("MPI_File_write_at_all_end", fh, status);
}
HC_WEAK_ALIAS(MPI_File_write_at_all_end, PMPI_File_write_at_all_end);

int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count,
                            MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {1, 1, IO_AT_ORDERED};
  return hc_io_access("MPI_File_write_ordered", fh, &how, 0, wbuf(buf), count,
                      datatype, status);
}
HC_WEAK_ALIAS(MPI_File_write_ordered, PMPI_File_write_ordered);

int PMPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {1, 1, IO_AT_ORDERED};
  return hc_io_access("MPI_File_write_ordered_c", fh, &how, 0, wbuf(buf), count,
                      datatype, status);
}
HC_WEAK_ALIAS(MPI_File_write_ordered_c, PMPI_File_write_ordered_c);

int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count,
                                  MPI_Datatype datatype) {
  static const io_how_t how = {1, 1, IO_AT_ORDERED};
  return hc_io_split_begin("MPI_File_write_ordered_begin", fh, &how, 0,
                           wbuf(buf), count, datatype);
}
HC_WEAK_ALIAS(MPI_File_write_ordered_begin, PMPI_File_write_ordered_begin);

int PMPI_File_write_ordered_begin_c(MPI_File fh, const void *buf,
                                    MPI_Count count, MPI_Datatype datatype) {
  static const io_how_t how = {1, 1, IO_AT_ORDERED};
  return hc_io_split_begin("MPI_File_write_ordered_begin_c", fh, &how, 0,
                           wbuf(buf), count, datatype);
}
HC_WEAK_ALIAS(MPI_File_write_ordered_begin_c, PMPI_File_write_ordered_begin_c);

int PMPI_File_write_ordered_end(MPI_File fh, const void *buf,
                                MPI_Status *status) {
  (void)buf;
  return hc_io_split_end("MPI_File_write_ordered_end", fh, status);
}
HC_WEAK_ALIAS(MPI_File_write_ordered_end, PMPI_File_write_ordered_end);

int PMPI_File_write_shared(MPI_File fh, const void *buf, int count,
                           MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {1, 0, IO_AT_SHARED};
  return hc_io_access("MPI_File_write_shared", fh, &how, 0, wbuf(buf), count,
                      datatype, status);
}
HC_WEAK_ALIAS(MPI_File_write_shared, PMPI_File_write_shared);

int PMPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Status *status) {
  static const io_how_t how = {1, 0, IO_AT_SHARED};
  return hc_io_access("MPI_File_write_shared_c", fh, &how, 0, wbuf(buf), count,
                      datatype, status);
}
HC_WEAK_ALIAS(MPI_File_write_shared_c, PMPI_File_write_shared_c);
