# Tests.  Programs built against MPICH are compiled by the scripts with
# mpicc.mpich; Debian packages are installed with apt when missing (77 when
# that is impossible).  mpich_suite.sh runs every tests/mpi scenario on
# MPICH-built programs (about as long as the suite itself).
TESTS += tests/relink/libs.sh tests/relink/netpipe.sh \
	tests/relink/mpich_suite.sh tests/relink/debian_apps.sh \
	tests/relink/scalapack.sh tests/relink/nwchem.sh tests/relink/mocassin.sh \
	tests/relink/data_symbols.sh tests/pmpi/pmpi.sh
dist_noinst_SCRIPTS += tests/relink/libs.sh tests/relink/netpipe.sh \
	tests/relink/mpich_suite.sh tests/relink/debian_apps.sh \
	tests/relink/scalapack.sh tests/relink/nwchem.sh tests/relink/mocassin.sh \
	tests/relink/data_symbols.sh tests/pmpi/pmpi.sh
EXTRA_DIST += tests/relink/lib.sh tests/relink/maps_probe.c \
	tests/relink/maps_probe.f90 tests/relink/maps_probe_f08.f90 \
	tests/relink/module_procs_f08.f90 tests/relink/module_procs.f90 \
	tests/relink/expect_int.inc tests/relink/repeatable_seed.c
check_PROGRAMS += tests/relink/data_symbols
tests_relink_data_symbols_SOURCES = tests/relink/data_symbols.c
tests_relink_data_symbols_LDADD = libhcmpi.la
tests_relink_data_symbols_LDFLAGS = $(AM_LDFLAGS) -no-install
# MPI_Status_c2f/f2c and the F08 forms, hcmpi-built and MPICH-built.
check_PROGRAMS += tests/relink/status_conv
tests_relink_status_conv_SOURCES = tests/relink/status_conv.c
tests_relink_status_conv_LDADD = libhcmpi.la
tests_relink_status_conv_LDFLAGS = $(AM_LDFLAGS) -no-install
TESTS += tests/relink/status_conv.sh tests/relink/soname.sh
dist_noinst_SCRIPTS += tests/relink/status_conv.sh tests/relink/soname.sh

TESTS += tests/relink/dropin.sh tests/relink/cmake.sh
dist_noinst_SCRIPTS += tests/relink/dropin.sh tests/relink/cmake.sh
# Parallel HDF5 (Debian's libhdf5-mpich) writing and reading through MPI-IO.
TESTS += tests/relink/hdf5.sh
dist_noinst_SCRIPTS += tests/relink/hdf5.sh
EXTRA_DIST += tests/relink/hdf5_rw.c
# Fortran coarrays (Debian's OpenCoarrays for MPICH) over one-sided MPI.
TESTS += tests/relink/coarrays.sh
dist_noinst_SCRIPTS += tests/relink/coarrays.sh
EXTRA_DIST += tests/relink/coarray_check.f90
# ADIOS 1 (Debian's MPICH build) writing through MPI-IO, aggregation, POSIX
# and parallel HDF5.
TESTS += tests/relink/adios.sh
dist_noinst_SCRIPTS += tests/relink/adios.sh
EXTRA_DIST += tests/relink/adios_rw.c tests/relink/mpi_library_name.h
# EZTrace (Debian's MPICH build) tracing C and Fortran MPI calls.
TESTS += tests/relink/eztrace.sh
dist_noinst_SCRIPTS += tests/relink/eztrace.sh
EXTRA_DIST += tests/relink/eztrace_calls.c tests/relink/eztrace_calls.f90
