check_PROGRAMS += tests/tools/pmi_client
tests_tools_pmi_client_SOURCES = tests/tools/pmi_client.c
tests_tools_pmi_client_LDADD = libhccore.la
TESTS += tests/tools/hcmpirun.sh tests/tools/hcmpicc.sh

check_PROGRAMS += tests/tools/trace_counts
tests_tools_trace_counts_SOURCES = tests/tools/trace_counts.c
tests_tools_trace_counts_LDADD = $(HC_MPITEST_LIB)
tests_tools_trace_counts_LDFLAGS = $(HC_MPITEST_LDF)
TESTS += tests/tools/trace.sh
dist_noinst_SCRIPTS += tests/tools/trace.sh tests/tools/trace_check.py \
	tests/tools/trace_calls.py
# hcmpirun --progress: status line under a pty (script), none without one.
TESTS += tests/tools/progress.sh
dist_noinst_SCRIPTS += tests/tools/progress.sh

TESTS += tests/tools/manpages.sh
dist_noinst_SCRIPTS += tests/tools/manpages.sh

# make install DESTDIR=, then the installed tree built against and run from
# its prefix alone (the stage overlaid on it in a private mount namespace;
# 77 without root).  make install relinks the Fortran libraries in place
# (libtool moves the uninstalled ones aside for a moment), so it runs after
# the tests that load them.
TESTS += tests/tools/install.sh
dist_noinst_SCRIPTS += tests/tools/install.sh
# (A variable target, so that automake still writes the log rule itself.)
HC_INSTALL_LOG = tests/tools/install.sh.log
$(HC_INSTALL_LOG): tests/fortran/fortran.sh.log tests/fortran/relink.sh.log \
	tests/relink/soname.sh.log

# docs/functions.md is generated from the library's exports; this keeps it so.
TESTS += tests/tools/function_table.sh
dist_noinst_SCRIPTS += tests/tools/function_table.sh
EXTRA_DIST += scripts/function_table.py scripts/mpich-4.0.2-functions.txt \
	scripts/mpi-4.1-functions.txt docs/functions.md
