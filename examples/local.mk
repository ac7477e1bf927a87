noinst_PROGRAMS += examples/pingpong examples/pipeline examples/ring_allgather examples/comm_split
examples_pingpong_SOURCES = examples/pingpong.c
examples_pingpong_LDADD = $(HC_MPITEST_LIB)
examples_pingpong_LDFLAGS = $(HC_MPITEST_LDF)
examples_pipeline_SOURCES = examples/pipeline.c examples/pipeline_enqueue.c \
	examples/pipeline_enqueue.h $(HC_DEVBUF)
examples_pipeline_LDADD = $(HC_MPITEST_LIB) -ldl
examples_pipeline_LDFLAGS = $(HC_MPITEST_LDF)
examples_ring_allgather_SOURCES = examples/ring_allgather.c
examples_ring_allgather_LDADD = $(HC_MPITEST_LIB)
examples_ring_allgather_LDFLAGS = $(HC_MPITEST_LDF)
examples_comm_split_SOURCES = examples/comm_split.c $(HC_DEVBUF)
examples_comm_split_LDADD = $(HC_MPITEST_LIB) -ldl
examples_comm_split_LDFLAGS = $(HC_MPITEST_LDF)
# Survives the loss of a rank: revoke, shrink, in-memory buddy checkpoints.
noinst_PROGRAMS += examples/resilient_jacobi
examples_resilient_jacobi_SOURCES = examples/resilient_jacobi.c
examples_resilient_jacobi_LDADD = $(HC_MPITEST_LIB) -lm
examples_resilient_jacobi_LDFLAGS = $(HC_MPITEST_LDF)
