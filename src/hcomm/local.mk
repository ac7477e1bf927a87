# src/hcomm: the engine (communicators, matching, protocols, collectives as
# schedules, device data paths, progress, tracing).
HC_ENGINE_SOURCES = src/hcomm/engine.h src/hcomm/match.c src/hcomm/match.h \
	src/hcomm/core.h src/hcomm/engine.c src/hcomm/request.c \
	src/hcomm/request.h src/hcomm/proto.c src/hcomm/proto.h \
	src/hcomm/progress.c src/hcomm/pt2pt.c src/hcomm/comm.c src/hcomm/comm.h \
	src/hcomm/mem.c src/hcomm/trace.c src/hcomm/trace.h
HC_ENGINE_SOURCES += src/hcomm/coll.c src/hcomm/coll.h \
	src/hcomm/nbc.c src/hcomm/nbc.h
# Collectives on intercommunicators: schedules of nbc.c over both groups.
HC_ENGINE_SOURCES += src/hcomm/intercoll.c
# Device data paths (ipc, hccl, rdma, staging) chosen after the host match.
HC_ENGINE_SOURCES += src/hcomm/devpath.c src/hcomm/devpath.h \
	src/hcomm/devpath_hccl.c src/hcomm/devpath_hccl.h \
	src/hcomm/devpath_rdma.c src/hcomm/devpath_rdma.h
# One-sided communication: windows, active messages, epochs (docs/rma.md).
HC_ENGINE_SOURCES += src/hcomm/rma.c src/hcomm/rma.h src/hcomm/rma_sync.c
