# tests/unit: one Check suite per module, each linked with libhccore.
if HAVE_CHECK
HC_UNIT_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
HC_UNIT_LIBS = libhccore.la $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_pmi1
TESTS += tests/unit/check_pmi1
tests_unit_check_pmi1_SOURCES = tests/unit/check_pmi1.c
tests_unit_check_pmi1_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_pmi1_LDADD = libhccore.la $(CHECK_LIBS)
endif

if HAVE_CHECK
check_PROGRAMS += tests/unit/check_shm_ring tests/unit/check_shm_pool \
	tests/unit/check_shm tests/unit/check_self
TESTS += tests/unit/check_shm_ring tests/unit/check_shm_pool \
	tests/unit/check_shm tests/unit/check_self
tests_unit_check_shm_ring_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_shm_ring_LDADD = $(HC_UNIT_LIBS)
tests_unit_check_shm_pool_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_shm_pool_LDADD = $(HC_UNIT_LIBS)
tests_unit_check_shm_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_shm_LDADD = $(HC_UNIT_LIBS)
tests_unit_check_self_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_self_LDADD = $(HC_UNIT_LIBS)
# check_transport_list: its own copy of the registration list, which adds
# the test-only loopback transport (HC_TRANSPORT_LOOPBACK); the library's
# copy in libhccore.a is then never linked in.
check_PROGRAMS += tests/unit/check_transport_list
TESTS += tests/unit/check_transport_list
tests_unit_check_transport_list_SOURCES = tests/unit/check_transport_list.c \
	tests/unit/transport_loopback.c tests/unit/transport_loopback.h \
	src/transport/transport.c
tests_unit_check_transport_list_CPPFLAGS = $(AM_CPPFLAGS) -DHC_TRANSPORT_LOOPBACK
tests_unit_check_transport_list_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_transport_list_LDADD = $(HC_UNIT_LIBS)
check_PROGRAMS += tests/unit/check_shm_layout
TESTS += tests/unit/check_shm_layout
tests_unit_check_shm_layout_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_shm_layout_LDADD = $(HC_UNIT_LIBS)
check_PROGRAMS += tests/unit/check_rma_locks
TESTS += tests/unit/check_rma_locks
tests_unit_check_rma_locks_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_rma_locks_LDADD = $(HC_UNIT_LIBS)
check_PROGRAMS += tests/unit/check_shm_fastbox
TESTS += tests/unit/check_shm_fastbox
tests_unit_check_shm_fastbox_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_shm_fastbox_LDADD = $(HC_UNIT_LIBS)
check_PROGRAMS += tests/unit/check_match
TESTS += tests/unit/check_match
tests_unit_check_match_SOURCES = tests/unit/check_match.c
tests_unit_check_match_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_match_LDADD = $(HC_UNIT_LIBS)
check_PROGRAMS += tests/unit/check_request
TESTS += tests/unit/check_request
tests_unit_check_request_SOURCES = tests/unit/check_request.c
tests_unit_check_request_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_request_LDADD = $(HC_UNIT_LIBS)
check_PROGRAMS += tests/unit/check_proto
TESTS += tests/unit/check_proto
tests_unit_check_proto_SOURCES = tests/unit/check_proto.c
tests_unit_check_proto_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_proto_LDADD = $(HC_UNIT_LIBS)
endif

# -- MPI face handle tables (src/mpi/handle.c)
if HAVE_CHECK
check_PROGRAMS += tests/unit/check_handles
TESTS += tests/unit/check_handles
tests_unit_check_handles_SOURCES = tests/unit/check_handles.c
tests_unit_check_handles_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_handles_LDADD = $(HC_UNIT_LIBS)
endif

# -- the face request pool (src/mpi/reqpool.c): handle encoding, stale
# handles, objects crossing threads
if HAVE_CHECK
check_PROGRAMS += tests/unit/check_reqpool
TESTS += tests/unit/check_reqpool
tests_unit_check_reqpool_SOURCES = tests/unit/check_reqpool.c
tests_unit_check_reqpool_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_reqpool_LDADD = $(HC_UNIT_LIBS)
endif

# -- collectives (the schedules of src/hcomm/nbc*.c, the blocking forms of
# coll.c) against a threaded mock of the engine's locked point-to-point:
# linked with nbc*.c and coll.c alone, not with libhccore.  MPI reduction
# ops (src/mpi/op.c): every op x type against a scalar reference.
if HAVE_CHECK
check_PROGRAMS += tests/unit/check_coll
TESTS += tests/unit/check_coll
tests_unit_check_coll_SOURCES = tests/unit/check_coll.c src/hcomm/coll.c \
	src/hcomm/coll.h src/hcomm/nbc.c src/hcomm/nbc.h src/hcomm/nbc_impl.h \
	src/hcomm/nbc_reduce.c src/hcomm/nbc_gather.c src/hcomm/nbc_alltoall.c \
	src/hcomm/nbc_scan.c src/util/env.c
tests_unit_check_coll_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_coll_LDADD = $(CHECK_LIBS)
# check_shmcoll_claim: the lanes' switch word alone, on lines it writes.
# Its file (shmcoll_lanes.c) also chooses the lanes from the segment's
# code, so the test takes what that needs from libhccore's archive.
check_PROGRAMS += tests/unit/check_shmcoll_claim
TESTS += tests/unit/check_shmcoll_claim
tests_unit_check_shmcoll_claim_SOURCES = tests/unit/check_shmcoll_claim.c
tests_unit_check_shmcoll_claim_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_shmcoll_claim_LDADD = $(HC_UNIT_LIBS)
check_PROGRAMS += tests/unit/check_op
TESTS += tests/unit/check_op
tests_unit_check_op_SOURCES = tests/unit/check_op.c
tests_unit_check_op_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_op_LDADD = $(HC_UNIT_LIBS)
endif

if HAVE_CHECK
check_PROGRAMS += tests/unit/check_pmi2
TESTS += tests/unit/check_pmi2
tests_unit_check_pmi2_SOURCES = tests/unit/check_pmi2.c
tests_unit_check_pmi2_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_pmi2_LDADD = libhccore.la $(CHECK_LIBS)
endif
check_PROGRAMS += tests/unit/check_pmix_abi
TESTS += tests/unit/check_pmix_abi
tests_unit_check_pmix_abi_SOURCES = tests/unit/check_pmix_abi.c
tests_unit_check_pmix_abi_CPPFLAGS = $(AM_CPPFLAGS) \
	$(shell pkg-config --cflags-only-I pmix 2>/dev/null)

if HAVE_CHECK
check_PROGRAMS += tests/unit/check_tcp
TESTS += tests/unit/check_tcp
tests_unit_check_tcp_SOURCES = tests/unit/check_tcp.c
tests_unit_check_tcp_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_tcp_LDADD = $(HC_UNIT_LIBS)
endif

if HAVE_CHECK
check_PROGRAMS += tests/unit/check_datatype
TESTS += tests/unit/check_datatype
tests_unit_check_datatype_SOURCES = tests/unit/check_datatype.c
tests_unit_check_datatype_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_datatype_LDADD = $(HC_UNIT_LIBS)
endif

if HAVE_CHECK
check_PROGRAMS += tests/unit/check_sha256
TESTS += tests/unit/check_sha256
tests_unit_check_sha256_SOURCES = tests/unit/check_sha256.c
tests_unit_check_sha256_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_sha256_LDADD = $(HC_UNIT_LIBS)
check_PROGRAMS += tests/unit/check_memhooks
TESTS += tests/unit/check_memhooks
tests_unit_check_memhooks_SOURCES = tests/unit/check_memhooks.c
tests_unit_check_memhooks_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_memhooks_LDADD = libhcmemhooks.la $(HC_UNIT_LIBS)
if HC_VERBS
check_PROGRAMS += tests/unit/check_regcache
TESTS += tests/unit/check_regcache
tests_unit_check_regcache_SOURCES = tests/unit/check_regcache.c
tests_unit_check_regcache_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_regcache_LDADD = libhcmemhooks.la $(HC_UNIT_LIBS)
endif
endif

# -- src/util/copy: hc_copy_host against memmove
if HAVE_CHECK
check_PROGRAMS += tests/unit/check_copy
TESTS += tests/unit/check_copy
tests_unit_check_copy_SOURCES = tests/unit/check_copy.c
tests_unit_check_copy_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_copy_LDADD = $(HC_UNIT_LIBS)
endif

# -- src/util/cpu_profile: each profile's thresholds; a setting wins
if HAVE_CHECK
check_PROGRAMS += tests/unit/check_cpu_profile
TESTS += tests/unit/check_cpu_profile
tests_unit_check_cpu_profile_CFLAGS = $(HC_UNIT_CFLAGS)
tests_unit_check_cpu_profile_LDADD = $(HC_UNIT_LIBS)
endif
