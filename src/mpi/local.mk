# src/mpi: the MPI face (argument checks, handles, error classes, PMPI_).
HC_MPI_SOURCES = src/mpi/mpi_impl.h src/mpi/weak_alias.h src/mpi/handle.c src/mpi/handle.h \
	src/mpi/errors.c src/mpi/errors.h src/mpi/datatype.c src/mpi/datatype.h \
	src/mpi/errhandler.c src/mpi/comm.c src/mpi/init.c src/mpi/status.c \
	src/mpi/request.c src/mpi/reqpool.c src/mpi/reqpool.h src/mpi/reqpool_slot.h \
	src/mpi/buffer.c src/mpi/attr.c \
	src/mpi/coll.c src/mpi/op.c src/mpi/op.h src/mpi/globals.c \
	src/mpi/mpi_trace.c src/mpi/mpi_trace.h
# Point-to-point: sends, receives, sendrecv, probes, persistent requests.
HC_MPI_SOURCES += src/mpi/pt2pt_impl.h src/mpi/pt2pt_args.c \
	src/mpi/pt2pt_send.c src/mpi/pt2pt_recv.c src/mpi/pt2pt_sendrecv.c \
	src/mpi/pt2pt_probe.c src/mpi/pt2pt_persistent.c
HC_MPI_SOURCES += src/mpi/coll_impl.h src/mpi/coll_ctx.c src/mpi/coll_bcast.c \
	src/mpi/coll_rooted.c src/mpi/coll_allgather.c \
	src/mpi/coll_reduce.c src/mpi/coll_check.c src/mpi/coll_neighbor.c \
	src/mpi/coll_alltoall.c src/mpi/coll_hccl.c
HC_MPI_SOURCES += src/mpi/group.c src/mpi/info.c
HC_MPI_SOURCES += src/mpi/pack.c src/mpi/typebuild.c src/mpi/typemap.c src/mpi/xfer.c
# Collectives and non-contiguous datatypes on device buffers.
HC_MPI_SOURCES += src/mpi/devstage.c src/mpi/devstage.h
# Process topologies: communicator attributes of the face.
HC_MPI_SOURCES += src/mpi/topo.c src/mpi/topo_graph.c src/mpi/topo.h
# User error classes, generalized requests, MPI_Alloc_mem (issue 15).
HC_MPI_SOURCES += src/mpi/errclass.c src/mpi/grequest.c src/mpi/allocmem.c \
	src/mpi/external32.c
# Error codes with a text of their own (a receive ending inside an element).
HC_MPI_SOURCES += src/mpi/errdetail.c
# Errors the language bindings raise through the C face's handlers.
HC_MPI_SOURCES += src/mpi/binding_error.c src/mpi/binding_error.h \
	src/mpi/binding_attr.h \
	src/mpi/spawn_codes.h
# Partitioned point-to-point (MPI-4.0 chapter 4) over src/hcomm/part.c.
HC_MPI_SOURCES += src/mpi/part.c
# MPI_Type_create_f90_integer / _real / _complex.
HC_MPI_SOURCES += src/mpi/typef90.c
# MPIX_Query_cuda_support, MPIX_GPU_query_support, MPIX_Query_ascend_support.
HC_MPI_SOURCES += src/mpi/gpuquery.c
# MPI_Get_hw_resource_info (MPI-4.1).
HC_MPI_SOURCES += src/mpi/hwinfo.c
# Buffered-send buffers of the process, sessions and communicators.
HC_MPI_SOURCES += src/mpi/bsend_pool.c src/mpi/bsend_pool.h
# MPI_Comm_c2f and the other handle conversions as functions (MPI-4.1).
HC_MPI_SOURCES += src/mpi/handle_conv.c
# The tool information interface (MPI_T): cvars, pvars, categories, events.
HC_MPI_SOURCES += src/mpi/mpit.c src/mpi/mpit.h src/mpi/mpit_cvar.c \
	src/mpi/mpit_pvar.c src/mpi/mpit_category.c src/mpi/mpit_event.c
# MPI-4 sessions and communicators from groups (issue 21).
HC_MPI_SOURCES += src/mpi/session.c src/mpi/comm_from_group.c src/mpi/comm_neighborhood.c src/mpi/dynamic.c
# One-sided communication: windows, operations, epochs (docs/rma.md).
HC_MPI_SOURCES += src/mpi/win.c src/mpi/win.h src/mpi/win_ops.c src/mpi/win_sync.c \
	src/mpi/memkind.c
# User-Level Failure Mitigation: revoke, shrink, agree (issue 23).
HC_MPI_SOURCES += src/mpi/ulfm.c
# MPIX streams and stream-ordered (enqueued) operations.
HC_MPI_SOURCES += src/mpi/stream.c src/mpi/stream.h src/mpi/stream_enqueue.c
