# ---- launchers: PMI-2, PMIx, Slurm, Open MPI ----
# check_pmi2: the PMI-2 frame format and a scripted server on a socketpair.
# check_pmix_abi compiles pmix_abi.h next to PMIx's pmix_common.h (77
# without it).  The launcher scripts skip (77) where mpirun.openmpi, Hydra,
# or Slurm (root only; it starts private daemons) are missing.

TESTS += tests/launchers/hydra_pmi2.sh tests/launchers/ompi_mpirun.sh \
	tests/launchers/slurm.sh tests/launchers/slurm_2nodes.sh
dist_noinst_SCRIPTS += tests/launchers/hydra_pmi2.sh \
	tests/launchers/ompi_mpirun.sh tests/launchers/slurm.sh \
	tests/launchers/slurm_2nodes.sh
EXTRA_DIST += tests/launchers/lsan.supp tests/launchers/lib.sh
# node_split: Comm_split_type(SHARED) matches the hosts the launcher chose.
check_PROGRAMS += tests/launchers/node_split
tests_launchers_node_split_SOURCES = tests/launchers/node_split.c \
	tests/mpi/mpitest.h
tests_launchers_node_split_LDADD = $(HC_MPITEST_LIB)
tests_launchers_node_split_LDFLAGS = $(HC_MPITEST_LDF)
