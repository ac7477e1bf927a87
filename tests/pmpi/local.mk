# The profiling tool links against no MPI library (its PMPI_ references
# bind at run time), so it can be preloaded under --relink too.
check_LTLIBRARIES += tests/pmpi/libpmpicounter.la
tests_pmpi_libpmpicounter_la_SOURCES = tests/pmpi/counter.c
tests_pmpi_libpmpicounter_la_LDFLAGS = $(AM_LDFLAGS) -avoid-version \
	-rpath /nowhere
check_PROGRAMS += tests/pmpi/pmpi_app tests/pmpi/pmpi_app_linked
tests_pmpi_pmpi_app_SOURCES = tests/pmpi/pmpi_app.c
tests_pmpi_pmpi_app_LDADD = libhcmpi.la
tests_pmpi_pmpi_app_LDFLAGS = $(AM_LDFLAGS) -no-install
tests_pmpi_pmpi_app_linked_SOURCES = tests/pmpi/pmpi_app.c
tests_pmpi_pmpi_app_linked_LDADD = tests/pmpi/libpmpicounter.la libhcmpi.la
tests_pmpi_pmpi_app_linked_LDFLAGS = $(AM_LDFLAGS) -no-install
