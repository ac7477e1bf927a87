# ---- device layer and CANN test double ----------------------------------
# src/device: the ops table per memory kind (host, acl, cuda; runtimes are
# dlopen()ed).  tests/fake-cann: TEST DOUBLES of libascendcl.so (and later
# libhccl.so), built only for make check, never installed; the device tests
# point HCMPI_ACL_LIB at them.

HC_FAKE_ACL = $(abs_top_builddir)/tests/fake-cann/.libs/libascendcl.so
check_LTLIBRARIES += tests/fake-cann/libascendcl.la
tests_fake_cann_libascendcl_la_SOURCES = tests/fake-cann/fake_acl.h \
	tests/fake-cann/fake_acl_int.h tests/fake-cann/fake_acl.c \
	tests/fake-cann/fake_stream.c tests/fake-cann/fake_ipc.c
tests_fake_cann_libascendcl_la_LDFLAGS = $(AM_LDFLAGS) -module \
	-avoid-version -rpath /nowhere
tests_fake_cann_libascendcl_la_LIBADD = -lpthread
HC_FAKE_HCCL = $(abs_top_builddir)/tests/fake-cann/.libs/libhccl.so
check_LTLIBRARIES += tests/fake-cann/libhccl.la
tests_fake_cann_libhccl_la_SOURCES = tests/fake-cann/fake_hccl.h \
	tests/fake-cann/fake_hccl.c
tests_fake_cann_libhccl_la_LDFLAGS = $(AM_LDFLAGS) -module \
	-avoid-version -rpath /nowhere
tests_fake_cann_libhccl_la_LIBADD = tests/fake-cann/libascendcl.la -lpthread
check_PROGRAMS += tests/device/hccl_double
TESTS += tests/device/hccl_double
tests_device_hccl_double_SOURCES = tests/device/hccl_double.c
tests_device_hccl_double_LDADD = tests/fake-cann/libhccl.la \
	tests/fake-cann/libascendcl.la
EXTRA_DIST += tests/fake-cann/README.md
