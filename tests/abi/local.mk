# ---- ABI comparison with MPICH (tests/abi) ------------------------------
# Compares every constant, size, offset and prototype of include/mpi.h with
# MPICH's mpi.h; skips (77) where mpicc.mpich or python3 is missing.
TESTS += tests/abi/abi-compare.sh
EXTRA_DIST += tests/abi/abi-compare.sh tests/abi/abi-check.py
# Every MPI_/PMPI_/MPIX_ function of Debian's libmpich.so.12 is exported
# (but the families other issues own); prints what is missing.
TESTS += tests/abi/exports.sh
EXTRA_DIST += tests/abi/exports.sh

# ---- the MPI-5.0 standard ABI (include/mpi_abi.h, libmpi_abi) ------------
# mpi_abi_values: every constant of mpi_abi.h against the standard's table.
# abi_version_*: MPI_Abi_get_version through each library, and the ABI
# queries.  abi_programs.sh: tests/mpi programs built against mpi_abi.h and
# libmpi_abi (hcmpicc -abi's way), run with the checks they make on libhcmpi.
HC_ABI_CPPFLAGS = -I$(top_srcdir)/include/mpi-abi $(AM_CPPFLAGS)
# The programs print MPICH handles as (unsigned) in their failure messages;
# standard-ABI handles are pointers, and only those messages narrow them.
HC_ABI_TEST_CFLAGS = $(AM_CFLAGS) -Wno-pointer-to-int-cast
check_PROGRAMS += tests/abi/mpi_abi_values tests/abi/abi_version_std \
	tests/abi/abi_version_mpich
tests_abi_mpi_abi_values_SOURCES = tests/abi/mpi_abi_values.c
tests_abi_abi_version_std_SOURCES = tests/abi/abi_version.c
tests_abi_abi_version_std_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_version_std_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_version_std_LDADD = libmpi_abi.la
tests_abi_abi_version_std_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_version_mpich_SOURCES = tests/abi/abi_version.c
tests_abi_abi_version_mpich_LDADD = $(HC_MPITEST_LIB)
tests_abi_abi_version_mpich_LDFLAGS = $(HC_MPITEST_LDF)
HC_ABI_TEST_BIN = \
	tests/abi/abi_pingpong_sizes \
	tests/abi/abi_probe \
	tests/abi/abi_proc_null \
	tests/abi/abi_truncation \
	tests/abi/abi_persistent \
	tests/abi/abi_collectives_basic \
	tests/abi/abi_coll_full \
	tests/abi/abi_coll_derived_reduce \
	tests/abi/abi_attr_callbacks \
	tests/abi/abi_success_paths \
	tests/abi/abi_grequest \
	tests/abi/abi_mpit_api \
	tests/abi/abi_mpit_counts \
	tests/abi/abi_io_ext32 \
	tests/abi/abi_dyn_spawn \
	tests/abi/abi_bsend_buffers \
	tests/abi/abi_request_get_status_multi \
	tests/abi/abi_mpi41_local
check_PROGRAMS += $(HC_ABI_TEST_BIN)
# MPI-4.1's calls through the layer: MPI_BUFFER_AUTOMATIC's two values,
# request arrays read but never freed, statuses read and written by calls.
tests_abi_abi_bsend_buffers_SOURCES = tests/mpi/bsend_buffers.c tests/mpi/mpitest.h
tests_abi_abi_bsend_buffers_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_bsend_buffers_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_bsend_buffers_LDADD = libmpi_abi.la -lm
tests_abi_abi_bsend_buffers_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_request_get_status_multi_SOURCES = tests/mpi/request_get_status_multi.c \
	tests/mpi/mpitest.h
tests_abi_abi_request_get_status_multi_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_request_get_status_multi_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_request_get_status_multi_LDADD = libmpi_abi.la -lm
tests_abi_abi_request_get_status_multi_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_mpi41_local_SOURCES = tests/mpi/mpi41_local.c tests/mpi/mpitest.h
tests_abi_abi_mpi41_local_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_mpi41_local_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_mpi41_local_LDADD = libmpi_abi.la -lm
tests_abi_abi_mpi41_local_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_mpit_api_SOURCES = tests/mpi/mpit_api.c tests/mpi/mpitest.h
tests_abi_abi_mpit_api_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_mpit_api_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_mpit_api_LDADD = libmpi_abi.la -lm
tests_abi_abi_mpit_api_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_mpit_counts_SOURCES = tests/mpi/mpit_counts.c tests/mpi/mpitest.h
tests_abi_abi_mpit_counts_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_mpit_counts_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_mpit_counts_LDADD = libmpi_abi.la -lm
tests_abi_abi_mpit_counts_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_io_ext32_SOURCES = tests/io/io_ext32.c tests/mpi/mpitest.h
tests_abi_abi_io_ext32_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_io_ext32_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_io_ext32_LDADD = libmpi_abi.la -lm
tests_abi_abi_io_ext32_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_pingpong_sizes_SOURCES = tests/mpi/pingpong_sizes.c tests/mpi/mpitest.h
tests_abi_abi_pingpong_sizes_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_pingpong_sizes_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_pingpong_sizes_LDADD = libmpi_abi.la -lm
tests_abi_abi_pingpong_sizes_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_probe_SOURCES = tests/mpi/probe.c tests/mpi/mpitest.h
tests_abi_abi_probe_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_probe_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_probe_LDADD = libmpi_abi.la -lm
tests_abi_abi_probe_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_proc_null_SOURCES = tests/mpi/proc_null.c tests/mpi/mpitest.h
tests_abi_abi_proc_null_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_proc_null_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_proc_null_LDADD = libmpi_abi.la -lm
tests_abi_abi_proc_null_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_truncation_SOURCES = tests/mpi/truncation.c tests/mpi/mpitest.h
tests_abi_abi_truncation_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_truncation_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_truncation_LDADD = libmpi_abi.la -lm
tests_abi_abi_truncation_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_persistent_SOURCES = tests/mpi/persistent.c tests/mpi/mpitest.h
tests_abi_abi_persistent_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_persistent_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_persistent_LDADD = libmpi_abi.la -lm
tests_abi_abi_persistent_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_collectives_basic_SOURCES = tests/mpi/collectives_basic.c tests/mpi/mpitest.h
tests_abi_abi_collectives_basic_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_collectives_basic_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_collectives_basic_LDADD = libmpi_abi.la -lm
tests_abi_abi_collectives_basic_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_coll_full_SOURCES = tests/mpi/coll_full.c tests/mpi/mpitest.h
tests_abi_abi_coll_full_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_coll_full_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_coll_full_LDADD = libmpi_abi.la -lm
tests_abi_abi_coll_full_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_coll_derived_reduce_SOURCES = tests/mpi/coll_derived_reduce.c tests/mpi/mpitest.h
tests_abi_abi_coll_derived_reduce_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_coll_derived_reduce_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_coll_derived_reduce_LDADD = libmpi_abi.la -lm
tests_abi_abi_coll_derived_reduce_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_attr_callbacks_SOURCES = tests/mpi/attr_callbacks.c tests/mpi/mpitest.h
tests_abi_abi_attr_callbacks_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_attr_callbacks_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_attr_callbacks_LDADD = libmpi_abi.la -lm
tests_abi_abi_attr_callbacks_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_success_paths_SOURCES = tests/mpi/success_paths.c tests/mpi/mpitest.h
tests_abi_abi_success_paths_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_success_paths_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_success_paths_LDADD = libmpi_abi.la -lm
tests_abi_abi_success_paths_LDFLAGS = $(HC_MPITEST_LDF)
tests_abi_abi_grequest_SOURCES = tests/mpi/grequest.c tests/mpi/mpitest.h
tests_abi_abi_grequest_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_grequest_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_grequest_LDADD = libmpi_abi.la -lm
tests_abi_abi_grequest_LDFLAGS = $(HC_MPITEST_LDF)
# Spawns, and a failed spawn's array_of_errcodes in the ABI's values.
tests_abi_abi_dyn_spawn_SOURCES = tests/mpi/dyn_spawn.c tests/mpi/mpitest.h \
	tests/mpi/dyn_family.h
tests_abi_abi_dyn_spawn_CPPFLAGS = $(HC_ABI_CPPFLAGS)
tests_abi_abi_dyn_spawn_CFLAGS = $(HC_ABI_TEST_CFLAGS)
tests_abi_abi_dyn_spawn_LDADD = libmpi_abi.la -lm
tests_abi_abi_dyn_spawn_LDFLAGS = $(HC_MPITEST_LDF)
TESTS += tests/abi/mpi_abi_values.sh tests/abi/abi_version.sh tests/abi/hcmpicc_abi.sh \
	tests/abi/abi_programs.sh
EXTRA_DIST += tests/abi/mpi_abi_values.sh tests/abi/abi_version.sh tests/abi/hcmpicc_abi.sh \
	tests/abi/abi_programs.sh
