# tests/fake-cuda: a TEST DOUBLE of the CUDA driver (libcuda.so.1), never
# installed; cuda_double.sh points HCMPI_CUDA_LIB at it.
HC_FAKE_CUDA = $(abs_top_builddir)/tests/fake-cuda/.libs/libcuda.so
check_LTLIBRARIES += tests/fake-cuda/libcuda.la
tests_fake_cuda_libcuda_la_SOURCES = tests/fake-cuda/fake_cuda.h \
	tests/fake-cuda/fake_cuda.c
tests_fake_cuda_libcuda_la_LDFLAGS = $(AM_LDFLAGS) -module \
	-avoid-version -rpath /nowhere
tests_fake_cuda_libcuda_la_LIBADD = -lpthread
EXTRA_DIST += tests/fake-cuda/README.md
if HAVE_CHECK
# The double's own strictness: the legacy stream, cuIpcCloseMemHandle's wait.
check_PROGRAMS += tests/unit/check_fake_cuda
TESTS += tests/unit/check_fake_cuda
tests_unit_check_fake_cuda_SOURCES = tests/unit/check_fake_cuda.c \
	tests/fake-cuda/fake_cuda.h
tests_unit_check_fake_cuda_CFLAGS = $(HC_UNIT_CFLAGS) \
	-DHC_FAKE_CUDA='"$(HC_FAKE_CUDA)"'
tests_unit_check_fake_cuda_LDADD = $(CHECK_LIBS) -ldl -lpthread
endif
