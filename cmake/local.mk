# CMake package: $(libdir)/cmake/hcmpi/hcmpi-config.cmake (imported target
# hcmpi::hcmpi); cmake-build/ holds the same pointing into this build tree
# (used by tests/relink/cmake.sh).
hcmpicmakedir = $(libdir)/cmake/hcmpi
hcmpicmake_DATA = cmake/hcmpi-config.cmake cmake/hcmpi-config-version.cmake
noinst_DATA = cmake-build/hcmpi-config.cmake \
	cmake-build/hcmpi-config-version.cmake
CLEANFILES += $(hcmpicmake_DATA) $(noinst_DATA)
EXTRA_DIST += cmake/hcmpi-config.cmake.in cmake/hcmpi-config-version.cmake.in
HC_CMAKE_SED = sed -e 's|@HC_VERSION[@]|$(PACKAGE_VERSION)|g'
cmake/hcmpi-config.cmake: $(srcdir)/cmake/hcmpi-config.cmake.in Makefile
	$(AM_V_GEN)$(MKDIR_P) cmake && $(HC_CMAKE_SED) \
	  -e 's|@HC_INCDIR[@]|$(includedir)|g' -e 's|@HC_LIBDIR[@]|$(libdir)|g' \
	  -e 's|@HC_CC_WRAPPER[@]|$(bindir)/hcmpicc|g' \
	  -e 's|@HC_LAUNCHER[@]|$(bindir)/hcmpirun|g' \
	  -e 's|@HC_ABIDIR[@]|$(mpichabidir)|g' \
	  $(srcdir)/cmake/hcmpi-config.cmake.in >$@.tmp && mv -f $@.tmp $@
cmake-build/hcmpi-config.cmake: $(srcdir)/cmake/hcmpi-config.cmake.in Makefile
	$(AM_V_GEN)$(MKDIR_P) cmake-build && $(HC_CMAKE_SED) \
	  -e 's|@HC_INCDIR[@]|$(abs_top_srcdir)/include|g' \
	  -e 's|@HC_LIBDIR[@]|$(abs_top_builddir)/.libs|g' \
	  -e 's|@HC_CC_WRAPPER[@]|$(abs_top_builddir)/tools/hcmpicc-build|g' \
	  -e 's|@HC_LAUNCHER[@]|$(abs_top_builddir)/tools/hcmpirun|g' \
	  -e 's|@HC_ABIDIR[@]|$(abs_top_builddir)/mpich-abi/.libs|g' \
	  $(srcdir)/cmake/hcmpi-config.cmake.in >$@.tmp && mv -f $@.tmp $@
cmake/hcmpi-config-version.cmake cmake-build/hcmpi-config-version.cmake: \
		$(srcdir)/cmake/hcmpi-config-version.cmake.in Makefile
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(HC_CMAKE_SED) \
	  $(srcdir)/cmake/hcmpi-config-version.cmake.in >$@.tmp && mv -f $@.tmp $@
