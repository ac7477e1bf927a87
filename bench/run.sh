#!/bin/sh
# Side-by-side benchmarks of hcmpi, MPICH and Open MPI; see
# docs/benchmarks.md.  All options go to compare.py (try --help), e.g.
#   BUILD=/work/build-x bench/run.sh --quick
#   bench/run.sh --full --ranks 2,8 --hcmpirun /opt/hcmpi/bin/hcmpirun
# BUILD defaults to the current directory (the hcmpi build tree).
here=$(cd "$(dirname "$0")" && pwd)
: "${BUILD:=$(pwd)}"
export BUILD
exec python3 "$here/compare.py" "$@"
