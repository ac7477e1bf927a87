# ---- tools (hcmpirun, hcmpicc) ------------------------------------------
bin_PROGRAMS += tools/hcmpirun
# Own CFLAGS so these objects do not clash with libhccore's libtool ones.
tools_hcmpirun_SOURCES = tools/hcmpirun.c tools/hcmpirun.h \
	tools/hcmpirun_spawn.c tools/hcmpirun_bind.c $(HC_PMI1_WIRE_SOURCES) \
	$(HC_UTIL_SOURCES)
tools_hcmpirun_CFLAGS = $(AM_CFLAGS)

# hcmpicc with installed paths; hcmpicc-build points into this build tree
# (tests and examples use it before `make install`).
bin_SCRIPTS += tools/hcmpicc
noinst_SCRIPTS += tools/hcmpicc-build
CLEANFILES += tools/hcmpicc tools/hcmpicc-build
EXTRA_DIST += tools/hcmpicc.in tests/tools/hcmpirun.sh tests/tools/hcmpicc.sh
HC_HCMPICC_SED = sed -e 's|@HC_CC[@]|$(CC)|g' -e 's|@HC_ABI_DEFAULT[@]|no|g'
tools/hcmpicc: $(srcdir)/tools/hcmpicc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools && $(HC_HCMPICC_SED) \
	  -e 's|@HC_INCDIR[@]|$(includedir)|g' -e 's|@HC_LIBDIR[@]|$(libdir)|g' \
	  $(srcdir)/tools/hcmpicc.in >$@.tmp && chmod +x $@.tmp && mv -f $@.tmp $@
tools/hcmpicc-build: $(srcdir)/tools/hcmpicc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools && $(HC_HCMPICC_SED) \
	  -e 's|@HC_INCDIR[@]|$(abs_top_srcdir)/include|g' \
	  -e 's|@HC_LIBDIR[@]|$(abs_top_builddir)/.libs|g' \
	  $(srcdir)/tools/hcmpicc.in >$@.tmp && chmod +x $@.tmp && mv -f $@.tmp $@

tools_hcmpirun_CPPFLAGS = $(AM_CPPFLAGS) \
	-DHC_MPICH_ABI_DIR='"$(mpichabidir)"' -DHC_LIB_DIR='"$(libdir)"'

# Drop-in names (configure --enable-mpi-names; off by default so a system
# MPI is never shadowed): mpicc -> hcmpicc, mpiexec and mpirun -> hcmpirun.
if HC_MPI_NAMES
install-exec-hook:
	cd $(DESTDIR)$(bindir) && rm -f mpicc mpiexec mpirun && \
	  $(LN_S) hcmpicc mpicc && $(LN_S) hcmpirun mpiexec && \
	  $(LN_S) hcmpirun mpirun
uninstall-hook:
	cd $(DESTDIR)$(bindir) && rm -f mpicc mpiexec mpirun
endif

HC_HCMPICXX_SED = sed -e 's|@HC_CXX[@]|$(CXX)|g'
bin_SCRIPTS += tools/hcmpicxx
noinst_SCRIPTS += tools/hcmpicxx-build
CLEANFILES += tools/hcmpicxx tools/hcmpicxx-build
tools/hcmpicxx: $(srcdir)/tools/hcmpicxx.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools && $(HC_HCMPICXX_SED) \
	  -e 's|@HC_INCDIR[@]|$(includedir)|g' -e 's|@HC_LIBDIR[@]|$(libdir)|g' \
	  $(srcdir)/tools/hcmpicxx.in >$@.tmp && chmod +x $@.tmp && mv -f $@.tmp $@
tools/hcmpicxx-build: $(srcdir)/tools/hcmpicxx.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools && $(HC_HCMPICXX_SED) \
	  -e 's|@HC_INCDIR[@]|$(abs_top_srcdir)/include|g' \
	  -e 's|@HC_LIBDIR[@]|$(abs_top_builddir)/.libs|g' \
	  $(srcdir)/tools/hcmpicxx.in >$@.tmp && chmod +x $@.tmp && mv -f $@.tmp $@

if HC_HAVE_FC
HC_HCMPIFORT_SED = sed -e 's|@HC_FC[@]|$(FC)|g' \
	-e 's|@HC_FC_COMPAT_FLAGS[@]|$(HC_FC_COMPAT_FLAGS)|g'
HC_FORT_WRAPPERS = tools/hcmpifort tools/hcmpif77 tools/hcmpif90
bin_SCRIPTS += $(HC_FORT_WRAPPERS)
noinst_SCRIPTS += tools/hcmpifort-build
CLEANFILES += $(HC_FORT_WRAPPERS) tools/hcmpifort-build
$(HC_FORT_WRAPPERS): $(srcdir)/tools/hcmpifort.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools && $(HC_HCMPIFORT_SED) \
	  -e 's|@HC_INCDIR[@]|$(includedir)|g' -e 's|@HC_MODDIR[@]|$(includedir)|g' \
	  -e 's|@HC_LIBDIR[@]|$(libdir)|g' \
	  $(srcdir)/tools/hcmpifort.in >$@.tmp && chmod +x $@.tmp && mv -f $@.tmp $@
tools/hcmpifort-build: $(srcdir)/tools/hcmpifort.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools && $(HC_HCMPIFORT_SED) \
	  -e 's|@HC_INCDIR[@]|$(abs_top_srcdir)/src/fortran|g' \
	  -e 's|@HC_MODDIR[@]|$(abs_top_builddir)/src/fortran|g' \
	  -e 's|@HC_LIBDIR[@]|$(abs_top_builddir)/.libs|g' \
	  $(srcdir)/tools/hcmpifort.in >$@.tmp && chmod +x $@.tmp && mv -f $@.tmp $@

endif

# ---- observability ----
# hcmpi_info prints the build, transports, device runtimes, bootstrap and
# every HCMPI_* variable from src/util/envtable.c; docs/environment.md is
# generated from the same table (make environment-doc) and
# tests/tools/envtable.sh fails when the two drift or a variable read in the
# tree is missing from the table.
bin_PROGRAMS += tools/hcmpi_info
tools_hcmpi_info_SOURCES = tools/hcmpi_info.c src/device/query.c \
	src/device/query.h tools/hcmpi_info_mpit.c tools/hcmpi_info_mpit.h
tools_hcmpi_info_LDADD = libhccore.la

nodist_tools_hcmpi_info_SOURCES = tools/hcmpi_info_config.h
tools/hcmpi_info.$(OBJEXT): tools/hcmpi_info_config.h
CLEANFILES += tools/hcmpi_info_config.h
tools/hcmpi_info_config.h: config.status
	$(AM_V_GEN)$(MKDIR_P) tools && { \
	  a=`./config.status --config | sed 's/[\\"]/\\&/g'`; \
	  printf '#define HC_INFO_CONFIGURE_ARGS "%s"\n' "$$a"; \
	  printf '#define HC_INFO_PREFIX "%s"\n' '$(prefix)'; \
	  printf '#define HC_INFO_CC "%s"\n' '$(CC)'; } >$@.tmp && mv -f $@.tmp $@
.PHONY: environment-doc
environment-doc: tools/hcmpi_info$(EXEEXT)
	./tools/hcmpi_info --env-markdown >$(srcdir)/docs/environment.md
EXTRA_DIST += docs/environment.md
TESTS += tests/tools/hcmpi_info.sh tests/tools/envtable.sh
dist_noinst_SCRIPTS += tests/tools/hcmpi_info.sh tests/tools/envtable.sh
# hcmpi-trace merges HCMPI_TRACE output (JSON, matrix, heatmap, HTML);
# trace.sh runs it on trace_counts and examples/moe_dispatch.
dist_bin_SCRIPTS = tools/hcmpi-trace

# Man pages (plain roff); manpages.sh renders each with groff -ww and checks
# that it names every option of the tool's --help.
man_MANS = man/hcmpicc.1 man/hcmpirun.1 man/hcmpi_info.1 man/hcmpi-trace.1
EXTRA_DIST += $(man_MANS)
