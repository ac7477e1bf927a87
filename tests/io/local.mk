# ---- MPI-IO (src/io) ------------------------------------------------------
# Multi-rank programs run under tools/hcmpirun through tests/mpi/lib.sh;
# each writes its files under $TMPDIR (default /tmp) and removes them.
HC_IOTEST_BIN = tests/io/io_access tests/io/io_files tests/io/io_darray \
	tests/io/io_shared tests/io/io_ext32 tests/io/io_cb tests/io/io_killed \
	tests/io/io_nonblocking tests/io/io_coll_overlap \
	tests/io/io_request_errors tests/io/io_read_past_end \
	tests/io/io_empty_view
check_PROGRAMS += $(HC_IOTEST_BIN)
tests_io_io_access_SOURCES = tests/io/io_access.c tests/io/iotest.h tests/mpi/mpitest.h
tests_io_io_access_LDADD = $(HC_MPITEST_LIB)
tests_io_io_access_LDFLAGS = $(HC_MPITEST_LDF)
tests_io_io_files_SOURCES = tests/io/io_files.c tests/mpi/mpitest.h
tests_io_io_files_LDADD = $(HC_MPITEST_LIB)
tests_io_io_files_LDFLAGS = $(HC_MPITEST_LDF)
tests_io_io_darray_SOURCES = tests/io/io_darray.c tests/mpi/mpitest.h
tests_io_io_darray_LDADD = $(HC_MPITEST_LIB)
tests_io_io_darray_LDFLAGS = $(HC_MPITEST_LDF)
tests_io_io_shared_SOURCES = tests/io/io_shared.c tests/io/iotest.h tests/mpi/mpitest.h
tests_io_io_shared_LDADD = $(HC_MPITEST_LIB)
tests_io_io_shared_LDFLAGS = $(HC_MPITEST_LDF)
tests_io_io_ext32_SOURCES = tests/io/io_ext32.c tests/mpi/mpitest.h
tests_io_io_ext32_LDADD = $(HC_MPITEST_LIB)
tests_io_io_ext32_LDFLAGS = $(HC_MPITEST_LDF)
tests_io_io_cb_SOURCES = tests/io/io_cb.c tests/mpi/mpitest.h
tests_io_io_cb_LDADD = $(HC_MPITEST_LIB)
tests_io_io_cb_LDFLAGS = $(HC_MPITEST_LDF)
tests_io_io_killed_SOURCES = tests/io/io_killed.c tests/mpi/mpitest.h
tests_io_io_killed_LDADD = $(HC_MPITEST_LIB)
tests_io_io_killed_LDFLAGS = $(HC_MPITEST_LDF)
tests_io_io_nonblocking_SOURCES = tests/io/io_nonblocking.c tests/io/iotest.h tests/mpi/mpitest.h
tests_io_io_nonblocking_LDADD = $(HC_MPITEST_LIB)
tests_io_io_nonblocking_LDFLAGS = $(HC_MPITEST_LDF)
tests_io_io_coll_overlap_SOURCES = tests/io/io_coll_overlap.c tests/io/iotest.h tests/mpi/mpitest.h
tests_io_io_coll_overlap_LDADD = $(HC_MPITEST_LIB)
tests_io_io_coll_overlap_LDFLAGS = $(HC_MPITEST_LDF)
tests_io_io_request_errors_SOURCES = tests/io/io_request_errors.c tests/io/iotest.h tests/mpi/mpitest.h
tests_io_io_request_errors_LDADD = $(HC_MPITEST_LIB)
tests_io_io_request_errors_LDFLAGS = $(HC_MPITEST_LDF)
tests_io_io_read_past_end_SOURCES = tests/io/io_read_past_end.c tests/io/iotest.h tests/mpi/mpitest.h
tests_io_io_read_past_end_LDADD = $(HC_MPITEST_LIB)
tests_io_io_read_past_end_LDFLAGS = $(HC_MPITEST_LDF)
tests_io_io_empty_view_SOURCES = tests/io/io_empty_view.c tests/io/iotest.h tests/mpi/mpitest.h
tests_io_io_empty_view_LDADD = $(HC_MPITEST_LIB)
tests_io_io_empty_view_LDFLAGS = $(HC_MPITEST_LDF)
HC_IOTEST_SH = tests/io/io_access.sh tests/io/io_files.sh \
	tests/io/io_darray.sh tests/io/io_shared.sh tests/io/io_ext32.sh \
	tests/io/io_cb.sh tests/io/io_killed.sh \
	tests/io/io_nonblocking.sh tests/io/io_coll_overlap.sh \
	tests/io/io_request_errors.sh tests/io/io_read_past_end.sh \
	tests/io/io_empty_view.sh
TESTS += $(HC_IOTEST_SH)
dist_noinst_SCRIPTS += $(HC_IOTEST_SH)
