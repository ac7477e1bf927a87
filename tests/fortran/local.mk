TESTS += tests/fortran/cxx.sh

# Both scripts skip (77) when the Fortran layer or MPICH's mpif90 is absent.
TESTS += tests/fortran/fortran.sh tests/fortran/relink.sh

# The committed generated Fortran layer equals what buildiface.py writes now.
TESTS += tests/fortran/current.sh
dist_noinst_SCRIPTS += tests/fortran/current.sh
