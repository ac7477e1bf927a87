# The double and fv_strict need infiniband/verbs.h, as the transport does;
# without it the scripts skip (77).
if HC_VERBS
check_LTLIBRARIES += tests/fake-verbs/libibverbs.la
tests_fake_verbs_libibverbs_la_SOURCES = tests/fake-verbs/fake_verbs.c \
	tests/fake-verbs/fv_pinned.c tests/fake-verbs/fv_pinned.h
tests_fake_verbs_libibverbs_la_LDFLAGS = $(AM_LDFLAGS) -module \
	-avoid-version -rpath /nowhere
endif
TESTS += tests/verbs/verbs_local.sh tests/verbs/verbs_lazy.sh \
	tests/verbs/mpi_suite_verbs.sh tests/verbs/verbs_regcache.sh \
	tests/verbs/verbs_regcache_reuse.sh
dist_noinst_SCRIPTS += tests/verbs/verbs_local.sh tests/verbs/run-on-cluster.sh \
	tests/verbs/verbs_lazy.sh tests/verbs/mpi_suite_verbs.sh \
	tests/verbs/verbs_regcache.sh tests/verbs/verbs_regcache_reuse.sh
EXTRA_DIST += tests/fake-verbs/README.md tests/verbs/lib.sh docs/verbs.md
# fv_strict: the double's hardware-like refusals, with its source linked
# in (own CFLAGS, so its objects are not the library's).
if HC_VERBS
check_PROGRAMS += tests/fake-verbs/fv_strict
tests_fake_verbs_fv_strict_SOURCES = tests/fake-verbs/fv_strict.c \
	tests/fake-verbs/fake_verbs.c tests/fake-verbs/fv_pinned.c \
	tests/fake-verbs/fv_pinned.h
tests_fake_verbs_fv_strict_CFLAGS = $(AM_CFLAGS)
TESTS += tests/fake-verbs/fv_strict
endif
# verbs_sparse: only pairs 2k, 2k+1 talk (verbs_lazy.sh counts the QPs).
check_PROGRAMS += tests/verbs/verbs_sparse
tests_verbs_verbs_sparse_SOURCES = tests/verbs/verbs_sparse.c tests/mpi/mpitest.h
tests_verbs_verbs_sparse_LDADD = $(HC_MPITEST_LIB)
tests_verbs_verbs_sparse_LDFLAGS = $(HC_MPITEST_LDF)
# verbs_dmabuf: CUDA device buffers over verbs (dma-buf regions), on the
# CUDA and verbs test doubles (verbs_dmabuf.sh).
check_PROGRAMS += tests/verbs/verbs_dmabuf
tests_verbs_verbs_dmabuf_SOURCES = tests/verbs/verbs_dmabuf.c $(HC_FAKE_API) \
	tests/device/mpi_check.h
tests_verbs_verbs_dmabuf_LDADD = $(HC_MPITEST_LIB) -ldl
tests_verbs_verbs_dmabuf_LDFLAGS = $(HC_MPITEST_LDF)
TESTS += tests/verbs/verbs_dmabuf.sh
dist_noinst_SCRIPTS += tests/verbs/verbs_dmabuf.sh
# verbs_rdma_error: a refused RDMA READ fails its request (verbs_local.sh).
check_PROGRAMS += tests/verbs/verbs_rdma_error
tests_verbs_verbs_rdma_error_SOURCES = tests/verbs/verbs_rdma_error.c \
	tests/mpi/mpitest.h
tests_verbs_verbs_rdma_error_LDADD = $(HC_MPITEST_LIB)
tests_verbs_verbs_rdma_error_LDFLAGS = $(HC_MPITEST_LDF)
# verbs_regcache_reuse: buffers freed and remapped under the pinned
# registration cache (verbs_regcache_reuse.sh).
check_PROGRAMS += tests/verbs/verbs_regcache_reuse
tests_verbs_verbs_regcache_reuse_SOURCES = tests/verbs/verbs_regcache_reuse.c \
	tests/mpi/mpitest.h
tests_verbs_verbs_regcache_reuse_LDADD = $(HC_MPITEST_LIB)
tests_verbs_verbs_regcache_reuse_LDFLAGS = $(HC_MPITEST_LDF)
# verbs_allocmem: MPI_Alloc_mem's memory registered ahead of use
# (verbs_allocmem.sh).
check_PROGRAMS += tests/verbs/verbs_allocmem
tests_verbs_verbs_allocmem_SOURCES = tests/verbs/verbs_allocmem.c \
	tests/mpi/mpitest.h
tests_verbs_verbs_allocmem_LDADD = $(HC_MPITEST_LIB)
tests_verbs_verbs_allocmem_LDFLAGS = $(HC_MPITEST_LDF)
TESTS += tests/verbs/verbs_allocmem.sh
dist_noinst_SCRIPTS += tests/verbs/verbs_allocmem.sh
# verbs_rma_nic: accumulates by NIC atomics (verbs_rma_nic.sh).
check_PROGRAMS += tests/verbs/verbs_rma_nic
tests_verbs_verbs_rma_nic_SOURCES = tests/verbs/verbs_rma_nic.c \
	tests/mpi/mpitest.h
tests_verbs_verbs_rma_nic_LDADD = $(HC_MPITEST_LIB)
tests_verbs_verbs_rma_nic_LDFLAGS = $(HC_MPITEST_LDF)
TESTS += tests/verbs/verbs_rma_nic.sh
dist_noinst_SCRIPTS += tests/verbs/verbs_rma_nic.sh
