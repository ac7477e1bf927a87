# tests/engine: the engine's native API (include/hcomm.h) on several ranks.
check_PROGRAMS += tests/engine/engine_p2p
tests_engine_engine_p2p_SOURCES = tests/engine/engine_p2p.c
tests_engine_engine_p2p_LDADD = libhccore.la
check_PROGRAMS += tests/engine/engine_threads
tests_engine_engine_threads_SOURCES = tests/engine/engine_threads.c
tests_engine_engine_threads_LDADD = libhccore.la
TESTS += tests/engine/engine_p2p.sh
dist_noinst_SCRIPTS += tests/engine/engine_p2p.sh
# -- types2 (accessor messages: pipelined non-contiguous data)
check_PROGRAMS += tests/engine/engine_acc
tests_engine_engine_acc_SOURCES = tests/engine/engine_acc.c
tests_engine_engine_acc_LDADD = libhccore.la
TESTS += tests/engine/engine_acc.sh
dist_noinst_SCRIPTS += tests/engine/engine_acc.sh

# -- engine collectives (src/hcomm/coll.c) on 1..8 ranks under hcmpirun
check_PROGRAMS += tests/engine/engine_coll
tests_engine_engine_coll_SOURCES = tests/engine/engine_coll.c
tests_engine_engine_coll_LDADD = libhccore.la
TESTS += tests/engine/engine_coll.sh
dist_noinst_SCRIPTS += tests/engine/engine_coll.sh
