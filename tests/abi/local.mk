# ---- ABI comparison with MPICH (tests/abi) ------------------------------
# Compares every constant, size, offset and prototype of include/mpi.h with
# MPICH's mpi.h; skips (77) where mpicc.mpich or python3 is missing.
TESTS += tests/abi/abi-compare.sh
EXTRA_DIST += tests/abi/abi-compare.sh tests/abi/abi-check.py
# Every MPI_/PMPI_/MPIX_ function of Debian's libmpich.so.12 is exported
# (but the families other issues own); prints what is missing.
TESTS += tests/abi/exports.sh
EXTRA_DIST += tests/abi/exports.sh
