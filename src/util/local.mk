# src/util: helpers that two or more layers need.
HC_UTIL_SOURCES = src/util/log.c src/util/log.h src/util/env.c src/util/env.h \
	src/util/lock.c src/util/lock.h src/util/sha256.c src/util/sha256.h \
	src/util/secret.c src/util/secret.h src/util/hex.h \
	src/util/shmseg.c src/util/shmseg.h
# Whether a program could be started (both sides of MPI_Comm_spawn).
HC_UTIL_SOURCES += src/util/findexec.c src/util/findexec.h
HC_UTIL_SOURCES += src/util/trace_path.h
# hc_zero_small, hc_copy_small: request resets, short packets' bytes.
HC_UTIL_SOURCES += src/util/smallmem.h
# hc_copy_host: the direct puts and gets of a few KiB (rma_direct.c).
HC_UTIL_SOURCES += src/util/copy.c src/util/copy.h
# hc_fence_*: publishers' light fences, sleepers' membarrier (shm, shmcoll).
HC_UTIL_SOURCES += src/util/fence.c src/util/fence.h
# hc_clock_ns: the engine's rendezvous measures.
HC_UTIL_SOURCES += src/util/clock.h
# hc_cpu_profile: the shm thresholds' defaults for this processor.
HC_UTIL_SOURCES += src/util/cpu_profile.c src/util/cpu_profile.h
# The table of tunables: MPI_Init and hcmpirun refuse values out of bounds.
HC_UTIL_SOURCES += src/util/envtable.c src/util/envtable.h
# memhooks: callbacks told of released memory, for the verbs registration
# cache.  The interposed munmap, mremap, madvise, mmap, shmdt, brk, sbrk
# (exported by src/libhcmpi.map) go only into the shared libraries
# (libhcmemhooks.la), never into executables that link libhccore.
HC_UTIL_SOURCES += src/util/memhooks.c src/util/memhooks.h
noinst_LTLIBRARIES += libhcmemhooks.la
libhcmemhooks_la_SOURCES = src/util/memhooks_interpose.c
# hcomm_strerror: the text of each status of include/hcomm_status.h.
HC_UTIL_SOURCES += src/util/status.c
