# src/transport: how bytes reach a peer; one folder per transport.
HC_TRANSPORT_SOURCES = src/transport/transport.h src/transport/transport.c
HC_TRANSPORT_SOURCES += src/transport/self/self.c
HC_TRANSPORT_SOURCES += src/transport/shm/shm.c src/transport/shm/shm_impl.h \
	src/transport/shm/shm_cma.c src/transport/shm/shm_placement.c \
	src/transport/shm/shm_ring.c \
	src/transport/shm/shm_ring.h src/transport/shm/shm_pool.c \
	src/transport/shm/shm_pool.h src/transport/shm/shm_layout.c \
	src/transport/shm/shm_layout.h src/transport/shm/shm_fastbox.c \
	src/transport/shm/shm_fastbox.h
HC_TRANSPORT_SOURCES += src/transport/tcp/tcp.c src/transport/tcp/tcp_impl.h \
	src/transport/tcp/tcp_conn.c src/transport/tcp/tcp_connect.c \
	src/transport/tcp/tcp_handshake.c src/transport/tcp/tcp_auth.h \
	src/transport/tcp/tcp_ip.c src/transport/tcp/tcp_ip.h
# link: sockets to processes met at run time (ports, join, spawn).
HC_TRANSPORT_SOURCES += src/transport/link/link.c
# verbs: RC queue pairs over libibverbs, dlopen()ed at init.  Built when
# configure finds infiniband/verbs.h (--with-verbs, default auto; its
# summary says which), otherwise left out of the registration list.
if HC_VERBS
HC_TRANSPORT_SOURCES += src/transport/verbs/verbs.c \
	src/transport/verbs/regcache.c src/transport/verbs/regcache.h \
	src/transport/verbs/conn.c src/transport/verbs/devmem.c \
	src/transport/verbs/atomic.c \
	src/transport/verbs/verbs_impl.h
endif
