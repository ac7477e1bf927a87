# ---- tcp transport ----
# check_tcp: forked processes play the engine over 127.0.0.1.  tcp_local.sh
# runs engine_p2p and engine_coll with HCMPI_TRANSPORTS=tcp under hcmpirun;
# netns_hydra.sh runs engine_p2p and node_split on two network-namespace
# "hosts" with hostnames of their own under Hydra through an nsenter and
# unshare stand-in for ssh (77 unless root with netns).  netns_ulfm.sh
# runs the ULFM tests and resilient_jacobi with a rank killed on ranks
# split over two such namespaces by hcmpirun (77 likewise).

# mpi_suite_tcp.sh runs the tests/mpi p2p and collective scenarios with
# HCMPI_TRANSPORTS=tcp.
TESTS += tests/tcp/tcp_local.sh tests/tcp/netns_hydra.sh \
	tests/tcp/mpi_suite_tcp.sh tests/tcp/netns_ulfm.sh
dist_noinst_SCRIPTS += tests/tcp/tcp_local.sh tests/tcp/netns_hydra.sh \
	tests/tcp/mpi_suite_tcp.sh tests/tcp/netns_ulfm.sh
# bench/tcp_netns.sh (root, by hand): hcmpi latency/bandwidth over tcp
# across a veth between two namespaces next to bench/rawsock.c.
EXTRA_DIST += bench/rawsock.c bench/tcp_netns.sh
