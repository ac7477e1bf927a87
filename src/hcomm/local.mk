# src/hcomm: the engine (communicators, matching, protocols, collectives as
# schedules, device data paths, progress, tracing).
HC_ENGINE_SOURCES = src/hcomm/engine.h src/hcomm/match.c src/hcomm/match.h \
	src/hcomm/core.h src/hcomm/engine.c src/hcomm/request.c \
	src/hcomm/request.h src/hcomm/proto.c src/hcomm/proto.h \
	src/hcomm/progress.c src/hcomm/pt2pt.c src/hcomm/comm.c src/hcomm/comm.h \
	src/hcomm/mem.c src/hcomm/trace.c src/hcomm/trace.h
HC_ENGINE_SOURCES += src/hcomm/coll.c src/hcomm/coll.h \
	src/hcomm/nbc.c src/hcomm/nbc.h \
	src/hcomm/nbc_impl.h src/hcomm/nbc_reduce.c src/hcomm/nbc_gather.c \
	src/hcomm/nbc_alltoall.c src/hcomm/nbc_scan.c
# Context ids and the agreement on new ones (threads may create at once).
HC_ENGINE_SOURCES += src/hcomm/ctxid.c src/hcomm/ctxid.h
# Partitioned point-to-point: channels matched once, a message per partition.
HC_ENGINE_SOURCES += src/hcomm/part.c src/hcomm/part.h
# Collectives on intercommunicators: schedules of nbc.c over both groups.
HC_ENGINE_SOURCES += src/hcomm/intercoll.c
# Blocking collectives of one node's ranks through a shared segment.
HC_ENGINE_SOURCES += src/hcomm/shmcoll.c src/hcomm/shmcoll_entry.c src/hcomm/shmcoll.h \
	src/hcomm/shmcoll_impl.h src/hcomm/shmcoll_seg.c src/hcomm/shmcoll_hier.c \
	src/hcomm/shmcoll_lanes.c src/hcomm/shmcoll_rooted.c \
	src/hcomm/shmcoll_read.c
# Small blocking collectives whose turn has come: their step without an op.
HC_ENGINE_SOURCES += src/hcomm/shmcoll_small.c
# Device data paths (ipc, hccl, rdma, staging) chosen after the host match.
HC_ENGINE_SOURCES += src/hcomm/devpath.c src/hcomm/devpath.h \
	src/hcomm/devpath_impl.h src/hcomm/devpath_ipc.c src/hcomm/devpath_staging.c \
	src/hcomm/devpath_hccl.c src/hcomm/devpath_hccl.h \
	src/hcomm/coll_hccl.c src/hcomm/coll_hccl.h \
	src/hcomm/devpath_rdma.c src/hcomm/devpath_rdma.h
# Processes met at run time: ports, accept/connect, join (docs/dynamic.md).
HC_ENGINE_SOURCES += src/hcomm/dynamic.c src/hcomm/procname.c
# Counters, event source and settings for the tool interface (MPI_T).
HC_ENGINE_SOURCES += src/hcomm/counters.c src/hcomm/counters.h
# One-sided communication: windows, active messages, epochs (docs/rma.md).
HC_ENGINE_SOURCES += src/hcomm/rma.c src/hcomm/rma.h src/hcomm/rma_sync.c
# Fault tolerance: revoke, agreement, shrink (ULFM; docs/ft.md).
HC_ENGINE_SOURCES += src/hcomm/ft.c src/hcomm/ft.h
# Operations that move without the target (shared mappings, CMA).
HC_ENGINE_SOURCES += src/hcomm/rma_direct.c src/hcomm/rma_locks.h \
	src/hcomm/rma_nic.c
# Host memory registered ahead of use (MPI_Alloc_mem).
HC_ENGINE_SOURCES += src/hcomm/memreg.c
# Application streams: stream-ordered copies and host functions (MPIX).
HC_ENGINE_SOURCES += src/hcomm/stream.c
