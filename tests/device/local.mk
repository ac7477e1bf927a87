HC_FAKE_API = tests/device/fake_api.c tests/device/fake_api.h

if HAVE_CHECK
check_PROGRAMS += tests/unit/check_device
TESTS += tests/unit/check_device
tests_unit_check_device_SOURCES = tests/unit/check_device.c $(HC_FAKE_API)
tests_unit_check_device_CFLAGS = $(HC_UNIT_CFLAGS) \
	-DHC_FAKE_ACL='"$(HC_FAKE_ACL)"' -DHC_FAKE_CUDA='"$(HC_FAKE_CUDA)"'
tests_unit_check_device_LDADD = $(HC_UNIT_LIBS) -ldl
endif
check_PROGRAMS += tests/device/device_p2p
tests_device_device_p2p_SOURCES = tests/device/device_p2p.c $(HC_FAKE_API)
tests_device_device_p2p_LDADD = libhccore.la -ldl
TESTS += tests/device/device_p2p.sh tests/device/cuda.sh
# Bandwidth on real CUDA memory next to cuMemcpy's (run by cuda.sh only).
check_PROGRAMS += tests/device/cuda_bw
tests_device_cuda_bw_SOURCES = tests/device/cuda_bw.c tests/device/mpi_check.h
tests_device_cuda_bw_LDADD = $(HC_MPITEST_LIB) -ldl
tests_device_cuda_bw_LDFLAGS = $(HC_MPITEST_LDF)
dist_noinst_SCRIPTS += tests/device/device_p2p.sh tests/device/cuda.sh
# Faults and memory reuse through the CANN double's test hooks.
check_PROGRAMS += tests/device/device_faults
tests_device_device_faults_SOURCES = tests/device/device_faults.c $(HC_FAKE_API)
tests_device_device_faults_LDADD = libhccore.la -ldl
TESTS += tests/device/device_faults.sh tests/device/runtime_missing.sh
EXTRA_DIST += tests/device/lib.sh
dist_noinst_SCRIPTS += tests/device/device_faults.sh \
	tests/device/runtime_missing.sh
# Examples on device buffers (--device npu|cuda|host): examples/devbuf.c
# dlopen()s the ACL (or CUDA) runtime; examples.sh runs them on 4 ranks
# against the CANN test double and on host memory.
HC_DEVBUF = examples/devbuf.c examples/devbuf.h
noinst_PROGRAMS += examples/sparse_allgather examples/moe_dispatch
examples_sparse_allgather_SOURCES = examples/sparse_allgather.c $(HC_DEVBUF)
examples_sparse_allgather_LDADD = $(HC_MPITEST_LIB) -ldl
examples_sparse_allgather_LDFLAGS = $(HC_MPITEST_LDF)
examples_moe_dispatch_SOURCES = examples/moe_dispatch.c $(HC_DEVBUF)
examples_moe_dispatch_LDADD = $(HC_MPITEST_LIB) -ldl -lm
examples_moe_dispatch_LDFLAGS = $(HC_MPITEST_LDF)
TESTS += tests/device/examples.sh
dist_noinst_SCRIPTS += tests/device/examples.sh

# Collectives on device buffers as HCCL's own, blocking, non-blocking and
# persistent (HCCL double).
check_PROGRAMS += tests/device/device_hccl_coll
tests_device_device_hccl_coll_SOURCES = tests/device/device_hccl_coll.c \
	$(HC_FAKE_API)
tests_device_device_hccl_coll_LDADD = $(HC_MPITEST_LIB) -ldl
tests_device_device_hccl_coll_LDFLAGS = $(HC_MPITEST_LDF)
TESTS += tests/device/device_hccl_coll.sh
dist_noinst_SCRIPTS += tests/device/device_hccl_coll.sh

check_PROGRAMS += tests/device/device_coll
tests_device_device_coll_SOURCES = tests/device/device_coll.c $(HC_FAKE_API)
tests_device_device_coll_LDADD = $(HC_MPITEST_LIB) -ldl
tests_device_device_coll_LDFLAGS = $(HC_MPITEST_LDF)
TESTS += tests/device/device_coll.sh
dist_noinst_SCRIPTS += tests/device/device_coll.sh
check_PROGRAMS += tests/device/device_dtype
tests_device_device_dtype_SOURCES = tests/device/device_dtype.c $(HC_FAKE_API) \
	tests/device/mpi_check.h
tests_device_device_dtype_LDADD = $(HC_MPITEST_LIB) -ldl
tests_device_device_dtype_LDFLAGS = $(HC_MPITEST_LDF)
TESTS += tests/device/device_dtype.sh
dist_noinst_SCRIPTS += tests/device/device_dtype.sh
check_PROGRAMS += tests/device/device_mpi_p2p
tests_device_device_mpi_p2p_SOURCES = tests/device/device_mpi_p2p.c tests/device/mpi_check.h \
	$(HC_FAKE_API)
tests_device_device_mpi_p2p_LDADD = $(HC_MPITEST_LIB) -ldl
tests_device_device_mpi_p2p_LDFLAGS = $(HC_MPITEST_LDF)
TESTS += tests/device/device_mpi_p2p.sh tests/device/cuda_double.sh
dist_noinst_SCRIPTS += tests/device/device_mpi_p2p.sh \
	tests/device/cuda_double.sh
# Partitioned point-to-point on device buffers (src/mpi/part.c).
check_PROGRAMS += tests/device/device_part
tests_device_device_part_SOURCES = tests/device/device_part.c tests/device/mpi_check.h \
	$(HC_FAKE_API)
tests_device_device_part_LDADD = $(HC_MPITEST_LIB) -ldl
tests_device_device_part_LDFLAGS = $(HC_MPITEST_LDF)
TESTS += tests/device/device_part.sh
dist_noinst_SCRIPTS += tests/device/device_part.sh
# MPI-IO from and into device buffers (src/io stages them through the host).
check_PROGRAMS += tests/device/device_io
tests_device_device_io_SOURCES = tests/device/device_io.c $(HC_FAKE_API) \
	tests/device/mpi_check.h
tests_device_device_io_LDADD = $(HC_MPITEST_LIB) -ldl
tests_device_device_io_LDFLAGS = $(HC_MPITEST_LDF)
TESTS += tests/device/device_io.sh
dist_noinst_SCRIPTS += tests/device/device_io.sh
# Stream-ordered MPI (MPIX streams, enqueue) on the CANN and CUDA doubles.
check_PROGRAMS += tests/device/device_enqueue
tests_device_device_enqueue_SOURCES = tests/device/device_enqueue.c \
	tests/device/mpi_check.h $(HC_FAKE_API)
tests_device_device_enqueue_LDADD = $(HC_MPITEST_LIB) -ldl
tests_device_device_enqueue_LDFLAGS = $(HC_MPITEST_LDF)
TESTS += tests/device/device_enqueue.sh
dist_noinst_SCRIPTS += tests/device/device_enqueue.sh
# One-sided operations on device windows and device origin buffers.
check_PROGRAMS += tests/device/device_rma
tests_device_device_rma_SOURCES = tests/device/device_rma.c $(HC_FAKE_API) \
	tests/device/mpi_check.h
tests_device_device_rma_LDADD = $(HC_MPITEST_LIB) -ldl
tests_device_device_rma_LDFLAGS = $(HC_MPITEST_LDF)
TESTS += tests/device/device_rma.sh
dist_noinst_SCRIPTS += tests/device/device_rma.sh
